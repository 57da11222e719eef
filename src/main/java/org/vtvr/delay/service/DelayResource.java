package org.vtvr.delay.service;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import org.vtvr.api.DelayReply;
import org.vtvr.limits.Limits;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The slow downstream service: answers after {@code ms} milliseconds from a Vert.x timer, holding no thread. It
 * counts what it serves ({@code delay_service_calls_total{protocol}}, {@code protocol} the HTTP version's ALPN name:
 * {@code http/1.1} or {@code h2}) and what is in flight ({@code delay_service_in_flight}), so tests can see from the
 * service's side how many calls each mode makes, over which protocol, and whether aborted calls really ended.
 */
@Path(DelayReply.PATH)
public class DelayResource {

    private static final AtomicInteger IN_FLIGHT = new AtomicInteger();

    @Inject
    Vertx vertx;

    @Inject
    Limits limits;

    @Inject
    MeterRegistry registry;

    private final Map<HttpVersion, Counter> calls = new EnumMap<>(HttpVersion.class);
    private final Map<HttpVersion, Counter> abandoned = new EnumMap<>(HttpVersion.class);

    @PostConstruct
    void meters() {
        for (HttpVersion version : HttpVersion.values()) {
            calls.put(version, registry.counter("delay.service.calls", "protocol", version.alpnName()));
            abandoned.put(version, Counter.builder("delay.service.calls.abandoned").tag("protocol", version.alpnName())
                    .description("calls whose caller went away (connection closed, stream reset) before the answer")
                    .register(registry));
        }
        registry.gauge("delay.service.in.flight", IN_FLIGHT);
    }

    @GET
    @Path("/{ms}")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<DelayReply> delay(@PathParam("ms") String ms, @Context HttpServerRequest request) {
        int delay = limits.delayServiceMs(ms);
        calls.get(request.version()).increment();
        if (delay == 0) {
            return Uni.createFrom().item(new DelayReply(0));
        }
        // a caller that aborts (HTTP reset) cancels the Uni: the timer goes and the call no longer counts in flight
        Counter gone = abandoned.get(request.version());
        return Uni.createFrom().emitter(emitter -> {
            IN_FLIGHT.incrementAndGet();
            AtomicBoolean answered = new AtomicBoolean();
            long timer = vertx.setTimer(delay, id -> {
                answered.set(true);
                emitter.complete(new DelayReply(delay));
            });
            emitter.onTermination(() -> {
                vertx.cancelTimer(timer);
                if (!answered.get()) {
                    gone.increment();
                }
                IN_FLIGHT.decrementAndGet();   // last: a reader that sees it fall sees the call counted
            });
        });
    }
}
