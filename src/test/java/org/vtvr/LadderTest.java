package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.vtvr.ladder.LadderResource;
import org.vtvr.scenario.Scenario;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

/**
 * The cost ladder's rungs (docs/floor.md): each answers io like the floor and the modes, on the thread its rung
 * names, with exactly the delay calls asked for, and refuses bad input with the same problem; OPTIONS and 405 say
 * GET as for the modes' paths, and the OpenAPI document leaves the rungs out (a measurement tool, not public API).
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class LadderTest {

    static final int N = 5;

    @BeforeAll
    static void logFailures() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
    }

    @ParameterizedTest
    @CsvSource({"rest, rest, vert.x-eventloop-thread-", "rest-client, rest-client, vert.x-eventloop-thread-",
            "gateway, gateway, vert.x-eventloop-thread-", "reactive, reactive, vert.x-eventloop-thread-",
            "vt, vt, quarkus-virtual-thread-", "vt-rest-client, vt-rest-client, quarkus-virtual-thread-",
            "vt-gateway, vt-gateway, quarkus-virtual-thread-", "virtual, virtual, quarkus-virtual-thread-"})
    void everyRungServesIoWithTheCallsAsked(String rung, String mode, String threadPrefix) {
        double before = Metrics.delayCalls();
        for (int i = 0; i < N; i++) {
            given().queryParam("delay", 20).queryParam("calls", 3)
                    .when().get("/ladder/{rung}/io", rung)
                    .then().statusCode(200).contentType(ContentType.JSON)
                    .body("mode", equalTo(mode))
                    .body("scenario", equalTo("io"))
                    .body("thread", startsWith(threadPrefix))
                    .body("virtual", is(threadPrefix.startsWith("quarkus-virtual")))
                    .body("delay", equalTo(20))
                    .body("calls", equalTo(3))
                    .body("elapsedMs", greaterThanOrEqualTo(60));
        }
        assertThat(rung + ": delay calls", Metrics.delayCalls() - before, equalTo(3.0 * N));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rest", "rest-client", "gateway", "reactive", "vt", "vt-rest-client", "vt-gateway", "virtual"})
    void everyRungRefusesBadInputWithTheModesProblem(String rung) {
        for (String query : new String[] {"delay=abc", "calls=0", "delay=10000&calls=3"}) {
            var problem = BadInputTest.isProblem(given().urlEncodingEnabled(false)
                    .when().get("/ladder/" + rung + "/io?" + query).then(), 400).extract();
            var mode = given().urlEncodingEnabled(false).when().get("/reactive/io?" + query).then().extract();
            assertThat(rung + " " + query, problem.path("detail"), equalTo(mode.path("detail")));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rest", "rest-client", "gateway", "reactive", "vt", "vt-rest-client", "vt-gateway", "virtual"})
    void everyRungAnswersOptionsAnd405WithItsMethods(String rung) {
        given().when().options("/ladder/{rung}/io", rung).then().statusCode(204).header("Allow", "GET, HEAD, OPTIONS");
        given().contentType(ContentType.JSON).body("{}").when().post("/ladder/{rung}/io", rung)
                .then().statusCode(405).header("Allow", "GET, HEAD, OPTIONS");
    }

    /** The rungs GET /scenarios lists are the endpoints this class serves. */
    @Test
    void theCataloguesRungsAreTheEndpoints() {
        assertThat(LadderResource.RUNGS.stream().map(rung -> LadderResource.path(rung, Scenario.IO)).sorted().toList(),
                equalTo(LadderResource.paths()));
    }

    @Test
    void theDocumentLeavesTheLadderOut() {
        String document = given().when().get("/q/openapi?format=json").then().statusCode(200).extract().asString();
        assertThat(document.contains("/ladder"), is(false));
        assertThat(document.contains("\"/reactive/io\""), is(true));
    }
}
