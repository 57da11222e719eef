package org.vtvr.delay;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.vtvr.scenario.Limits;

/** The slow downstream service: answers after {@code ms} milliseconds from a Vert.x timer, holding no thread. */
@Path("/delay")
public class DelayResource {

    /** The delay service's reply. */
    public record Reply(int delay) {
    }

    @Inject
    Vertx vertx;

    @Inject
    Limits limits;

    @GET
    @Path("/{ms}")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Reply> delay(@PathParam("ms") String ms) {
        int delay = limits.delay(ms);
        if (delay == 0) {
            return Uni.createFrom().item(new Reply(0));
        }
        return Uni.createFrom().emitter(emitter -> vertx.setTimer(delay, id -> emitter.complete(new Reply(delay))));
    }
}
