package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.virtual.ShouldNotPin;
import io.quarkus.test.junit.virtual.ShouldPin;
import io.quarkus.test.junit.virtual.VirtualThreadUnit;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import static io.restassured.RestAssured.given;

/**
 * No pinning anywhere in the virtual mode: every virtual-mode scenario runs under {@code @ShouldNotPin}, a JFR check
 * (junit5-virtual-threads) that fails the test on any pinned event; the test that pins on purpose shows on JDK 21
 * (CI's jdk21 job) that the check really fails. Since JDK 24 (JEP 491) parking inside {@code synchronized} no longer
 * pins the carrier.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
@VirtualThreadUnit
class PinningTest {

    /** Every virtual-mode scenario but the synchronized pinning one, which pins before JDK 24 on purpose. */
    @Test
    @ShouldNotPin
    void noVirtualScenarioPins() {
        for (String path : new String[] {"io?delay=20&calls=2", "fanout?delay=20&calls=10", "db?queries=5",
                "slow-query?delay=20", "cpu?n=10000", "pinning?lock=reentrant&delay=20",
                "workload?delay=20&calls=2&fanout=3&queries=2&cpu=1000&insert=1"}) {
            given().when().get("/virtual/" + path).then().statusCode(200);
        }
        long id = given().contentType(ContentType.JSON).queryParam("delay", 20)
                .body("{\"customer\":\"ada\",\"sku\":\"S\",\"quantity\":1}")
                .when().post("/virtual/orders").then().statusCode(201).extract().jsonPath().getLong("orderId");
        given().when().get("/virtual/orders/{id}", id).then().statusCode(200);
    }

    @Test
    @ShouldNotPin
    void reentrantLockNeverPins() {
        given().when().get("/virtual/pinning?lock=reentrant&delay=50").then().statusCode(200);
    }

    @Test
    @ShouldNotPin
    @EnabledForJreRange(min = JRE.JAVA_24)
    void synchronizedNoLongerPinsOnThisJdk() {
        given().when().get("/virtual/pinning?lock=synchronized&delay=50").then().statusCode(200);
    }

    @Test
    @ShouldPin
    @EnabledForJreRange(max = JRE.JAVA_23)
    void synchronizedPinsBeforeJdk24() {
        given().when().get("/virtual/pinning?lock=synchronized&delay=50").then().statusCode(200);
    }
}
