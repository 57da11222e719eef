package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.vtvr.api.DelayReply;
import org.vtvr.delay.client.PooledCalls;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * The REST client's calls with only four pooled connections ({@code PooledCalls}): calls cancelled while they waited
 * for a connection never reach the delay service and hold none afterwards (Quarkus 3.33 kept such a call's
 * connection until the 15-s read timeout, docs/faults.md), and reactive requests that waited go on on their own event
 * loop, where Hibernate Reactive reads for them.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
@TestProfile(PooledCallsTest.FourConnections.class)
class PooledCallsTest {

    static final int CONNECTIONS = 4;

    /** Four connections to the delay service. */
    public static class FourConnections implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.rest-client.delay.connection-pool-size", String.valueOf(CONNECTIONS));
        }
    }

    @Inject
    PooledCalls calls;

    @Test
    void callsCancelledWhileWaitingHoldNoConnection() throws Exception {
        await("idle before").atMost(Duration.ofSeconds(15)).until(Metrics::delayInFlight, equalTo(0.0));
        double before = Metrics.delayCalls();
        List<CompletableFuture<DelayReply>> busy = start(CONNECTIONS, 1500);
        await("every connection taken").atMost(Duration.ofSeconds(5))
                .until(Metrics::delayInFlight, equalTo((double) CONNECTIONS));
        start(CONNECTIONS * 4, 1500).forEach(waiting -> waiting.cancel(true));
        for (CompletableFuture<DelayReply> call : busy) {
            call.get(10, TimeUnit.SECONDS);
        }
        // a held connection would keep these waiting until the read timeout, 15 s
        for (CompletableFuture<DelayReply> call : start(CONNECTIONS * 2, 0)) {
            assertThat(call.get(5, TimeUnit.SECONDS).delay(), equalTo(0));
        }
        assertThat("calls that reached the delay service", Metrics.delayCalls() - before,
                equalTo(CONNECTIONS * 3.0));
    }

    @Test
    void reactiveRequestsThatWaitedForAConnectionReadOnTheirOwnEventLoop() throws Exception {
        try (ExecutorService clients = Executors.newFixedThreadPool(CONNECTIONS * 4)) {
            List<Future<Integer>> answers = IntStream.range(0, CONNECTIONS * 4).mapToObj(i -> clients.submit(
                    () -> given().when().get("/reactive/workload?delay=300&calls=1&queries=2").statusCode())).toList();
            for (Future<Integer> answer : answers) {
                assertThat(answer.get(30, TimeUnit.SECONDS), equalTo(200));
            }
        }
    }

    private List<CompletableFuture<DelayReply>> start(int n, int ms) {
        return IntStream.range(0, n).mapToObj(i -> calls.call(ms).subscribeAsCompletionStage()).toList();
    }
}
