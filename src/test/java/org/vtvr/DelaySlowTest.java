package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vtvr.scenario.Mode;

import java.io.IOException;

import static io.restassured.RestAssured.given;

/**
 * The delay service slower than the client waits ({@link DelayGate#READ_TIMEOUT_MS}): every mode answers 504 after
 * the read timeout.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
@TestProfile(DelayGate.Profile.class)
class DelaySlowTest {

    @BeforeAll
    static void openTheGate() throws IOException {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
        DelayGate.open();
    }

    @AfterAll
    static void shutTheGate() {
        DelayGate.shut();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void answers504AfterTheReadTimeout(Mode mode) {
        // no clock needed: without the read timeout the call would end after 3 s with 200
        BadInputTest.isProblem(given().when().get("/" + mode.path() + "/io?delay=3000").then(), 504);
    }
}
