package org.vtvr.vtnative;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.eclipse.microprofile.config.spi.Converter;
import org.vtvr.config.BenchConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The process's settings, read as the bare process reads the app's ({@code bare.BareConfig}): the app's
 * application.properties (its {@code prod} profile) below the environment and system properties, with SmallRye Config,
 * so {@code QUARKUS_HTTP_PORT}, {@code QUARKUS_REST_CLIENT_DELAY_URL}, {@code QUARKUS_DATASOURCE_JDBC_URL} and
 * {@code BENCH_*} set it as they set the app. {@code bench.*} through the app's own {@link BenchConfig} mapping.
 */
record Settings(SmallRyeConfig config, BenchConfig bench) {

    private static final String DELAY = "quarkus.rest-client.delay.";
    private static final String JDBC = "quarkus.datasource.jdbc.";
    private static final String JDBC_PROPERTIES = JDBC + "additional-jdbc-properties.";

    /** The settings, OVERRIDES above every other source (tests). */
    static Settings read(Map<String, String> overrides) {
        URL properties = Settings.class.getClassLoader().getResource("application.properties");
        if (properties == null) {
            throw new IllegalStateException("no application.properties on the class path: build with its pom");
        }
        try {
            SmallRyeConfig config = new SmallRyeConfigBuilder().addDefaultSources().addDefaultInterceptors()
                    // the ordinals Quarkus gives application.properties and nothing above the system properties
                    .withSources(new PropertiesConfigSource(properties, 250))
                    .withSources(new PropertiesConfigSource(overrides, "overrides", 500))
                    .withConverter(Duration.class, 200, new DurationConverter())
                    .withMapping(BenchConfig.class)
                    .withProfile("prod")
                    .build();
            return new Settings(config, config.getConfigMapping(BenchConfig.class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String host() {
        return config.getValue("quarkus.http.host", String.class);
    }

    int port() {
        return config.getValue("quarkus.http.port", Integer.class);
    }

    URI delayUrl() {
        return URI.create(config.getValue(DELAY + "url", String.class));
    }

    Duration delayConnectTimeout() {
        return Duration.ofMillis(config.getValue(DELAY + "connect-timeout", Integer.class));
    }

    Duration delayReadTimeout() {
        return Duration.ofMillis(config.getValue(DELAY + "read-timeout", Integer.class));
    }

    int delayPoolSize() {
        return config.getValue(DELAY + "connection-pool-size", Integer.class);
    }

    String jdbcUrl() {
        return config.getValue(JDBC + "url", String.class);
    }

    String user() {
        return config.getValue("quarkus.datasource.username", String.class);
    }

    String password() {
        return config.getValue("quarkus.datasource.password", String.class);
    }

    /** The virtual mode's JDBC pool size: the same key. */
    int poolSize() {
        return config.getValue(JDBC + "max-size", Integer.class);
    }

    Duration acquisitionTimeout() {
        return config.getValue(JDBC + "acquisition-timeout", Duration.class);
    }

    /** {@code quarkus.datasource.jdbc.additional-jdbc-properties.*}: Connector/J's settings as the app gives them. */
    Map<String, String> jdbcProperties() {
        Map<String, String> properties = new TreeMap<>();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith(JDBC_PROPERTIES)) {
                properties.put(name.substring(JDBC_PROPERTIES.length()), config.getValue(name, String.class));
            }
        }
        return properties;
    }

    /** Quarkus' duration syntax ({@code 20s}, {@code 500ms}, {@code 3}: seconds, ISO-8601). */
    static final class DurationConverter implements Converter<Duration> {
        @Override
        public Duration convert(String value) {
            String text = value.strip().toUpperCase(Locale.ROOT);
            if (text.isEmpty()) {
                return null;
            }
            if (text.chars().allMatch(Character::isDigit)) {
                return Duration.ofSeconds(Long.parseLong(text));
            }
            if (text.endsWith("MS")) {
                return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            }
            if (text.endsWith("D")) {
                return Duration.ofDays(Long.parseLong(text.substring(0, text.length() - 1)));
            }
            return Duration.parse(text.startsWith("P") ? text : "PT" + text);
        }
    }
}
