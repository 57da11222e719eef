package org.vtvr.delay;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import org.vtvr.scenario.Deadline;

import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The one place the scenarios call the delay service through: the blocking and the {@code Uni} side of
 * {@link DelayClient}, timed as {@code delay_client_calls_seconds{client, outcome}} and with every failure turned
 * into a {@link DelayException} (502, 503 or 504).
 * <p>
 * Quarkus' own REST-client metrics are off (application.properties): their response filter runs on the worker pool,
 * so under overload every mode's delay calls queued behind the worker backlog and hung.
 */
@ApplicationScoped
public class DelayGateway {

    @Inject
    @RestClient
    DelayClient client;

    @Inject
    MeterRegistry registry;

    /** The success timers, built once: every delay call ends in one, so no meter lookup on the hot path. */
    private Timer blockingSuccess;
    private Timer uniSuccess;

    @PostConstruct
    void timers() {
        blockingSuccess = timer("blocking", "success");
        uniSuccess = timer("uni", "success");
    }

    public int call(int ms) {
        Timer.Sample sample = Timer.start(registry);
        try {
            int delay = client.call(ms).delay();
            record(sample, "blocking", null);
            return delay;
        } catch (RuntimeException e) {
            DelayException failure = classify(e);
            record(sample, "blocking", failure);
            throw failure;
        }
    }

    /**
     * The blocking call bounded by the request's deadline: past it, or when the calling thread is interrupted (a
     * sibling fan-out call failed), the HTTP request is aborted, not left running at the delay service, and the
     * caller gets a {@link DelayException} (504 at the deadline).
     * <p>
     * An interrupt of a thread parked in Mutiny's {@code await()} does not cancel the subscription (the delay
     * service kept counting the calls in flight until the deadline, FailureSemanticsTest), so this waits on the
     * client's {@code Uni} as a future and cancels it itself; the REST client resets the HTTP request on
     * cancellation. Quarkus' blocking client method waits on the same call internally: it runs on the event loop
     * either way.
     */
    public int call(int ms, Deadline deadline) {
        if (deadline.passed()) {
            throw timedOut(null);
        }
        CompletableFuture<Integer> reply = timed("blocking", ms, deadline).subscribeAsCompletionStage();
        try {
            return reply.get();
        } catch (ExecutionException e) {
            throw classify(e.getCause());
        } catch (InterruptedException e) {
            reply.cancel(true);
            Thread.currentThread().interrupt();
            throw timedOut(e);
        }
    }

    public Uni<Integer> callAsync(int ms) {
        return timed("uni", ms, null);
    }

    /** The {@code Uni} call bounded by the request's deadline; past it the subscription is cancelled (HTTP reset). */
    public Uni<Integer> callAsync(int ms, Deadline deadline) {
        return timed("uni", ms, deadline);
    }

    private Uni<Integer> timed(String api, int ms, Deadline deadline) {
        return Uni.createFrom().deferred(() -> {
            Timer.Sample sample = Timer.start(registry);
            Uni<DelayResource.Reply> reply = client.callAsync(ms);
            if (deadline != null) {
                reply = reply.ifNoItem().after(deadline.remaining()).failWith(() -> timedOut(null));
            }
            return reply
                    .map(DelayResource.Reply::delay)
                    .onFailure().transform(DelayGateway::classify)
                    .onItemOrFailure().invoke((item, failure) -> record(sample, api, (DelayException) failure));
        });
    }

    private void record(Timer.Sample sample, String api, DelayException failure) {
        if (failure == null) {
            sample.stop("blocking".equals(api) ? blockingSuccess : uniSuccess);
        } else {
            sample.stop(timer(api, String.valueOf(failure.status())));
        }
    }

    private Timer timer(String api, String outcome) {
        return registry.timer("delay.client.calls", "client", api, "outcome", outcome);
    }

    /** More concurrent calls than the fan-out pool can queue: 503. */
    public static DelayException overloaded(Throwable cause) {
        return new DelayException(503, cause);
    }

    /** A wait on the delay service that gave up: 504. */
    public static DelayException timedOut(Throwable cause) {
        return new DelayException(504, cause);
    }

    static DelayException classify(Throwable failure) {
        if (failure instanceof DelayException known) {
            return known;
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            // the blocking client finishes its call on the worker pool; a full pool queue rejects that step
            if (t instanceof RejectedExecutionException) {
                return new DelayException(503, failure);
            }
            if (t instanceof TimeoutException || t instanceof SocketTimeoutException
                    || t.getClass().getSimpleName().contains("Timeout")) {
                return new DelayException(504, failure);
            }
        }
        return new DelayException(502, failure);
    }
}
