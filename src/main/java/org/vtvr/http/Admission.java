package org.vtvr.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.vtvr.api.DelayReply;
import org.vtvr.config.BenchConfig;
import org.vtvr.error.ProblemType;
import org.vtvr.scenario.Mode;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Right after {@link HttpLimits}, still on the event loop: refuses the mode endpoints in the delay-only profile (404)
 * and a request to a mode that already has {@code bench.max-in-flight} requests in progress (503), as problem+json.
 * <p>
 * A request stops counting when its response has ended or its connection has closed ({@code addEndHandler} fires on
 * either, and on an HTTP/2 stream's reset), so a client that hangs up leaks no admission slot. Each admitted request
 * gets its {@link Arrival} here: its deadline counts from this moment, in the modes that hold a thread per request a
 * hang-up interrupts that thread, and a worker request still queued at {@code bench.request-deadline} is answered 504
 * then (a timer from now until a thread takes it).
 * Metrics: {@code admission_in_flight{mode}},
 * {@code admission_limit{mode}}, {@code admission_admitted_total{mode}}, {@code admission_rejected_total{mode}}.
 */
@ApplicationScoped
public class Admission {

    private final Map<Mode, AtomicInteger> inFlight = new EnumMap<>(Mode.class);
    private final Map<Mode, Counter> admitted = new EnumMap<>(Mode.class);
    private final Map<Mode, Counter> rejected = new EnumMap<>(Mode.class);
    private BenchConfig config;
    private Vertx vertx;

    void install(@Observes Router router, BenchConfig config, MeterRegistry registry, Vertx vertx) {
        this.config = config;
        this.vertx = vertx;
        for (Mode mode : Mode.values()) {
            AtomicInteger count = new AtomicInteger();
            inFlight.put(mode, count);
            Gauge.builder("admission.in.flight", count, AtomicInteger::get).tag("mode", mode.path())
                    .description("requests of this mode in progress").register(registry);
            Gauge.builder("admission.limit", config, BenchConfig::maxInFlight).tag("mode", mode.path())
                    .description("bench.max-in-flight: requests of one mode in progress before 503").register(registry);
            admitted.put(mode, Counter.builder("admission.admitted").tag("mode", mode.path())
                    .description("requests of this mode let through to be served").register(registry));
            rejected.put(mode, Counter.builder("admission.rejected").tag("mode", mode.path())
                    .description("requests refused with 503 because bench.max-in-flight were in progress").register(registry));
        }
        router.route().order(HttpLimits.ORDER + 1).handler(this::handle);
    }

    private void handle(RoutingContext rc) {
        Mode mode = modeOf(rc.normalizedPath());
        if (mode == null) {
            rc.next();
            return;
        }
        if (!config.serveModes()) {
            HttpLimits.refuse(rc, ProblemType.NOT_FOUND, "this instance serves only " + DelayReply.PATH + "/{ms} (profile 'delay')");
            return;
        }
        AtomicInteger count = inFlight.get(mode);
        if (count.incrementAndGet() > config.maxInFlight()) {
            count.decrementAndGet();
            rejected.get(mode).increment();
            HttpLimits.refuse(rc, ProblemType.OVERLOADED, config.maxInFlight() + " " + mode.path()
                    + " requests are in progress (bench.max-in-flight); retry later");
            return;
        }
        admitted.get(mode).increment();
        Arrival arrival = new Arrival(System.nanoTime(), mode.ownThread());
        rc.put(Arrival.KEY, arrival);
        if (mode.queues()) {
            long deadlineMs = config.requestDeadline().toMillis();
            arrival.expireAfter(vertx, deadlineMs, () -> HttpLimits.refuse(rc, ProblemType.DEADLINE, "the request was still"
                    + " waiting for a thread at its deadline of " + deadlineMs + " ms (bench.request-deadline)"));
        }
        rc.addEndHandler(ended -> {
            count.decrementAndGet();
            arrival.ended(ended.succeeded());
        });
        rc.next();
    }

    /** The mode whose endpoints {@code path} addresses, from its first segment; null for every other path. */
    static Mode modeOf(String path) {
        int start = path.startsWith("/") ? 1 : 0;
        int end = path.indexOf('/', start);
        String first = end < 0 ? path.substring(start) : path.substring(start, end);
        for (Mode mode : Mode.values()) {
            if (mode.path().equals(first)) {
                return mode;
            }
        }
        return null;
    }
}
