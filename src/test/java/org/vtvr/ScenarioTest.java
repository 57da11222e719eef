package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vtvr.scenario.Mode;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;

/**
 * Every scenario in every mode, through HTTP: one parameterized test per scenario, so the three modes are held to
 * identical URLs, JSON and results by construction. Also proves which kind of thread served each mode.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class ScenarioTest {

    @BeforeAll
    static void logFailures() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
    }

    /** The thread-name prefix each model must be served on, and whether it is a virtual thread. */
    static ValidatableResponse servedBy(ValidatableResponse response, Mode mode, String scenario) {
        String prefix = switch (mode) {
            case VIRTUAL -> "quarkus-virtual-thread-";
            case WORKER -> "executor-thread-";
            case REACTIVE -> "vert.x-eventloop-thread-";
        };
        return response.contentType(ContentType.JSON)
                .body("mode", equalTo(mode.path()))
                .body("scenario", equalTo(scenario))
                .body("thread", startsWith(prefix))
                .body("virtual", is(mode == Mode.VIRTUAL))
                .body("elapsedMs", greaterThanOrEqualTo(0));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void ioCallsTheDelayServiceOneAfterAnother(Mode mode) {
        var response = given().queryParam("delay", 100).queryParam("calls", 3)
                .when().get("/{mode}/io", mode.path())
                .then().statusCode(200);
        servedBy(response, mode, "io")
                .body("delay", equalTo(100))
                .body("calls", equalTo(3))
                .body("elapsedMs", greaterThanOrEqualTo(300));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void fanoutCallsTheDelayServiceConcurrently(Mode mode) {
        var response = given().queryParam("delay", 300).queryParam("calls", 8)
                .when().get("/{mode}/fanout", mode.path())
                .then().statusCode(200);
        // 8 sequential calls would take 2,400 ms; concurrent ones take about one delay
        servedBy(response, mode, "fanout")
                .body("calls", equalTo(8))
                .body("elapsedMs", both(greaterThanOrEqualTo(300)).and(lessThan(1500)));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void dbReadsSeededRows(Mode mode) {
        var response = given().queryParam("queries", 5)
                .when().get("/{mode}/db", mode.path())
                .then().statusCode(200);
        // prices are id % 1000, so five rows sum to at most 5 x 999
        servedBy(response, mode, "db")
                .body("queries", equalTo(5))
                .body("checksum", both(greaterThanOrEqualTo(0)).and(lessThan(5 * 1000)));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void slowQueryHoldsItsConnectionInTheServer(Mode mode) {
        var response = given().queryParam("delay", 300)
                .when().get("/{mode}/slow-query", mode.path())
                .then().statusCode(200);
        servedBy(response, mode, "slow-query")
                .body("delay", equalTo(300))
                .body("elapsedMs", greaterThanOrEqualTo(300));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void checkoutStoresTheOrderAndReadsItBack(Mode mode) {
        var created = given().contentType(ContentType.JSON).queryParam("delay", 50)
                .body("{\"customer\":\"ada\",\"sku\":\"SKU-" + mode + "\",\"quantity\":3}")
                .when().post("/{mode}/orders", mode.path())
                .then().statusCode(201);
        servedBy(created, mode, "checkout")
                .body("calls", equalTo(2))
                .body("elapsedMs", greaterThanOrEqualTo(100))
                .body("orderId", notNullValue())
                .body("order.customer", equalTo("ada"))
                .body("order.mode", equalTo(mode.path()));
        long id = created.extract().jsonPath().getLong("orderId");
        created.header("Location", endsWith("/" + mode.path() + "/orders/" + id));

        for (Mode reader : Mode.values()) {
            var read = given().when().get("/{mode}/orders/{id}", reader.path(), id).then().statusCode(200);
            servedBy(read, reader, "order")
                    .body("orderId", equalTo((int) id))
                    .body("order.sku", equalTo("SKU-" + mode))
                    .body("order.quantity", equalTo(3))
                    .body("order.mode", equalTo(mode.path()));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void cpuCountsPrimes(Mode mode) {
        var response = given().queryParam("n", 100_000)
                .when().get("/{mode}/cpu", mode.path())
                .then().statusCode(200);
        servedBy(response, mode, "cpu")
                .body("n", equalTo(100_000))
                .body("primes", equalTo(9592));
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"VIRTUAL", "WORKER"})
    void pinningHoldsAMonitorOrALockAcrossTheCall(Mode mode) {
        for (String lock : new String[] {"synchronized", "reentrant"}) {
            var response = given().queryParam("delay", 50).queryParam("lock", lock)
                    .when().get("/{mode}/pinning", mode.path())
                    .then().statusCode(200);
            servedBy(response, mode, "pinning")
                    .body("lock", equalTo(lock))
                    .body("elapsedMs", greaterThanOrEqualTo(50));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void workloadRunsEveryStepInOneRequest(Mode mode) {
        var response = given().queryParam("delay", 0).queryParam("calls", 2).queryParam("fanout", 3)
                .queryParam("queries", 2).queryParam("cpu", 1000).queryParam("insert", 1)
                .when().get("/{mode}/workload", mode.path())
                .then().statusCode(200);
        servedBy(response, mode, "workload")
                .body("delay", equalTo(0))
                .body("calls", equalTo(2))
                .body("fanout", equalTo(3))
                .body("queries", equalTo(2))
                .body("checksum", both(greaterThanOrEqualTo(0)).and(lessThan(2 * 1000)))
                .body("n", equalTo(1000))
                .body("primes", equalTo(168))
                .body("orderId", notNullValue())
                .body("$", not(hasKey("order")));
        long id = response.extract().jsonPath().getLong("orderId");
        given().when().get("/{mode}/orders/{id}", mode.path(), id).then().statusCode(200)
                .body("order.customer", equalTo("workload"))
                .body("order.sku", equalTo("WORKLOAD"))
                .body("order.quantity", equalTo(1))
                .body("order.mode", equalTo(mode.path()));
    }

    /** Every step defaults to 0: the request does nothing but answer, with the same fields. */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void workloadWithoutParametersDoesNothing(Mode mode) {
        double calls = Metrics.delayCalls();
        var response = given().when().get("/{mode}/workload", mode.path()).then().statusCode(200);
        assertThat("delay calls made", Metrics.delayCalls() - calls, equalTo(0.0));
        servedBy(response, mode, "workload")
                .body("delay", equalTo(100))
                .body("calls", equalTo(0))
                .body("fanout", equalTo(0))
                .body("queries", equalTo(0))
                .body("checksum", equalTo(0))
                .body("n", equalTo(0))
                .body("primes", equalTo(0))
                .body("$", not(hasKey("orderId")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void defaultsApplyWhenParametersAreLeftOut(Mode mode) {
        given().when().get("/{mode}/fanout", mode.path())
                .then().statusCode(200).body(allOf(
                        org.hamcrest.Matchers.containsString("\"delay\":100"),
                        org.hamcrest.Matchers.containsString("\"calls\":10")));
    }
}
