package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

/**
 * The socket client closes what a burst opened: 50 concurrent calls leave 50 pooled connections, and within 1.1 times
 * {@code quarkus.rest-client.delay.connection-ttl} (1 s here) of the burst none is open
 * ({@code delay_socket_client_connections}, leased and available); the replies' JSON buffers go back to the client's
 * own bounded pool ({@code delay_socket_client_json_buffers}), not to the app's unbounded one for virtual threads.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
@TestProfile(SocketPoolTest.ShortIdle.class)
class SocketPoolTest {

    static final long IDLE_MS = 1000;
    /** What a loaded two-core machine may add to the evictor's sweep. */
    static final long MARGIN_MS = 1000;

    /** The socket client, with connections idle for a second closed. */
    public static class ShortIdle implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return SocketClient.with(Map.of("quarkus.rest-client.delay.connection-ttl", String.valueOf(IDLE_MS)));
        }
    }

    @Test
    void aBurstsConnectionsCloseWithinTheIdleTimeout() {
        given().when().get("/virtual/fanout?delay=300&calls=50").then().statusCode(200);
        long burstEnded = System.nanoTime();
        assertThat("connections the burst opened", open(), greaterThanOrEqualTo(50.0));
        await("connections still open after the idle timeout").atMost(Duration.ofMillis(IDLE_MS * 11 / 10 + MARGIN_MS))
                .pollInterval(Duration.ofMillis(100)).until(SocketPoolTest::open, equalTo(0.0));
        System.out.printf("the burst's connections closed %d ms after it%n", (System.nanoTime() - burstEnded) / 1_000_000);
    }

    @Test
    void repliesAreParsedWithBuffersFromABoundedPool() {
        given().when().get("/virtual/fanout?delay=100&calls=50").then().statusCode(200);
        assertThat("JSON buffers kept by the socket client", Metrics.sum("delay_socket_client_json_buffers"),
                allOf(greaterThanOrEqualTo(1.0), lessThanOrEqualTo(64.0)));
    }

    private static double open() {
        return Metrics.sum("delay_socket_client_connections");
    }
}
