package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vtvr.delay.client.DelayGateway;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.limits.Deadline;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/**
 * A blocking delay call ends as soon as its thread is interrupted (how fanout cancels the calls it no longer needs),
 * on a virtual and on a platform thread, with a 504 and the interrupt flag still set.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class DelayCancellationTest {

    @Inject
    DelayGateway gateway;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void anInterruptEndsTheCallAtOnce(boolean virtual) throws Exception {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        CompletableFuture<Boolean> stillInterrupted = new CompletableFuture<>();
        Thread caller = (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
            try {
                gateway.call(5_000, new Deadline(System.nanoTime() + Duration.ofSeconds(20).toNanos()));
                failure.complete(null);
            } catch (Throwable t) {
                failure.complete(t);
            }
            stillInterrupted.complete(Thread.currentThread().isInterrupted());
        });
        // the call is connected and blocked waiting for the reply once the delay service serves it; the bound only
        // leaves a loaded machine room (the call itself lasts 5 s)
        await().atMost(Duration.ofSeconds(20)).until(() -> Metrics.delayInFlight() >= 1);
        long interruptedAt = System.nanoTime();
        caller.interrupt();
        assertThat(caller.join(Duration.ofSeconds(4)), is(true));
        // the time is the thing tested: the call would last 5 s, so well under that shows the interrupt ended it,
        // with room for a loaded 2-core machine
        assertThat("ms from the interrupt to the end of the call",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interruptedAt), lessThan(2_000L));
        Throwable thrown = failure.get();
        assertThat(thrown, instanceOf(ProblemException.class));
        assertThat(thrown.getMessage(), ((ProblemException) thrown).type(), equalTo(ProblemType.DELAY_TIMEOUT));
        assertThat(stillInterrupted.get(), is(true));
    }
}
