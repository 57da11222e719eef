package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vtvr.delay.client.DeadlineTimers;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

/**
 * An answered request is released with its answer: each delay call holds a deadline timer while it runs, and once
 * every call has answered no timer is left queued (the default executor kept each until its deadline, and the request
 * with it). Checked while the calls run, so the test cannot pass on a timer that never existed.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class DeadlineTimersTest {

    static final int CALLS = 40;

    @Inject
    DeadlineTimers timers;

    @ParameterizedTest
    @ValueSource(strings = {"reactive", "virtual", "worker"})
    void answeredCallsLeaveNoTimerQueued(String mode) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CALLS);
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                answers.add(clients.submit(() -> given().get("/" + mode + "/io?delay=1500").statusCode()));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> Metrics.delayInFlight() >= CALLS / 2.0);
            assertThat("timers while the calls wait", timers.pending(), greaterThan(0));
            for (Future<Integer> answer : answers) {
                assertThat(answer.get(), equalTo(200));
            }
            assertThat("timers once every call answered", timers.pending(), equalTo(0));
        } finally {
            clients.shutdownNow();
        }
    }
}
