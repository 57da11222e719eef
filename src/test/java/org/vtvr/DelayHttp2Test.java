package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vtvr.delay.client.SocketDelayClient;
import org.vtvr.floor.FloorRoutes;
import org.vtvr.scenario.Mode;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * {@code bench.delay-http2=true}: every mode and the floor call the delay service over HTTP/2 (counted by the delay
 * service per protocol), a call the app gives up ends there too, the socket client stays on HTTP/1.1, and the work
 * per request is the same as over HTTP/1.1 (the inherited equal-work cases: statements and delay calls).
 */
@QuarkusTest
@TestProfile(DelayHttp2.class)
class DelayHttp2Test extends EqualWorkTest {

    private static final String CALLS = "delay_service_calls_total";

    @Inject
    SocketDelayClient socket;

    @ParameterizedTest
    @ValueSource(strings = {"io?delay=0&calls=3", "fanout?delay=0&calls=8"})
    void everyModeCallsTheDelayServiceOverHttp2(String scenario) {
        List<String> series = new ArrayList<>(Arrays.stream(Mode.values()).map(Mode::path).toList());
        series.add(FloorRoutes.SERIES);
        for (String path : series) {
            double h2 = Metrics.sum(CALLS, "protocol", "h2");
            double all = Metrics.delayCalls();
            for (int i = 0; i < N; i++) {
                given().when().get("/" + path + "/" + scenario).then().statusCode(200);
            }
            double calls = Metrics.delayCalls() - all;
            assertThat(scenario + " in " + path + ": calls", calls, equalTo(N * (scenario.startsWith("io") ? 3.0 : 8.0)));
            assertThat(scenario + " in " + path + ": over HTTP/2", Metrics.sum(CALLS, "protocol", "h2") - h2, equalTo(calls));
        }
    }

    /**
     * A call the app gives up ends at the delay service too: its HTTP/2 stream is reset, not left running. Every mode
     * and the floor give their calls up when the client hangs up (the virtual and worker modes interrupt the request's
     * thread, which cancels the same {@code Uni}: RestBlockingDelayClient; HangUpHttp2Test does it N times).
     */
    @ParameterizedTest
    @ValueSource(strings = {"virtual", "worker", "reactive", FloorRoutes.SERIES})
    void abortedCallsEndAtTheDelayService(String mode) throws Exception {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        await("idle before").atMost(Duration.ofSeconds(15)).until(Metrics::delayInFlight, equalTo(0.0));
        double h2 = Metrics.sum(CALLS, "protocol", "h2");
        double abandoned = Metrics.sum("delay_service_calls_abandoned_total", "protocol", "h2");
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.getOutputStream().write(("GET /" + mode + "/io?delay=10000 HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            await(mode + ": the call reached the delay service").atMost(Duration.ofSeconds(5))
                    .until(Metrics::delayInFlight, equalTo(1.0));
            socket.setSoLinger(true, 0);
        }
        // the delay is 10 s: a call left running would still be counted long after this
        await(mode + ": the call ended at the delay service").atMost(Duration.ofSeconds(5))
                .until(Metrics::delayInFlight, equalTo(0.0));
        assertThat(Metrics.sum(CALLS, "protocol", "h2") - h2, equalTo(1.0));
        assertThat(Metrics.sum("delay_service_calls_abandoned_total", "protocol", "h2") - abandoned, equalTo(1.0));
    }

    @Test
    void infoTellsTheSetting() {
        given().when().get("/q/info").then().statusCode(200)
                .body("settings.'bench.delay-http2'", is("true"))
                .body("settings.'quarkus.rest-client.delay.http2'", is("true"));
    }

    @Test
    void theSocketClientStaysOnHttp1() throws Exception {
        double http1 = Metrics.sum(CALLS, "protocol", "http/1.1");
        double h2 = Metrics.sum(CALLS, "protocol", "h2");
        assertThat(socket.call(0, Duration.ofSeconds(5)), equalTo(0));
        assertThat(Metrics.sum(CALLS, "protocol", "http/1.1") - http1, equalTo(1.0));
        assertThat(Metrics.sum(CALLS, "protocol", "h2") - h2, equalTo(0.0));
    }
}
