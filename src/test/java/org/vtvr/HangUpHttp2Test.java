package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/** The same hang-ups, every mode calling the delay service over h2c: a call given up is a reset stream there. */
@QuarkusTest
@TestProfile(DelayHttp2.class)
class HangUpHttp2Test extends HangUpTest {

    /** More abandoned calls than Vert.x's default reset-flood limit (200 RST frames in 30 s on one connection). */
    static final int ABANDONED = 250;

    /**
     * Calls given up by the hundred are resets on the app's few h2c connections to the delay service; the delay
     * service must not take them for a reset flood and close the connection (GOAWAY ENHANCE_YOUR_CALM) under the
     * calls still running on it: the scale experiment's worker level lost its 200 running calls that way (502).
     */
    @Test
    void manyHangUpsLeaveTheOtherCallsRunning() throws Exception {
        await("idle before").atMost(Duration.ofSeconds(15)).until(Metrics::delayInFlight, equalTo(0.0));
        CompletableFuture<Integer> survivor = CompletableFuture.supplyAsync(
                () -> given().get("/reactive/io?delay=6000").statusCode());
        await("the survivor's call at the delay service").atMost(Duration.ofSeconds(10))
                .until(Metrics::delayInFlight, equalTo(1.0));
        int batch = 50;
        for (int sent = 0; sent < ABANDONED; sent += batch) {
            try (Clients clients = new Clients(HangUp.HTTP1_CLOSE)) {
                for (int i = 0; i < batch; i++) {
                    clients.send("/reactive/io?delay=10000");
                }
                await("calls at the delay service").atMost(Duration.ofSeconds(10))
                        .until(Metrics::delayInFlight, equalTo(batch + 1.0));
                clients.hangUp();
                await("abandoned calls ended").atMost(ENDS_WITHIN).until(Metrics::delayInFlight, equalTo(1.0));
            }
        }
        assertThat("the call that was not abandoned", survivor.get(), equalTo(200));
    }
}
