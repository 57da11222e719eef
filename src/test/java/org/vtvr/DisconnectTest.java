package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vtvr.scenario.Mode;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * 200 clients per mode that hang up mid-request (slow-query, db, orders, fanout) leak nothing: within a few seconds
 * the JDBC and reactive pools, the worker and fan-out pools and the delay calls (the REST client's connections) are
 * back at idle, and the full reactive and JDBC pools serve
 * again (a leaked connection would make one of 20 concurrent slow queries wait and fail).
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class DisconnectTest {

    static final int CLIENTS = 200;

    static final long IDLE_WITHIN_MS = 12_000;

    static final String ORDER = "{\"customer\":\"ada\",\"sku\":\"S\",\"quantity\":1}";

    @BeforeAll
    static void logFailures() {
        RestAssured.enableLoggingOfRequestAndResponseIfValidationFails();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void clientsThatHangUpMidRequestLeakNothing(Mode mode) throws Exception {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        List<String> requests = new ArrayList<>();
        for (int i = 0; i < CLIENTS / 4; i++) {
            requests.add(get(mode, "slow-query?delay=1000"));
            requests.add(get(mode, "db?queries=20"));
            requests.add(get(mode, "fanout?delay=1000&calls=10"));
            requests.add("POST /" + mode.path() + "/orders?delay=500 HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + ORDER.length() + "\r\n\r\n" + ORDER);
        }
        // the idle level of the worker pools: the metrics scrape that reads it runs on a worker thread itself
        double idleWorkers = Metrics.sum("worker_pool_active");
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<CompletableFuture<Void>> all = requests.stream()
                    .map(request -> CompletableFuture.runAsync(() -> hangUpMidRequest(port, request), clients))
                    .toList();
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        }
        long hungUp = System.nanoTime();
        awaitIdle(mode, IDLE_WITHIN_MS, idleWorkers);
        System.out.printf("%s: idle %d ms after the hang-ups%n", mode, (System.nanoTime() - hungUp) / 1_000_000);
        // every connection of both pools can be taken again: 20 slow queries at once, none waits past the timeout
        // a leaked connection stays leaked: a second try 2 s later tells it from one still being closed and reopened
        // (the reactive side closes a connection whose query was cancelled, and MariaDB ends it only after the query)
        List<String> missing = fullPools(mode);
        if (!missing.isEmpty()) {
            System.out.printf("%s: pools not full yet, trying again in 2 s: %s%n", mode, missing);
            Thread.sleep(2000);
            missing = fullPools(mode);
        }
        assertThat(mode + ": a pooled connection is missing", missing, equalTo(List.of()));
        given().when().get("/" + mode.path() + "/fanout?delay=10&calls=10").then().statusCode(200);
    }

    /** 20 slow queries at once, one per pooled connection: the answers that were not 200. */
    private static List<String> fullPools(Mode mode) {
        List<CompletableFuture<String>> full = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            full.add(CompletableFuture.supplyAsync(() -> {
                var response = given().when().get("/" + mode.path() + "/slow-query?delay=500");
                return response.statusCode() == 200 ? "200" : response.statusCode() + " " + response.asString();
            }));
        }
        return full.stream().map(CompletableFuture::join).filter(answer -> !answer.equals("200")).toList();
    }

    private static String get(Mode mode, String path) {
        return "GET /" + mode.path() + "/" + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
    }

    /** Sends the request, waits until it is surely being served, then resets the connection. */
    private static void hangUpMidRequest(int port, String request) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(300);
            socket.setSoLinger(true, 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitIdle(Mode mode, long ms, double idleWorkers) throws InterruptedException {
        long deadline = System.currentTimeMillis() + ms;
        while (true) {
            double jdbc = Metrics.sum("agroal_active_count");
            double reactive = Metrics.sum("sql_pool_active");
            double workers = Metrics.sum("worker_pool_active");
            double fanout = Metrics.sum("fanout_pool_active") + Metrics.sum("fanout_pool_queued");
            double delayCalls = Metrics.delayInFlight();
            if (jdbc == 0 && reactive == 0 && workers <= idleWorkers && fanout == 0 && delayCalls == 0) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError(mode + ": not idle " + ms + " ms after the hang-ups: JDBC connections in use "
                        + jdbc + ", reactive connections in use " + reactive + ", worker threads busy " + workers
                        + ", fan-out threads busy or queued " + fanout + ", delay calls in flight " + delayCalls);
            }
            Thread.sleep(200);
        }
    }
}
