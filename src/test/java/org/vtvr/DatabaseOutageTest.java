package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.vtvr.scenario.Mode;


import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

/** The database stopped and started again: 503 within the acquisition timeout, readiness DOWN, then recovery. */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class DatabaseOutageTest {

    @BeforeAll
    static void logFailures() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
    }

    @Test
    void answers503WhileDownAndRecoversWithoutRestart() throws InterruptedException {
        Assumptions.assumeTrue(EmbeddedDatabase.controllable(), "needs the embedded test database");
        for (Mode mode : Mode.values()) {
            given().when().get("/" + mode.path() + "/db").then().statusCode(200);
        }
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
        long deadline = System.currentTimeMillis() + 10_000;
        for (Mode mode : Mode.values()) {
            while (given().when().get("/" + mode.path() + "/db").statusCode() != 200) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError(mode + " did not serve again within 10 s of the database's return");
                }
                Thread.sleep(200);
            }
        }
        given().when().get("/q/health/ready").then().statusCode(200);
    }
}
