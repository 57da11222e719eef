package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit5.virtual.ShouldNotPin;
import io.quarkus.test.junit5.virtual.ShouldPin;
import io.quarkus.test.junit5.virtual.VirtualThreadUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * The pinning scenario on virtual threads, checked with JFR (junit5-virtual-threads) and with the metric the
 * benchmark reports. Since JDK 24 (JEP 491) parking inside {@code synchronized} no longer pins the carrier.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
@VirtualThreadUnit
class PinningTest {

    @Test
    @ShouldNotPin
    void reentrantLockNeverPins() {
        given().when().get("/virtual/pinning?lock=reentrant&delay=50").then().statusCode(200);
    }

    @Test
    @ShouldNotPin
    @EnabledForJreRange(min = JRE.JAVA_24)
    void synchronizedNoLongerPinsOnThisJdk() {
        double before = pinnedEvents();
        given().when().get("/virtual/pinning?lock=synchronized&delay=50").then().statusCode(200);
        assertThat(pinnedEvents(), equalTo(before));
    }

    @Test
    @ShouldPin
    @EnabledForJreRange(max = JRE.JAVA_23)
    void synchronizedPinsBeforeJdk24() {
        given().when().get("/virtual/pinning?lock=synchronized&delay=50").then().statusCode(200);
    }

    private static double pinnedEvents() {
        String metrics = given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        return metrics.lines().filter(line -> line.startsWith("jvm_threads_virtual_pinned_seconds_count"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }
}
