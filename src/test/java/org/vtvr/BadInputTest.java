package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.vtvr.scenario.Mode;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;

/** Every rejection in every mode: a 4xx with an application/problem+json body and no stack trace. */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class BadInputTest {

    @BeforeAll
    static void logFailures() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
    }

    static ValidatableResponse isProblem(ValidatableResponse response, int status) {
        return response.statusCode(status)
                .contentType("application/problem+json")
                .body("status", equalTo(status))
                .body("type", notNullValue())
                .body("title", notNullValue())
                .body("detail", notNullValue())
                .body(not(containsString("\tat ")))
                .body(not(containsString("Exception:")));
    }

    /** path + query that each mode must refuse with 400. */
    static Stream<Arguments> badQueries() {
        List<String> bad = List.of(
                "io?delay=abc", "io?delay=-1", "io?delay=10001", "io?delay=99999999999999999999", "io?delay=%20",
                "io?calls=0", "io?calls=1001", "io?calls=1.5", "fanout?calls=-3", "fanout?delay=%C3%A9",
                "db?queries=0", "db?queries=501", "db?queries=x",
                "slow-query?delay=-5", "slow-query?delay=20000",
                "cpu?n=0", "cpu?n=10000001", "cpu?n=1e6",
                "orders/abc", "orders/" + "9".repeat(400),
                "workload?delay=-1", "workload?delay=10001", "workload?calls=-1", "workload?calls=1001",
                "workload?fanout=-1", "workload?fanout=101", "workload?queries=-1", "workload?queries=501",
                "workload?cpu=-1", "workload?cpu=10000001", "workload?insert=-1", "workload?insert=2",
                "workload?insert=yes", "workload?queries=1.5");
        return Arrays.stream(Mode.values()).flatMap(mode -> bad.stream().map(q -> Arguments.of(mode, q)));
    }

    @ParameterizedTest
    @MethodSource("badQueries")
    void refusesBadParameters(Mode mode, String query) {
        isProblem(given().urlEncodingEnabled(false).when().get("/" + mode.path() + "/" + query).then(), 400);
    }

    /** The workload's plan (calls × delay, plus one delay when it fans out) is held to the request deadline (20 s). */
    @ParameterizedTest
    @MethodSource("modes")
    void refusesAWorkloadWhosePlanCannotFitTheDeadline(Mode mode) {
        for (String query : List.of("workload?delay=10000&calls=3", "workload?delay=10000&calls=2&fanout=1",
                "workload?delay=21&calls=1000")) {
            isProblem(given().when().get("/" + mode.path() + "/" + query).then(), 400)
                    .body("detail", containsString("workload would wait"))
                    .body("detail", containsString("bench.request-deadline"));
        }
    }

    /** Its cpu step runs on the event loop in the reactive mode: there it is held to the cpu scenario's lower bound. */
    @ParameterizedTest
    @MethodSource("modes")
    void holdsTheWorkloadsCpuToTheEventLoopBoundInTheReactiveMode(Mode mode) {
        var answer = given().when().get("/" + mode.path() + "/workload?cpu=100001").then();
        if (mode == Mode.REACTIVE) {
            isProblem(answer, 400).body("detail", equalTo("cpu must be in 0..100000 in reactive mode, got 100001:"
                    + " the kernel runs on the event loop (bench.max-n-event-loop)"));
        } else {
            answer.statusCode(200).body("primes", equalTo(9592));
        }
    }

    @ParameterizedTest
    @MethodSource("modes")
    void refusesAnUnknownLock(Mode mode) {
        if (mode == Mode.REACTIVE) {
            isProblem(given().when().get("/reactive/pinning?lock=synchronized").then(), 404);
        } else {
            isProblem(given().when().get("/" + mode.path() + "/pinning?lock=stamped").then(), 400)
                    .body("detail", containsString("lock"));
        }
    }

    static Stream<Mode> modes() {
        return Arrays.stream(Mode.values());
    }

    @ParameterizedTest
    @MethodSource("badBodies")
    void refusesMalformedOrIncompleteOrders(Mode mode, String body) {
        isProblem(given().contentType(ContentType.JSON).body(body)
                .when().post("/" + mode.path() + "/orders?delay=0").then(), 400);
    }

    static Stream<Arguments> badBodies() {
        List<String> bodies = List.of("{", "not json", "[]", "{}", "null", "{\"customer\":\"a\",\"sku\":\"s\"}",
                "{\"customer\":\"\",\"sku\":\"s\",\"quantity\":1}", "{\"customer\":\"a\",\"sku\":\"s\",\"quantity\":0}",
                "{\"customer\":\"a\",\"sku\":\"s\",\"quantity\":\"many\"}",
                "{\"customer\":\"a\",\"sku\":\"s\",\"quantity\":1e99}",
                "{\"customer\":\"" + "x".repeat(101) + "\",\"sku\":\"s\",\"quantity\":1}");
        return Arrays.stream(Mode.values()).flatMap(mode -> bodies.stream().map(b -> Arguments.of(mode, b)));
    }

    @ParameterizedTest
    @MethodSource("modes")
    void refusesOtherContentTypesAndOversizedBodies(Mode mode) {
        isProblem(given().contentType(ContentType.TEXT).body("customer=a")
                .when().post("/" + mode.path() + "/orders").then(), 415);
        given().contentType(ContentType.JSON).body("{\"customer\":\"" + "x".repeat(20_000) + "\"}")
                .when().post("/" + mode.path() + "/orders").then().statusCode(413);
    }

    @ParameterizedTest
    @MethodSource("modes")
    void answers404ForAnUnknownOrder(Mode mode) {
        isProblem(given().when().get("/" + mode.path() + "/orders/987654321").then(), 404)
                .body("detail", containsString("987654321"));
    }

    @Test
    void answers404ForAnUnknownMode() {
        isProblem(given().when().get("/carrier/io").then(), 404).body("detail", containsString("virtual"));
    }

    /** Hostile values for every parameter of every endpoint, seeded so a failure can be replayed. */
    @Test
    void randomAndHostileValuesNeverCauseA5xxOrAHang() {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        java.util.Random random = new java.util.Random(seed);
        List<String> hostile = List.of("", " ", "-0", "0x10", "1e3", "NaN", "Infinity", "9223372036854775808",
                "-9223372036854775809", "\u0000", "\uFFFE", "\u202E1", "\\u0031", "1;DROP TABLE items", "' OR 1=1 --",
                "<script>", "\uD83D\uDCA5", "\uD55C\uAE00", "x".repeat(5000), "1".repeat(400), "  1  ", "%", "&calls=1");
        String[][] endpoints = {{"io", "delay", "calls"}, {"fanout", "delay", "calls"}, {"db", "queries"},
                {"slow-query", "delay"}, {"cpu", "n"}, {"pinning", "delay", "lock"}, {"orders/", null},
                {"workload", "delay", "calls", "fanout", "queries", "cpu", "insert"}};
        for (int i = 0; i < 300; i++) {
            Mode mode = Mode.values()[random.nextInt(3)];
            String[] endpoint = endpoints[random.nextInt(endpoints.length)];
            String value = java.net.URLEncoder.encode(random.nextBoolean() ? hostile.get(random.nextInt(hostile.size()))
                    : String.valueOf(random.nextLong()), java.nio.charset.StandardCharsets.UTF_8);
            String path = "/" + mode.path() + "/" + endpoint[0] + (endpoint[1] == null ? value : "?"
                    + endpoint[1 + random.nextInt(endpoint.length - 1)] + "=" + value);
            int status = given().urlEncodingEnabled(false).when().get(path).then()
                    .time(org.hamcrest.Matchers.lessThan(15_000L)).extract().statusCode();
            org.junit.jupiter.api.Assertions.assertTrue(status < 500,
                    () -> "HTTP " + status + " for " + path + " (replay with -Dfuzz.seed=" + seed + ")");
        }
        for (String body : hostile) {
            given().contentType(ContentType.JSON).body("{\"customer\":\"" + body + "\",\"sku\":\"" + body
                    + "\",\"quantity\":" + (random.nextBoolean() ? "1" : body) + "}").when()
                    .post("/" + Mode.values()[random.nextInt(3)].path() + "/orders?delay=0").then()
                    .statusCode(org.hamcrest.Matchers.lessThan(500));
        }
    }

    @Test
    void delayServiceRefusesBadDelays() {
        isProblem(given().when().get("/delay/abc").then(), 400);
        isProblem(given().when().get("/delay/10001").then(), 400);
        isProblem(given().when().get("/delay/-1").then(), 400);
    }
}
