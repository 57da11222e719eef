package org.vtvr;

import io.quarkus.restclient.config.RestClientsConfig;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vtvr.bare.BareConfig;
import org.vtvr.bare.BareVertx;
import org.vtvr.delay.client.DelaySettings;
import org.vtvr.floor.FloorRoutes;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

/**
 * The bare baseline (docs/floor.md): {@code bare.BareVertx}, started here on a Vert.x of its own against the test
 * app's delay service, answers io and fanout with the floor's body (its own name as {@code mode}) and makes the same
 * delay calls, counted where they land (the delay service's {@code delay_service_calls_total}); it calls the
 * service with the floor's client settings and refuses bad input with the floor's problem.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class BareTest {

    static final int N = 5;

    static Vertx vertx;
    static BareVertx bare;
    static String url;

    @Inject
    RestClientsConfig restClients;

    @BeforeAll
    static void start() throws Exception {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        vertx = Vertx.vertx();
        bare = new BareVertx(vertx, BareConfig.read(Map.of("quarkus.rest-client.delay.url", delayUrl())));
        bare.listen("127.0.0.1", port).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        url = "http://127.0.0.1:" + port;
    }

    @AfterAll
    static void stop() {
        if (bare != null) {
            bare.close();
        }
    }

    private static String delayUrl() {
        return ConfigProvider.getConfig().getValue("quarkus.rest-client.delay.url", String.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"io?delay=0&calls=3", "fanout?delay=0&calls=8", "io", "fanout?delay=10"})
    void answersAsTheFloorWithTheSameDelayCalls(String query) {
        Map<String, Object> floor = new LinkedHashMap<>();
        Map<String, Object> bareAnswer = new LinkedHashMap<>();
        double floorCalls = calls("/" + FloorRoutes.SERIES + "/" + query, floor);
        double bareCalls = calls(url + "/" + BareVertx.SERIES + "/" + query, bareAnswer);
        assertThat(query + ": delay calls, bare vs floor", bareCalls, equalTo(floorCalls));
        assertThat(query + ": some calls made", floorCalls >= N, equalTo(true));
        assertThat(new ArrayList<>(bareAnswer.keySet()), equalTo(new ArrayList<>(floor.keySet())));
        assertThat(bareAnswer.get("mode"), equalTo(BareVertx.SERIES));
        assertThat((String) bareAnswer.get("thread"), startsWith("vert.x-eventloop-thread-"));
        for (String same : new String[] {"scenario", "virtual", "delay", "calls"}) {
            assertThat(query + ": " + same, bareAnswer.get(same), equalTo(floor.get(same)));
        }
    }

    /** The delay calls N requests to PATH made (as the app's delay service counts them); the last answer into BODY. */
    private static double calls(String path, Map<String, Object> body) {
        double before = Metrics.delayCalls();
        for (int i = 0; i < N; i++) {
            JsonPath answer = given().when().get(path).then().statusCode(200).extract().jsonPath();
            body.clear();
            body.putAll(answer.getMap(""));
        }
        return Metrics.delayCalls() - before;
    }

    @ParameterizedTest
    @ValueSource(strings = {"io?delay=abc", "io?calls=0", "io?delay=10001", "fanout?delay=10&calls=101",
            "io?delay=10000&calls=3"})
    void refusesBadInputWithTheFloorsProblem(String query) {
        JsonPath floor = given().urlEncodingEnabled(false).when().get("/floor/" + query)
                .then().statusCode(400).extract().jsonPath();
        JsonPath bareProblem = given().urlEncodingEnabled(false).when().get(url + "/bare/" + query)
                .then().statusCode(400).contentType("application/problem+json").extract().jsonPath();
        assertThat(bareProblem.getString("type"), equalTo(floor.getString("type")));
        assertThat(bareProblem.getString("detail"), equalTo(floor.getString("detail")));
    }

    @Test
    void callsTheDelayServiceWithTheFloorsClientSettings() {
        assertThat(DelaySettings.of(BareConfig.read(Map.of("quarkus.rest-client.delay.url", delayUrl()))),
                equalTo(DelaySettings.of(restClients)));
    }

    @Test
    void answersNoOtherPath() {
        given().when().get(url + "/floor/io").then().statusCode(404);
        given().when().post(url + "/bare/io").then().statusCode(405).header("Allow", "GET, HEAD");
    }
}
