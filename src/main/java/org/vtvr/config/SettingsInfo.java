package org.vtvr.config;

import io.quarkus.info.runtime.spi.InfoContributor;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The settings that bound or make the comparison fair, as this running app resolved them, under {@code settings} at
 * {@code /q/info}: every {@code bench.*} value and the pool sizes. load/'s report prints them from here, so they are
 * what the measured app used (JVM options and environment included), not what the source says.
 */
@ApplicationScoped
public class SettingsInfo implements InfoContributor {

    /** The Quarkus pool and client settings the report quotes beside {@code bench.*}. */
    static final String[] POOLS = {
        "quarkus.thread-pool.max-threads", "quarkus.thread-pool.queue-size",
        "quarkus.datasource.jdbc.max-size", "quarkus.datasource.reactive.max-size",
        "quarkus.rest-client.delay.connection-pool-size", "quarkus.rest-client.delay.http2",
        "quarkus.http.limits.max-concurrent-streams", "quarkus.http.limits.max-connections",
    };

    @Override
    public String name() {
        return "settings";
    }

    @Override
    public Map<String, Object> data() {
        Config config = ConfigProvider.getConfig();
        Map<String, Object> out = new TreeMap<>();
        Stream.concat(StreamSupport.stream(config.getPropertyNames().spliterator(), false)
                        .filter(name -> name.startsWith("bench.")), Stream.of(POOLS))
                .forEach(name -> config.getOptionalValue(name, String.class).ifPresent(v -> out.put(name, v)));
        return out;
    }
}
