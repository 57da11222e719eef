package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;
import org.vtvr.scenario.Mode;

import java.time.Duration;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bench.warm-up}: the app reports ready only after it has served every mode's io to itself for at least three
 * rounds of a second (http/WarmUp), and then stays ready.
 */
@QuarkusTest
@TestProfile(WarmUpTest.WarmsUp.class)
@QuarkusTestResource(EmbeddedDatabase.class)
class WarmUpTest {

    public static class WarmsUp implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("bench.warm-up", "20s");
        }
    }

    @Test
    void readyOnlyOnceWarmAfterEveryModeServedItself() {
        JsonPath first = given().when().get("/q/health/ready").then().extract().jsonPath();
        assertEquals("DOWN", warmUp(first).get("status"), "at least three rounds of a second before ready");
        await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
                .until(() -> given().when().get("/q/health/ready").statusCode(), equalTo(200));
        Map<String, Object> check = warmUp(given().when().get("/q/health/ready").then().statusCode(200).extract()
                .jsonPath());
        @SuppressWarnings("unchecked")
        Map<String, Object> data = (Map<String, Object>) check.get("data");
        assertTrue(((Number) data.get("requests")).longValue() > 0, "the warm-up sent requests: " + data);
        assertTrue(((Number) data.get("tookMs")).longValue() >= 3000, "three rounds at least: " + data);
        for (Mode mode : Mode.values()) {
            assertTrue(Metrics.sum("admission_admitted_total", "mode", mode.path()) > 0, mode + " served the warm-up");
        }
    }

    private static Map<String, Object> warmUp(JsonPath health) {
        return health.getList("checks", Map.class).stream().filter(c -> "warm-up".equals(c.get("name")))
                .map(c -> {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> m = (Map<String, Object>) c;
                    return m;
                }).findFirst().orElseThrow();
    }
}
