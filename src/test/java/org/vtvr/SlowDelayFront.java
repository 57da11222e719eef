package org.vtvr;

import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import org.vtvr.api.DelayReply;
import org.vtvr.delay.service.DelayResource;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A test-only front of the delay service that answers {@link #SLOWDOWN} times later than asked, or fails the next
 * call at once when told to: it lets a request whose plan fits the deadline run past it, and one call of a fan-out
 * fail while the others are in flight. Calls are still served (and counted in flight) by the real delay service.
 */
@Path("/test-delay/delay")
public class SlowDelayFront {

    static final int SLOWDOWN = 5;

    static final AtomicBoolean FAIL_NEXT = new AtomicBoolean();

    @Inject
    DelayResource delay;

    @GET
    @Path("/{ms}")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<DelayReply> delay(@PathParam("ms") int ms, @Context HttpServerRequest request) {
        if (FAIL_NEXT.getAndSet(false)) {
            throw new WebApplicationException("failing on purpose", 500);
        }
        return delay.delay(String.valueOf(ms * SLOWDOWN), request);
    }
}
