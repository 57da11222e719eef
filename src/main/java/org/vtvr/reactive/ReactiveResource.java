package org.vtvr.reactive;

import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.RestResponse;
import org.vtvr.api.Created;
import org.vtvr.api.OrderRequest;
import org.vtvr.api.Result;
import org.vtvr.limits.Limits;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Started;

/**
 * The scenarios on the Vert.x event loop: methods return {@code Uni}, so Quarkus REST never moves them to a
 * worker thread. Same paths, parameters and JSON as the blocking modes; no pinning scenario (no monitors here).
 */
@Path("/reactive")
@Produces(MediaType.APPLICATION_JSON)
public class ReactiveResource {

    private static final Mode MODE = Mode.REACTIVE;

    @Inject
    ReactiveScenarios scenarios;

    @Inject
    Limits limits;

    @GET
    @Path("/io")
    public Uni<Result> io(@QueryParam("delay") @DefaultValue("100") String delay,
            @QueryParam("calls") @DefaultValue("1") String calls) {
        Started started = Started.now(MODE);
        return scenarios.io(started, limits.delay(delay), limits.calls(calls));
    }

    @GET
    @Path("/fanout")
    public Uni<Result> fanout(@QueryParam("delay") @DefaultValue("100") String delay,
            @QueryParam("calls") @DefaultValue("10") String calls) {
        Started started = Started.now(MODE);
        return scenarios.fanout(started, limits.delay(delay), limits.calls(calls));
    }

    @GET
    @Path("/db")
    public Uni<Result> db(@QueryParam("queries") @DefaultValue("1") String queries) {
        Started started = Started.now(MODE);
        return scenarios.db(started, limits.queries(queries));
    }

    @GET
    @Path("/slow-query")
    public Uni<Result> slowQuery(@QueryParam("delay") @DefaultValue("500") String delay) {
        Started started = Started.now(MODE);
        return scenarios.slowQuery(started, limits.delay(delay));
    }

    @POST
    @Path("/orders")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<RestResponse<Result>> checkout(@QueryParam("delay") @DefaultValue("100") String delay,
            OrderRequest body) {
        Started started = Started.now(MODE);
        return scenarios.checkout(started, limits.delay(delay), limits.order(body))
                .map(result -> Created.order(MODE, result));
    }

    @GET
    @Path("/orders/{id}")
    public Uni<Result> order(@PathParam("id") String id) {
        Started started = Started.now(MODE);
        return scenarios.order(started, limits.orderId(id));
    }

    @GET
    @Path("/cpu")
    public Uni<Result> cpu(@QueryParam("n") @DefaultValue("100000") String n) {
        Started started = Started.now(MODE);
        return scenarios.cpu(started, limits.nOnEventLoop(n));
    }
}
