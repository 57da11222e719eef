package org.vtvr.delay;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.net.SocketTimeoutException;
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

    public Uni<Integer> callAsync(int ms) {
        return Uni.createFrom().deferred(() -> {
            Timer.Sample sample = Timer.start(registry);
            return client.callAsync(ms)
                    .map(DelayResource.Reply::delay)
                    .onFailure().transform(DelayGateway::classify)
                    .onItemOrFailure().invoke((item, failure) -> record(sample, "uni", (DelayException) failure));
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
