package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.vtvr.floor.FloorRoutes;
import org.vtvr.scenario.Mode;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * A client that hangs up cancels its request's work in every mode and the floor: N clients close their HTTP/1.1
 * connections, or reset their HTTP/2 streams, while their calls wait 10 s at the delay service, and the delay service
 * sees all N calls end within seconds, counted as abandoned ({@code delay_service_calls_abandoned_total}). In the
 * blocking modes a hang-up during slow-query cancels the statement in MariaDB (its process list, read over a
 * connection of the test's own), which would sleep 5 s. Subclasses run it with the socket client and over h2c.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class HangUpTest {

    static final int N = 5;

    /** A call left running would stay at the delay service for 10 s, a statement in MariaDB for 5 s. */
    static final Duration ENDS_WITHIN = Duration.ofSeconds(3);

    /** How the client goes away. */
    enum HangUp { HTTP1_CLOSE, HTTP2_RESET }

    @Inject
    Vertx vertx;

    static Stream<Arguments> seriesAndHangUps() {
        List<String> series = new ArrayList<>(Arrays.stream(Mode.values()).map(Mode::path).toList());
        series.add(FloorRoutes.SERIES);
        return series.stream().flatMap(s -> Arrays.stream(HangUp.values()).map(how -> Arguments.of(s, how)));
    }

    static Stream<Arguments> modesAndHangUps() {
        return Arrays.stream(Mode.values())
                .flatMap(mode -> Arrays.stream(HangUp.values()).map(how -> Arguments.of(mode, how)));
    }

    static Stream<Arguments> blockingModesAndHangUps() {
        return Stream.of(Mode.VIRTUAL, Mode.WORKER)
                .flatMap(mode -> Arrays.stream(HangUp.values()).map(how -> Arguments.of(mode, how)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("seriesAndHangUps")
    void aHangUpAbortsTheDelayCalls(String series, HangUp how) throws Exception {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
        await("idle before").atMost(Duration.ofSeconds(15)).until(Metrics::delayInFlight, equalTo(0.0));
        double abandoned = Metrics.sum("delay_service_calls_abandoned_total");
        try (Clients clients = new Clients(how)) {
            for (int i = 0; i < N; i++) {
                clients.send("/" + series + "/io?delay=10000");
            }
            await(series + ": calls at the delay service").atMost(Duration.ofSeconds(10))
                    .until(Metrics::delayInFlight, equalTo((double) N));
            clients.hangUp();
            await(series + ", " + how + ": calls still at the delay service").atMost(ENDS_WITHIN)
                    .until(Metrics::delayInFlight, equalTo(0.0));
        }
        assertThat(series + ", " + how + ": calls abandoned",
                Metrics.sum("delay_service_calls_abandoned_total") - abandoned, equalTo((double) N));
    }

    /** The same in the workload's fan-out step (its sequential step is io's): every concurrent call is aborted. */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("modesAndHangUps")
    void aHangUpAbortsTheWorkloadsCalls(Mode mode, HangUp how) throws Exception {
        await("idle before").atMost(Duration.ofSeconds(15)).until(Metrics::delayInFlight, equalTo(0.0));
        double abandoned = Metrics.sum("delay_service_calls_abandoned_total");
        try (Clients clients = new Clients(how)) {
            for (int i = 0; i < N; i++) {
                clients.send("/" + mode.path() + "/workload?delay=10000&fanout=2&queries=1&insert=1");
            }
            await(mode + ": calls at the delay service").atMost(Duration.ofSeconds(10))
                    .until(Metrics::delayInFlight, equalTo(2.0 * N));
            clients.hangUp();
            await(mode + ", " + how + ": calls still at the delay service").atMost(ENDS_WITHIN)
                    .until(Metrics::delayInFlight, equalTo(0.0));
        }
        assertThat(mode + ", " + how + ": calls abandoned",
                Metrics.sum("delay_service_calls_abandoned_total") - abandoned, equalTo(2.0 * N));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("blockingModesAndHangUps")
    void aHangUpCancelsTheRunningStatement(Mode mode, HangUp how) throws Exception {
        try (Connection observer = observer(); Clients clients = new Clients(how)) {
            await("no sleep left before").atMost(Duration.ofSeconds(10)).until(() -> sleeping(observer), equalTo(0));
            for (int i = 0; i < N; i++) {
                clients.send("/" + mode.path() + "/slow-query?delay=5000");
            }
            await(mode + ": statements running").atMost(Duration.ofSeconds(10)).until(() -> sleeping(observer), equalTo(N));
            clients.hangUp();
            await(mode + ", " + how + ": statements still running in MariaDB").atMost(ENDS_WITHIN)
                    .until(() -> sleeping(observer), equalTo(0));
        }
    }

    static Connection observer() throws SQLException {
        var config = ConfigProvider.getConfig();
        return DriverManager.getConnection(config.getValue("quarkus.datasource.jdbc.url", String.class),
                config.getValue("quarkus.datasource.username", String.class),
                config.getValue("quarkus.datasource.password", String.class));
    }

    /** slow-query statements MariaDB is running now. */
    static int sleeping(Connection observer) throws SQLException {
        try (Statement statement = observer.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                        + " WHERE INFO LIKE 'SELECT SLEEP%' AND COMMAND <> 'Sleep'")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** Requests that are sent and never read: over raw HTTP/1.1 sockets, or as streams of one HTTP/2 connection. */
    final class Clients implements AutoCloseable {

        private final HangUp how;
        private final List<Socket> sockets = new ArrayList<>();
        private final List<HttpClientRequest> streams = new ArrayList<>();
        private final HttpClient h2;

        Clients(HangUp how) {
            this.how = how;
            h2 = how == HangUp.HTTP2_RESET ? vertx.createHttpClient(new HttpClientOptions()
                    .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false)) : null;
        }

        void send(String target) throws Exception {
            if (h2 == null) {
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), RestAssured.port);
                socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                sockets.add(socket);
            } else {
                HttpClientRequest request = h2.request(HttpMethod.GET, RestAssured.port, "127.0.0.1", target)
                        .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
                request.send();
                streams.add(request);
            }
        }

        /** Closes every socket with a reset (SO_LINGER 0), or resets every stream while the connection stays. */
        void hangUp() throws Exception {
            for (Socket socket : sockets) {
                socket.setSoLinger(true, 0);
                socket.close();
            }
            for (HttpClientRequest stream : streams) {
                stream.reset();
            }
            sockets.clear();
            streams.clear();
        }

        @Override
        public void close() throws Exception {
            hangUp();
            if (h2 != null) {
                h2.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            }
        }
    }
}
