package org.vtvr;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;

/** The tests' one reader of the app's own /q/metrics (Prometheus text): sums over the series of a name. */
final class Metrics {

    /** {@code name{labels} value}, or {@code name value}. */
    private static final Pattern SERIES = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})? (\\S+)$");

    private Metrics() {
    }

    /** The sum over every series of that name. */
    static double sum(String name) {
        return sum(name, "");
    }

    /** The sum over the series of that name that carry {@code label="value"}. */
    static double sum(String name, String label, String value) {
        return sum(name, label + "=\"" + value + "\"");
    }

    private static double sum(String name, String labelMatch) {
        Matcher series = SERIES.matcher(given().when().get("/q/metrics").then().statusCode(200).extract().asString());
        double sum = 0;
        while (series.find()) {
            if (series.group(1).equals(name) && (series.group(2) == null ? "" : series.group(2)).contains(labelMatch)) {
                sum += Double.parseDouble(series.group(3));
            }
        }
        return sum;
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
