package org.vtvr;

import static io.restassured.RestAssured.given;

/** Reads one figure from the app's own /q/metrics (Prometheus text): the sum over every series of that name. */
final class Metrics {

    private Metrics() {
    }

    static double sum(String name) {
        String metrics = given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        return metrics.lines()
                .filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** Calls the delay service has started to serve. */
    static double delayCalls() {
        return sum("delay_service_calls_total");
    }

    /** Calls the delay service is serving right now. */
    static double delayInFlight() {
        return sum("delay_service_in_flight");
    }
}
