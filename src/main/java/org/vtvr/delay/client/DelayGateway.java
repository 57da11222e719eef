package org.vtvr.delay.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.ConnectTimeoutException;
import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.vtvr.api.DelayReply;
import org.vtvr.config.BenchConfig;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.limits.Deadline;


import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The one place the scenarios call the delay service through: the blocking client chosen by
 * {@code bench.blocking-client} and the {@code Uni} side of {@link DelayClient} (through {@link PooledCalls}),
 * timed as {@code delay_client_calls_seconds{client, api, outcome}} and with every failure turned into a problem: 502
 * unreachable, 503 overloaded, 504 too slow.
 * <p>
 * Quarkus' own REST-client metrics are off (application.properties): their response filter runs on the worker pool,
 * so under overload every mode's delay calls queued behind the worker backlog and hung.
 */
@ApplicationScoped
public class DelayGateway {

    /** The {@code client} tag of the reactive mode's calls, which always go through the REST client. */
    private static final String REST_CLIENT = BenchConfig.BlockingClient.REST_CLIENT.tag();

    @Inject
    DeadlineTimers timers;

    @Inject
    PooledCalls calls;

    // both are lazy client proxies: only the chosen one ever builds its connection pool
    @Inject
    RestBlockingDelayClient restBlocking;

    @Inject
    SocketDelayClient socketBlocking;

    @Inject
    BenchConfig config;

    @Inject
    MeterRegistry registry;

    private BlockingDelayClient blocking;
    private String blockingTag;

    /** The success timers, built once: every delay call ends in one, so no meter lookup on the hot path. */
    private Timer blockingSuccess;
    private Timer uniSuccess;

    @PostConstruct
    void init() {
        BenchConfig.BlockingClient chosen = config.blockingClient();
        blocking = chosen == BenchConfig.BlockingClient.SOCKET ? socketBlocking : restBlocking;
        blockingTag = chosen.tag();
        blockingSuccess = timer(blockingTag, "blocking", "success");
        uniSuccess = timer(REST_CLIENT, "uni", "success");
        Log.infof("virtual and worker modes call the delay service with the %s client (bench.blocking-client)", blockingTag);
    }

    /**
     * Loads the failure path's classes at start. Past the process's open-files limit no jar can be opened to load a
     * class, and Quarkus' jar loader (3.33's {@code JarFileReference}) then leaves every later load from that jar
     * waiting forever: in a scale run the first delay calls that failed there loaded Apache HttpClient's exception
     * classes in {@link #classify} and blocked both event loops until the app was killed (docs/scale.md). A failure
     * must not be the first to need a class: the exceptions {@code classify} tests for, the problem it makes and
     * that problem's JSON are all loaded here.
     */
    void preloadFailurePath(@Observes StartupEvent event, ObjectMapper json) throws IOException {
        List<Class<?>> tested = List.of(ConnectionRequestTimeoutException.class, ConnectTimeoutException.class,
                org.apache.hc.client5.http.ConnectTimeoutException.class, SocketTimeoutException.class,
                TimeoutException.class, RejectedExecutionException.class);
        ProblemException failure = classify(new IOException("loaded at start"));
        Log.debugf("failure path loaded: %d exception types, %s", tested.size(),
                json.writeValueAsString(failure.type().problem(failure.getMessage(), "/")));
    }

    /**
     * One blocking call on the calling thread, bounded by the request's deadline: past it, or when the calling thread
     * is interrupted (a sibling fan-out call failed), the HTTP request is aborted, not left running at the delay
     * service (FailureSemanticsTest counts the calls still in flight there), and the caller gets a
     * 504 problem, with the thread's interrupt flag set again if it was interrupted.
     */
    public int call(int ms, Deadline deadline) {
        Duration left = deadline.remaining();
        if (left.isZero()) {
            throw timedOut(null);
        }
        if (Thread.currentThread().isInterrupted()) {   // the client hung up, or a sibling call failed: no new call
            throw timedOut(new InterruptedException("interrupted before the call"));
        }
        Timer.Sample sample = Timer.start(registry);
        try {
            int delay = blocking.call(ms, left);
            sample.stop(blockingSuccess);
            return delay;
        } catch (IOException | RuntimeException e) {
            ProblemException failure = interrupted(e) ? timedOut(e) : classify(e);
            sample.stop(timer(blockingTag, "blocking", String.valueOf(failure.type().status())));
            throw failure;
        }
    }

    /** The {@code Uni} call bounded by the request's deadline; past it the subscription is cancelled (HTTP reset). */
    public Uni<Integer> callAsync(int ms, Deadline deadline) {
        return Uni.createFrom().deferred(() -> {
            Duration left = deadline.remaining();
            if (left.isZero()) {   // Mutiny takes no zero wait
                return Uni.createFrom().failure(timedOut(null));
            }
            Timer.Sample sample = Timer.start(registry);
            return calls.call(ms)
                    .ifNoItem().after(left).on(timers.executor()).failWith(() -> timedOut(null))
                    .map(DelayReply::delay)
                    .onFailure().transform(DelayGateway::classify)
                    .onItemOrFailure().invoke((item, failure) -> sample.stop(failure == null ? uniSuccess
                            : timer(REST_CLIENT, "uni", String.valueOf(((ProblemException) failure).type().status()))));
        });
    }

    private Timer timer(String client, String api, String outcome) {
        return registry.timer("delay.client.calls", "client", client, "api", api, "outcome", outcome);
    }

    /**
     * Whether the calling thread was interrupted during the call; if so its flag is set again (the REST client's
     * wait clears it), so a caller that cancels its calls can tell.
     */
    private static boolean interrupted(Throwable failure) {
        boolean interrupted = Thread.currentThread().isInterrupted();
        for (Throwable t = failure; t != null && !interrupted; t = t.getCause() == t ? null : t.getCause()) {
            interrupted = t instanceof InterruptedException;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return interrupted;
    }

    /** A wait on the delay service that gave up: 504. */
    public static ProblemException timedOut(Throwable cause) {
        return ProblemType.DELAY_TIMEOUT.exception("the delay service did not answer in time", cause);
    }

    /**
     * By type: no thread or pooled connection left for the call (the REST client finishes a blocking call on the
     * worker pool, whose full queue rejects that step; the socket client waited for a pooled connection) is 503; a
     * wait that ran out (Vert.x' and Mutiny's timeouts are {@link TimeoutException}s, the socket client's are
     * {@link SocketTimeoutException}s, a connect timeout of either) is 504; anything else, a refused or dropped
     * connection or an error status, is 502. The detail names no host, port or exception class.
     */
    public static ProblemException classify(Throwable failure) {
        if (failure instanceof ProblemException known) {
            return known;
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RejectedExecutionException || t instanceof ConnectionRequestTimeoutException) {
                return ProblemType.OVERLOADED.exception(
                        "the app is overloaded: no thread or connection left for the delay-service call", failure);
            }
            if (t instanceof TimeoutException || t instanceof SocketTimeoutException
                    || t instanceof ConnectTimeoutException
                    || t instanceof org.apache.hc.client5.http.ConnectTimeoutException) {
                return timedOut(failure);
            }
        }
        return ProblemType.DELAY_UNAVAILABLE.exception(
                "delay service unavailable: it refused or dropped the connection", failure);
    }
}
