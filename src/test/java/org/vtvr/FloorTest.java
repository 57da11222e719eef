package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.startsWith;

/**
 * The floor series (docs/floor.md): the modes' answer, input rules and problems, served on the event loop by a plain
 * Vert.x route. Its delay calls are held equal in EqualWorkTest, its deadline and cancellation in FailureSemanticsTest.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class FloorTest {

    @BeforeAll
    static void logFailures() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
    }

    @Test
    void ioCallsTheDelayServiceOneAfterAnotherOnTheEventLoop() {
        given().queryParam("delay", 100).queryParam("calls", 3)
                .when().get("/floor/io")
                .then().statusCode(200).contentType(ContentType.JSON)
                .body("mode", equalTo("floor"))
                .body("scenario", equalTo("io"))
                .body("thread", startsWith("vert.x-eventloop-thread-"))
                .body("virtual", is(false))
                .body("delay", equalTo(100))
                .body("calls", equalTo(3))
                .body("elapsedMs", greaterThanOrEqualTo(300));
    }

    @Test
    void fanoutCallsTheDelayServiceConcurrently() {
        // 8 sequential calls would take 2,400 ms; concurrent ones take about one delay
        given().queryParam("delay", 300).queryParam("calls", 8)
                .when().get("/floor/fanout")
                .then().statusCode(200)
                .body("scenario", equalTo("fanout"))
                .body("calls", equalTo(8))
                .body("elapsedMs", both(greaterThanOrEqualTo(300)).and(lessThan(1500)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"io?delay=0&calls=2", "fanout?delay=0&calls=3", "io", "fanout"})
    void answersTheModesFieldsInTheirOrderWithTheirDefaults(String query) {
        Map<String, Object> floor = json(given().when().get("/floor/" + query).then().statusCode(200).extract());
        Map<String, Object> reactive = json(given().when().get("/reactive/" + query).then().statusCode(200).extract());
        assertThat(new ArrayList<>(floor.keySet()), equalTo(new ArrayList<>(reactive.keySet())));
        assertThat(floor.get("delay"), equalTo(reactive.get("delay")));
        assertThat(floor.get("calls"), equalTo(reactive.get("calls")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"io?delay=abc", "io?delay=-1", "io?delay=10001", "io?calls=0", "io?calls=1001", "io?calls=1.5",
            "io?delay=%20", "fanout?calls=-3", "fanout?delay=%C3%A9", "fanout?delay=10&calls=101",
            "io?delay=10000&calls=3"})
    void refusesBadInputWithTheModesProblem(String query) {
        var floor = BadInputTest.isProblem(given().urlEncodingEnabled(false).when().get("/floor/" + query).then(), 400)
                .body("instance", startsWith("/floor/")).extract();
        var reactive = given().urlEncodingEnabled(false).when().get("/reactive/" + query).then().statusCode(400).extract();
        for (String member : new String[] {"type", "title", "detail"}) {
            assertThat(query + ": " + member, floor.path(member), equalTo(reactive.path(member)));
        }
    }

    @Test
    void otherMethodsAndPathsAnswerProblems() {
        BadInputTest.isProblem(given().when().post("/floor/io").then(), 405).header("Allow", "GET, HEAD, OPTIONS");
        given().when().options("/floor/fanout").then().statusCode(204).header("Allow", "GET, HEAD, OPTIONS");
        given().when().head("/floor/io?delay=1").then().statusCode(200);
        BadInputTest.isProblem(given().when().get("/floor/db").then(), 404);
    }

    @Test
    void servedRequestsAreCountedUnderTheirOwnUri() {
        given().when().get("/floor/io?delay=1").then().statusCode(200);
        given().when().get("/q/metrics").then().statusCode(200)
                .body(containsString("uri=\"/floor/io\""));
    }

    private static Map<String, Object> json(ExtractableResponse<Response> response) {
        return response.jsonPath().getMap("");
    }
}
