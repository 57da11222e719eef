package org.vtvr.delay.client;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.vtvr.api.DelayReply;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The Quarkus REST client for a blocking caller: Vert.x does the I/O on an event loop while the caller waits.
 * <p>
 * It waits on the client's {@code Uni} as a future rather than through a blocking interface method: an interrupt of
 * a thread parked in such a method (Mutiny's {@code await()}) does not cancel the HTTP request, which stayed in flight
 * at the delay service until its own timeout (FailureSemanticsTest); cancelling the future resets it. A blocking
 * method waits on the same event-loop call internally, so the work per call is the same. The call goes through
 * {@link PooledCalls}, as the reactive mode's do: that is where a cancelled call gives up its connection.
 */
@ApplicationScoped
class RestBlockingDelayClient implements BlockingDelayClient {

    @Inject
    PooledCalls calls;

    @Inject
    DeadlineTimers timers;

    @Override
    public int call(int ms, Duration timeout) throws InterruptedIOException {
        CompletableFuture<DelayReply> reply = calls.call(ms)
                .ifNoItem().after(timeout).on(timers.executor()).failWith(TimeoutException::new)
                .subscribeAsCompletionStage();
        try {
            return reply.get().delay();
        } catch (ExecutionException e) {
            throw new CompletionException(e.getCause());
        } catch (InterruptedException e) {
            reply.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the delay service");
        }
    }
}
