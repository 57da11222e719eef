package org.vtvr.delay.client;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;
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
 * method waits on the same event-loop call internally, so the work per call is the same.
 * <p>
 * A cancel that comes before the call has its pooled connection (an interrupt at the very start of a call) is not
 * sent, but Quarkus 3.33's REST client then keeps the connection it gets until the read timeout (15 s) ends the unsent
 * request and logs "The timeout period ... has been exceeded" ({@code ClientSendRequestHandler}, the fix of
 * quarkusio/quarkus#48620 skips the send but neither resets nor releases it; docs/faults.md).
 */
@ApplicationScoped
class RestBlockingDelayClient implements BlockingDelayClient {

    @Inject
    @RestClient
    DelayClient client;

    @Override
    public int call(int ms, Duration timeout) throws InterruptedIOException {
        CompletableFuture<DelayReply> reply = client.callAsync(ms)
                .ifNoItem().after(timeout).failWith(TimeoutException::new)
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
