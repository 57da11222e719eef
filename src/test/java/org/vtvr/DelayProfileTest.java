package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

/** The same artifact under profile {@code delay}: the delay service alone, with no database at all. */
@QuarkusTest
@TestProfile(DelayProfileTest.DelayOnly.class)
class DelayProfileTest {

    /** Runs the application as {@code QUARKUS_PROFILE=delay} does. */
    public static class DelayOnly implements QuarkusTestProfile {
        @Override
        public String getConfigProfile() {
            return "delay";
        }
    }

    @Test
    void answersAfterTheRequestedDelay() {
        long start = System.nanoTime();
        given().when().get("/delay/250").then().statusCode(200).body("delay", equalTo(250));
        org.hamcrest.MatcherAssert.assertThat((System.nanoTime() - start) / 1_000_000, greaterThanOrEqualTo(250L));
        given().when().get("/delay/0").then().statusCode(200).body("delay", equalTo(0));
    }

    @Test
    void isReadyWithoutADatabase() {
        given().when().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                // the database check (data/DatabaseReadiness) has no datasource to look at (inactive at run time)
                .body("checks.find { it.name == 'database' }.data.datasource", equalTo("inactive"));
    }

    /** The catalogue is served without a database: the load harness reads it from this profile before a run. */
    @Test
    void servesTheCatalogue() {
        given().when().get("/scenarios").then().statusCode(200)
                .body("find { it.name == 'io' }.params.name", org.hamcrest.Matchers.hasItems("delay", "calls"))
                .body("find { it.name == 'io' }.series.name", org.hamcrest.Matchers.hasItems("virtual", "floor",
                        "ladder-rest"));
    }

    /** The scenarios need the database this profile does not have: their routes are absent, not broken. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"/virtual/db", "/worker/slow-query", "/reactive/orders/1",
            "/virtual/io?delay=0", "/reactive/cpu"})
    void answers404ProblemOnTheScenarioRoutes(String path) {
        given().when().get(path).then().statusCode(404)
                .contentType("application/problem+json")
                .body("status", equalTo(404))
                .body("detail", org.hamcrest.Matchers.containsString("/delay"));
    }
}
