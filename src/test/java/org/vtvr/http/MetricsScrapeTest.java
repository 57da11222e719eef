package org.vtvr.http;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/** The scrape's path as Quarkus resolves it from its two settings (WorkerBoundTest: the route under load). */
class MetricsScrapeTest {

    @Test
    void aRelativeMetricsPathIsUnderTheNonApplicationRoot() {
        assertThat(MetricsScrape.path("q", "metrics"), equalTo("/q/metrics"));
        assertThat(MetricsScrape.path("/q", "metrics"), equalTo("/q/metrics"));
        assertThat(MetricsScrape.path("/ops/", "prometheus"), equalTo("/ops/prometheus"));
    }

    @Test
    void anAbsoluteMetricsPathStandsAlone() {
        assertThat(MetricsScrape.path("q", "/metrics"), equalTo("/metrics"));
    }
}
