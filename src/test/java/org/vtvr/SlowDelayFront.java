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
import jakarta.ws.rs.core.Response;
import org.vtvr.api.DelayReply;
import org.vtvr.delay.service.DelayResource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test-only front of the delay service that answers {@link #SLOWDOWN} times later than asked, or fails the next
 * call at once when told to: it lets a request whose plan fits the deadline run past it, and one call of a fan-out
 * fail while the others are in flight. Told to, it sends the next replies with bytes that are not UTF-8 in a field no
 * client reads ({@link #NOT_UTF8}). Calls are still served (and counted in flight) by the real delay service.
 */
@Path("/test-delay/delay")
public class SlowDelayFront {

    static final int SLOWDOWN = 5;

    static final AtomicBoolean FAIL_NEXT = new AtomicBoolean();

    /** How many of the next replies carry the overlong sequence C0 AE (not UTF-8) in an extra string field. */
    static final AtomicInteger NOT_UTF8 = new AtomicInteger();

    @Inject
    DelayResource delay;

    @GET
    @Path("/{ms}")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> delay(@PathParam("ms") int ms, @Context HttpServerRequest request) {
        if (FAIL_NEXT.getAndSet(false)) {
            throw new WebApplicationException("failing on purpose", 500);
        }
        return delay.delay(String.valueOf(ms * SLOWDOWN), request).map(reply ->
                Response.ok(NOT_UTF8.getAndUpdate(n -> Math.max(0, n - 1)) > 0 ? notUtf8(reply) : reply,
                        MediaType.APPLICATION_JSON).build());
    }

    private static byte[] notUtf8(DelayReply reply) {
        byte[] head = ("{\"delay\":" + reply.delay() + ",\"note\":\"").getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(head, head.length + 4);
        out[head.length] = (byte) 0xC0;
        out[head.length + 1] = (byte) 0xAE;
        out[head.length + 2] = '"';
        out[head.length + 3] = '}';
        return out;
    }
}
