package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

/** /q/info tells the settings the running app resolved (load/'s report reads them there). */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class SettingsInfoTest {

    @Test
    void infoShowsThePoolsAndTheBenchSettingsWithTheirDefaults() {
        given().when().get("/q/info").then().statusCode(200)
                .body("settings.'quarkus.thread-pool.max-threads'", equalTo("200"))
                .body("settings.'quarkus.datasource.jdbc.max-size'", equalTo("20"))
                .body("settings.'bench.db-socket-timeout-ms'", equalTo("6000"))
                // defaults of BenchConfig that no properties file sets
                .body("settings.'bench.max-in-flight'", equalTo("5000"))
                .body("settings.'bench.blocking-client'", equalTo("rest-client"))
                .body("build.quarkusVersion", notNullValue())
                .body("java.version", notNullValue());
    }
}
