package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.vtvr.scenario.Mode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.anyOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

/**
 * The database stopped, or stalled (SIGSTOP), and started again: every database request in every mode ends with a
 * 503/504 problem within a bound, readiness goes DOWN, and everything serves again without a restart. Always on
 * the embedded database ({@link EmbeddedDatabase.Only}), so it never skips.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
@TestProfile(EmbeddedDatabase.Only.class)
class DatabaseOutageTest {

    /** The documented bound for a stalled database with the default settings (docs/equal-work.md). */
    static final long STALL_BOUND_MS = 15_000;

    @BeforeAll
    static void logFailures() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
    }

    @Test
    void answers503WhileDownAndRecoversWithoutRestart() throws InterruptedException {
        allServe();
        EmbeddedDatabase.outage(true);
        try {
            for (Mode mode : Mode.values()) {
                BadInputTest.isProblem(given().when().get("/" + mode.path() + "/db").then(), 503)
                        .body("type", containsString("database"))
                        .time(lessThan(6000L));
            }
            given().when().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"));
        } finally {
            EmbeddedDatabase.outage(false);
        }
        allServeAgainWithin(10_000);
    }

    /** Every db, slow-query and orders request of every mode at once, against a frozen database process. */
    @Test
    void stalledDatabaseIsBoundedAndRecoversWithoutRestart() throws Exception {
        allServe();
        long order = given().contentType(ContentType.JSON).queryParam("delay", 0)
                .body("{\"customer\":\"ada\",\"sku\":\"S\",\"quantity\":1}")
                .when().post("/virtual/orders").then().statusCode(201).extract().jsonPath().getLong("orderId");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        String base = "http://localhost:" + ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        List<HttpRequest> requests = new ArrayList<>();
        for (Mode mode : Mode.values()) {
            String prefix = base + "/" + mode.path();
            for (String path : List.of("/db", "/db?queries=5", "/slow-query?delay=100", "/orders/" + order)) {
                requests.add(HttpRequest.newBuilder(URI.create(prefix + path)).timeout(Duration.ofSeconds(30)).build());
            }
            requests.add(HttpRequest.newBuilder(URI.create(prefix + "/orders?delay=0"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"ada\",\"sku\":\"S\",\"quantity\":1}"))
                    .build());
        }
        EmbeddedDatabase.stall(true);
        try {
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> answers = requests.stream()
                    .map(request -> http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                            .whenComplete((answer, failure) -> System.out.printf("stalled database: %s %s -> %s after %d ms%n",
                                    request.method(), request.uri().getPath() + "?" + request.uri().getQuery(),
                                    answer == null ? failure : answer.statusCode(), (System.nanoTime() - start) / 1_000_000)))
                    .toList();
            var readiness = http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            for (int i = 0; i < answers.size(); i++) {
                HttpResponse<String> answer = answers.get(i).join();
                String what = requests.get(i).method() + " " + requests.get(i).uri();
                assertThat(what + ": " + answer.body(), answer.statusCode(), anyOf(equalTo(503), equalTo(504)));
                assertThat(what, answer.headers().firstValue("Content-Type").orElse(""),
                        containsString("application/problem+json"));
            }
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertThat("slowest answer against the stalled database, ms", tookMs, lessThan(STALL_BOUND_MS));
            HttpResponse<String> ready = readiness.join();
            assertThat(ready.body(), ready.statusCode(), equalTo(503));
        } finally {
            EmbeddedDatabase.stall(false);
        }
        allServeAgainWithin(10_000);
    }

    /** Readiness (DOWN) and liveness (UP) answer within a second while the database process is frozen. */
    @Test
    void healthAnswersWithinASecondWhileTheDatabaseIsStalled() {
        allServe();
        EmbeddedDatabase.stall(true);
        try {
            for (int i = 0; i < 3; i++) {   // again while the first probe still waits: the checks share it
                given().when().get("/q/health/ready").then().statusCode(503).time(lessThan(1000L))
                        .body("checks.find { it.name == 'database' }.status", equalTo("DOWN"));
                given().when().get("/q/health/live").then().statusCode(200).time(lessThan(1000L));
            }
        } finally {
            EmbeddedDatabase.stall(false);
        }
        allServeAgainWithin(10_000);
    }

    private static void allServe() {
        for (Mode mode : Mode.values()) {
            given().when().get("/" + mode.path() + "/db").then().statusCode(200);
        }
    }

    private static void allServeAgainWithin(long ms) {
        for (Mode mode : Mode.values()) {
            for (String path : List.of("/db", "/slow-query?delay=10")) {
                await(mode + path + " serves again").atMost(Duration.ofMillis(ms)).pollInterval(Duration.ofMillis(200))
                        .until(() -> given().when().get("/" + mode.path() + path).statusCode(), equalTo(200));
            }
        }
        given().when().get("/q/health/ready").then().statusCode(200);
    }
}
