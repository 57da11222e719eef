package org.vtvr;

import io.smallrye.config.WithDefault;
import org.junit.jupiter.api.Test;
import org.vtvr.config.BenchConfig;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

/**
 * Configuration has one home per kind: every {@code bench.*} setting is a {@link BenchConfig} method with its default,
 * docs/configuration.md names each of them (and no other), and application.properties sets none outside a profile;
 * the server's idle timeout outlasts the delay clients' reuse of a pooled connection.
 */
class ConfigurationDocTest {

    private static final Pattern BENCH_KEY = Pattern.compile("bench\\.[a-z0-9]+(?:-[a-z0-9]+)*");

    static Set<String> benchKeys() {
        return Arrays.stream(BenchConfig.class.getDeclaredMethods())
                .map(Method::getName)
                .map(name -> "bench." + name.replaceAll("([A-Z])", "-$1").toLowerCase())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void everySettingHasADefault() {
        List<String> without = Arrays.stream(BenchConfig.class.getDeclaredMethods())
                .filter(method -> !method.isAnnotationPresent(WithDefault.class)).map(Method::getName).toList();
        assertThat("BenchConfig methods without @WithDefault", without, empty());
    }

    @Test
    void docsListEverySettingAndNoOther() throws IOException {
        Set<String> documented = keysIn(Files.readString(Path.of("docs/configuration.md")));
        assertThat("bench.* settings in BenchConfig but not in docs/configuration.md, or the other way round",
                documented, equalTo(benchKeys()));
    }

    @Test
    void applicationPropertiesSetsNoBenchDefault() throws IOException {
        List<String> defaults = Files.readAllLines(Path.of("src/main/resources/application.properties")).stream()
                .filter(line -> line.startsWith("bench.")).toList();
        assertThat("bench.* defaults belong in BenchConfig's @WithDefault", defaults, empty());
    }

    /**
     * A delay client reuses a pooled connection until its {@code connection-ttl}; the server side (the app, the delay
     * service) must not close a silent one before that, or a reused connection is closed under its request (502).
     */
    @Test
    void theServerKeepsAnIdleConnectionLongerThanTheDelayClientsReuseIt() throws IOException {
        Properties properties = new Properties();
        try (var in = Files.newBufferedReader(Path.of("src/main/resources/application.properties"))) {
            properties.load(in);
        }
        long serverMs = Duration.parse("PT" + properties.getProperty("quarkus.http.idle-timeout")).toMillis();
        long clientMs = Long.parseLong(properties.getProperty("quarkus.rest-client.delay.connection-ttl"));
        assertThat("quarkus.http.idle-timeout minus the delay clients' connection-ttl, ms", serverMs - clientMs,
                greaterThanOrEqualTo(10_000L));
    }

    private static Set<String> keysIn(String text) {
        Set<String> keys = new TreeSet<>();
        Matcher key = BENCH_KEY.matcher(text);
        while (key.find()) {
            keys.add(key.group());
        }
        return keys;
    }
}
