package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vtvr.scenario.Mode;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Admission control with a small bound: past {@code bench.max-in-flight} requests of one mode the next answers 503
 * problem at once while the other modes serve; clients that hang up give their slots back.
 */
@QuarkusTest
@TestProfile(AdmissionTest.ThreeInFlight.class)
@QuarkusTestResource(EmbeddedDatabase.class)
class AdmissionTest {

    static final int BOUND = 3;

    /** bench.max-in-flight=3, so a test can fill it with a few sockets. */
    public static class ThreeInFlight implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // the hung-up holders' calls stay at the delay service for up to HELD_MS; the graceful shutdown after
            // the last test need not wait for them
            return Map.of("bench.max-in-flight", String.valueOf(BOUND), "quarkus.shutdown.timeout", "1s");
        }
    }

    /** How long each holding request waits at the delay service: bench.max-delay's default, the longest allowed. */
    static final int HELD_MS = 10_000;

    @ParameterizedTest
    @EnumSource(Mode.class)
    void refusesPastTheBoundAtOnceAndFreesTheSlotsOfClientsThatHangUp(Mode mode) throws Exception {
        Mode other = mode == Mode.VIRTUAL ? Mode.WORKER : Mode.VIRTUAL;
        double rejectedBefore = metric("admission_rejected_total", mode);
        List<Socket> holders = new ArrayList<>();
        try {
            for (int i = 0; i < BOUND; i++) {
                holders.add(hold("/" + mode.path() + "/io?delay=" + HELD_MS));
            }
            awaitInFlight(mode, BOUND, Duration.ofSeconds(20));
            // "at once" is "not queued behind the holders": a queued request would answer after HELD_MS, so half of
            // it is the bound, which a loaded machine's slow answer still meets (1 s did not, with other builds running)
            RawHttp.Answer refused = RawHttp.send(RestAssured.port, HostileInputTest.get("/" + mode.path() + "/io?delay=0"),
                    HELD_MS / 2);
            assertEquals(503, refused.status(), refused.body());
            assertTrue(refused.headers().get("content-type").startsWith("application/problem+json"));
            assertTrue(refused.body().contains("bench.max-in-flight"), refused.body());
            given().when().get("/" + other.path() + "/io?delay=0").then().statusCode(200);
        } finally {
            for (Socket socket : holders) {
                socket.close();
            }
        }
        // freed by the hang-ups, not by the held calls ending: well before HELD_MS
        awaitInFlight(mode, 0, Duration.ofMillis(HELD_MS / 2));
        given().when().get("/" + mode.path() + "/io?delay=0").then().statusCode(200);
        assertEquals(rejectedBefore + 1, metric("admission_rejected_total", mode));
        assertEquals(BOUND, metric("admission_limit", mode));
    }

    private static Socket hold(String target) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", RestAssured.port), 2000);
        socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    private static void awaitInFlight(Mode mode, int expected, Duration atMost) {
        await().atMost(atMost).until(() -> metric("admission_in_flight", mode), equalTo((double) expected));
    }

    private static double metric(String name, Mode mode) {
        return Metrics.sum(name, "mode", mode.path());
    }
}
