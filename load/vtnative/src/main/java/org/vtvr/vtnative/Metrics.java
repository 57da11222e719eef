package org.vtvr.vtnative;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the scale experiment reads from an app's {@code /q/metrics}, served at the same path and under the same names:
 * Micrometer's Prometheus registry (the one Quarkus' micrometer extension uses) with the JVM's memory, thread and
 * collector meters, and the requests in progress as the app's {@code http.Admission} counts them
 * ({@code admission_in_flight{mode="vt-native"}}). Read only when scraped; the interleaved designs do not scrape this
 * series, as they do not scrape {@code bare}.
 */
final class Metrics {

    /** The path the harness scrapes, as on the app. */
    static final String PATH = "/q/metrics";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    Metrics(AtomicInteger inFlight) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        Gauge.builder("admission.in.flight", inFlight, AtomicInteger::get).tag("mode", Main.SERIES)
                .register(registry);
    }

    /** The Prometheus text of every meter now. */
    String scrape() {
        return registry.scrape();
    }
}
