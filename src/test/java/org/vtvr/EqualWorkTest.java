package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vtvr.floor.FloorRoutes;
import org.vtvr.scenario.Mode;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Every mode does the same work per request, counted where it lands: the statements MariaDB saw (its global
 * {@code Questions} and {@code Com_*} counters, read over a connection of the test's own) and the calls the delay
 * service served. A mode that sends one more statement, a different one, or one more delay call fails the test; the
 * floor series is held to the modes' delay calls.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class EqualWorkTest {

    /** Requests per mode and scenario; large enough that a per-request difference cannot hide. */
    static final int N = 10;

    static Connection observer;

    @BeforeAll
    static void connect() throws SQLException {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
        var config = ConfigProvider.getConfig();
        observer = DriverManager.getConnection(config.getValue("quarkus.datasource.jdbc.url", String.class),
                config.getValue("quarkus.datasource.username", String.class),
                config.getValue("quarkus.datasource.password", String.class));
    }

    @AfterAll
    static void disconnect() throws SQLException {
        observer.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"db?queries=1", "db?queries=5", "slow-query?delay=10", "orders", "orders/{id}",
            "workload?delay=0&queries=3&insert=1"})
    void everyModeSendsTheSameStatements(String scenario) throws SQLException, InterruptedException {
        long order = checkout(Mode.VIRTUAL);
        Consumer<Mode> request = switch (scenario) {
            case "orders" -> m -> checkout(m);
            case "orders/{id}" -> m -> given().when().get("/{mode}/orders/{id}", m.path(), order).then().statusCode(200);
            default -> m -> given().when().get("/" + m.path() + "/" + scenario).then().statusCode(200);
        };
        // a pooled connection the warm-up did not reach prepares the statement once when first used (once seen on
        // 2026-12-01, after DisconnectTest had opened all 20): once per connection, not per request, so a round that
        // differs is measured once more, with every connection it used prepared; a per-request difference stays
        Map<Mode, Map<String, Long>> seen = statements(request, 3);
        if (!seen.values().stream().allMatch(seen.get(Mode.REACTIVE)::equals)) {
            System.out.printf("%s: measured again after %s%n", scenario, seen);
            seen = statements(request, 0);
        }
        System.out.printf("%s: statements seen by MariaDB for %d requests: %s%n", scenario, N, seen);
        assertThat("nothing counted for " + scenario, seen.get(Mode.REACTIVE).getOrDefault("Questions", 0L) >= N, equalTo(true));
        for (Mode mode : Mode.values()) {
            assertThat(scenario + ": " + mode + " vs reactive", seen.get(mode), equalTo(seen.get(Mode.REACTIVE)));
        }
    }

    /** MariaDB's statement counters for N requests of each mode, each after WARMUP requests of its own. */
    private Map<Mode, Map<String, Long>> statements(Consumer<Mode> request, int warmup) throws SQLException,
            InterruptedException {
        Map<Mode, Map<String, Long>> seen = new EnumMap<>(Mode.class);
        for (Mode mode : Mode.values()) {
            for (int i = 0; i < warmup; i++) {
                request.accept(mode); // warm-up: pooled connections open, statement caches filled
            }
            Map<String, Long> before = quiet();
            for (int i = 0; i < N; i++) {
                request.accept(mode);
            }
            seen.put(mode, minus(status(), before, idleRead()));
        }
        return seen;
    }

    /** The floor series (docs/floor.md) serves io and fanout: it must make the same calls as the modes. */
    @ParameterizedTest
    @ValueSource(strings = {"io?delay=0&calls=3", "fanout?delay=0&calls=8", "orders", "pinning?delay=0",
            "workload?delay=0&calls=2&fanout=3"})
    void everyModeMakesTheSameDelayCalls(String scenario) {
        List<String> series = new ArrayList<>(Arrays.stream(Mode.values()).map(Mode::path).toList());
        if (scenario.startsWith("pinning")) {
            series.remove(Mode.REACTIVE.path()); // no monitors on the event loop, so no pinning scenario there
        }
        if (scenario.startsWith("io") || scenario.startsWith("fanout")) {
            series.add(FloorRoutes.SERIES);
        }
        Map<String, Double> calls = new TreeMap<>();
        for (String path : series) {
            double before = Metrics.delayCalls();
            for (int i = 0; i < N; i++) {
                if (scenario.equals("orders")) {
                    checkout(Mode.valueOf(path.toUpperCase(Locale.ROOT)));
                } else {
                    given().when().get("/" + path + "/" + scenario).then().statusCode(200);
                }
            }
            calls.put(path, Metrics.delayCalls() - before);
        }
        double expected = N * switch (scenario.replaceAll("\\?.*", "")) {
            case "io" -> 3;
            case "fanout" -> 8;
            case "orders" -> 2;
            case "workload" -> 2 + 3;   // its sequential calls, then its fan-out
            default -> 1;
        };
        assertThat(scenario + ": series measured", calls.keySet(), equalTo(new TreeSet<>(series)));
        calls.forEach((path, count) -> assertThat(scenario + " in " + path, count, equalTo(expected)));
    }

    private static long checkout(Mode mode) {
        return given().contentType(ContentType.JSON).queryParam("delay", 0)
                .body("{\"customer\":\"ada\",\"sku\":\"SKU-1\",\"quantity\":1}")
                .when().post("/{mode}/orders", mode.path())
                .then().statusCode(201).extract().jsonPath().getLong("orderId");
    }

    /**
     * The counters once the server has been idle for 250 ms: GLOBAL STATUS counts every session, so statements still
     * running for an earlier test (a request whose client hung up finishes its work) must not be charged to a mode.
     */
    private static Map<String, Long> quiet() throws SQLException, InterruptedException {
        Map<String, Long> overhead = idleRead();
        long deadline = System.currentTimeMillis() + 20_000;
        Map<String, Long> last = status();
        while (true) {
            Thread.sleep(250);
            Map<String, Long> now = status();
            if (minus(now, last, overhead).isEmpty()) {
                return now;
            }
            assertThat("the database did not go quiet within 20 s", System.currentTimeMillis() < deadline, equalTo(true));
            last = now;
        }
    }

    /** What one status read adds by itself (it is a statement too). */
    private static Map<String, Long> idleRead() throws SQLException {
        Map<String, Long> first = status();
        return minus(status(), first, Map.of());
    }

    private static Map<String, Long> status() throws SQLException {
        Map<String, Long> counters = new TreeMap<>();
        try (Statement statement = observer.createStatement();
                ResultSet rows = statement.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name = 'Questions'"
                        + " OR Variable_name LIKE 'Com\\_%' OR Variable_name = 'Connections'")) {
            while (rows.next()) {
                counters.put(rows.getString(1), rows.getLong(2));
            }
        }
        return counters;
    }

    /** after - before - overhead, leaving out the counters that did not move. */
    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before, Map<String, Long> overhead) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((name, value) -> {
            long d = value - before.getOrDefault(name, 0L) - overhead.getOrDefault(name, 0L);
            if (d != 0) {
                delta.put(name, d);
            }
        });
        return delta;
    }
}
