package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vtvr.scenario.Mode;

import java.util.Map;

import static io.restassured.RestAssured.given;

/** The delay service slower than the client waits: every mode answers 504 after the read timeout. */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
@TestProfile(DelaySlowTest.DelaySlow.class)
class DelaySlowTest {

    @BeforeAll
    static void logFailures() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
    }

    /** The delay service answers, but slower than the client waits. */
    public static class DelaySlow implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.rest-client.delay.read-timeout", "400");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void answers504AfterTheReadTimeout(Mode mode) {
        // no clock needed: without the read timeout the call would end after 3 s with 200
        BadInputTest.isProblem(given().when().get("/" + mode.path() + "/io?delay=3000").then(), 504);
    }
}
