package org.vtvr.delay.service;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.vtvr.api.DelayReply;
import org.vtvr.limits.Limits;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The slow downstream service: answers after {@code ms} milliseconds from a Vert.x timer, holding no thread. It
 * counts what it serves ({@code delay_service_calls_total}) and what is in flight ({@code delay_service_in_flight}),
 * so tests can see from the service's side how many calls each mode makes and whether aborted calls really ended.
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

    private Counter calls;

    @PostConstruct
    void meters() {
        calls = registry.counter("delay.service.calls");
        registry.gauge("delay.service.in.flight", IN_FLIGHT);
    }

    @GET
    @Path("/{ms}")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<DelayReply> delay(@PathParam("ms") String ms) {
        int delay = limits.delayServiceMs(ms);
        calls.increment();
        if (delay == 0) {
            return Uni.createFrom().item(new DelayReply(0));
        }
        // a caller that aborts (HTTP reset) cancels the Uni: the timer goes and the call no longer counts in flight
        return Uni.createFrom().emitter(emitter -> {
            IN_FLIGHT.incrementAndGet();
            long timer = vertx.setTimer(delay, id -> emitter.complete(new DelayReply(delay)));
            emitter.onTermination(() -> {
                vertx.cancelTimer(timer);
                IN_FLIGHT.decrementAndGet();
            });
        });
    }
}
