package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vtvr.scenario.Mode;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

/** The delay service unreachable (nothing listens on its port: the gate is shut): every mode answers 502. */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
@TestProfile(DelayGate.Profile.class)
class DelayDownTest {

    @BeforeAll
    static void shutTheGate() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
        DelayGate.shut();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void answers502WhenTheDelayServiceIsUnreachable(Mode mode) {
        for (String path : new String[] {"io", "fanout?calls=5"}) {
            BadInputTest.isProblem(given().when().get("/" + mode.path() + "/" + path).then(), 502)
                    .body("detail", containsString("delay service unavailable"))
                    // no host, port or exception class of the internal call
                    .body("detail", org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("127.0.0.1")))
                    .body("detail", org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("Exception")));
        }
        BadInputTest.isProblem(given().contentType("application/json")
                .body("{\"customer\":\"c\",\"sku\":\"s\",\"quantity\":1}")
                .when().post("/" + mode.path() + "/orders").then(), 502);
    }
}
