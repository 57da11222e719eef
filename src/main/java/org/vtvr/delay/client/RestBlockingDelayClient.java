package org.vtvr.delay.client;

import io.quarkus.restclient.config.RestClientsConfig;
import io.vertx.core.Vertx;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.vtvr.api.DelayReply;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Quarkus REST client for a blocking caller: Vert.x does the I/O on an event loop while the caller waits.
 * <p>
 * It waits on the client's {@code Uni} as a future rather than through a blocking interface method: an interrupt of
 * a thread parked in such a method (Mutiny's {@code await()}) does not cancel the HTTP request, which stayed in flight
 * at the delay service until its own timeout (FailureSemanticsTest); cancelling the future resets it. A blocking
 * method waits on the same event-loop call internally, so the work per call is the same.
 * <p>
 * A cancel that comes before the call has its pooled connection is not sent, but Quarkus 3.33's REST client then
 * keeps the connection it gets until the read timeout (15 s) ends the unsent request and logs "The timeout period ...
 * has been exceeded" ({@code ClientSendRequestHandler}: the fix of quarkusio/quarkus#48620 skips the send but neither
 * resets nor releases it). A hang-up right after a request's calls started hit that for 375 of 1,000 calls
 * (DisconnectTest). So an interrupted call younger than the connect timeout, by which its connection is there or the
 * call failed, is cancelled when it reaches that age, from a Vert.x timer; the caller does not wait for it
 * (docs/faults.md).
 */
@ApplicationScoped
class RestBlockingDelayClient implements BlockingDelayClient {

    @Inject
    @RestClient
    DelayClient client;

    @Inject
    Vertx vertx;

    @Inject
    DeadlineTimers timers;

    @Inject
    RestClientsConfig restClients;

    private long connectTimeoutNanos;

    @PostConstruct
    void settings() {
        connectTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(DelaySettings.of(restClients).connectTimeoutMs());
    }

    @Override
    public int call(int ms, Duration timeout) throws InterruptedIOException {
        long started = System.nanoTime();
        CompletableFuture<DelayReply> reply = client.callAsync(ms)
                .ifNoItem().after(timeout).on(timers.executor()).failWith(TimeoutException::new)
                .subscribeAsCompletionStage();
        try {
            return reply.get().delay();
        } catch (ExecutionException e) {
            throw new CompletionException(e.getCause());
        } catch (InterruptedException e) {
            cancelWhenConnected(reply, started);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the delay service");
        }
    }

    /** Cancels the call now, or once it is as old as the connect timeout (see above). */
    private void cancelWhenConnected(CompletableFuture<DelayReply> reply, long startedNanos) {
        long youngForMs = TimeUnit.NANOSECONDS.toMillis(startedNanos + connectTimeoutNanos - System.nanoTime());
        if (youngForMs <= 0) {
            reply.cancel(true);
        } else {
            vertx.setTimer(youngForMs, id -> reply.cancel(true));
        }
    }
}
