package org.vtvr.virtual;

import io.smallrye.common.annotation.RunOnVirtualThread;
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
import org.vtvr.blocking.BlockingScenarios;
import org.vtvr.limits.Limits;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Started;

/**
 * The blocking scenarios, each request on a new virtual thread.
 *
 * <p>{@code VirtualResource} and {@code WorkerResource} are the same file but for the threading annotation: both
 * delegate every endpoint to {@link BlockingScenarios}. They cannot share a base class, because Quarkus REST reads
 * the threading annotation from the class that declares each endpoint method (EndpointIndexer#getInheritableAnnotation).
 */
@Path("/virtual")
@Produces(MediaType.APPLICATION_JSON)
@RunOnVirtualThread
public class VirtualResource {

    private static final Mode MODE = Mode.VIRTUAL;

    @Inject
    BlockingScenarios scenarios;

    @Inject
    Limits limits;

    @GET
    @Path("/io")
    public Result io(@QueryParam("delay") @DefaultValue("100") String delay,
            @QueryParam("calls") @DefaultValue("1") String calls) {
        Started started = Started.now(MODE);
        return scenarios.io(started, limits.delay(delay), limits.calls(calls));
    }

    @GET
    @Path("/fanout")
    public Result fanout(@QueryParam("delay") @DefaultValue("100") String delay,
            @QueryParam("calls") @DefaultValue("10") String calls) {
        Started started = Started.now(MODE);
        return scenarios.fanout(started, limits.delay(delay), limits.calls(calls));
    }

    @GET
    @Path("/db")
    public Result db(@QueryParam("queries") @DefaultValue("1") String queries) {
        Started started = Started.now(MODE);
        return scenarios.db(started, limits.queries(queries));
    }

    @GET
    @Path("/slow-query")
    public Result slowQuery(@QueryParam("delay") @DefaultValue("500") String delay) {
        Started started = Started.now(MODE);
        return scenarios.slowQuery(started, limits.delay(delay));
    }

    @POST
    @Path("/orders")
    @Consumes(MediaType.APPLICATION_JSON)
    public RestResponse<Result> checkout(@QueryParam("delay") @DefaultValue("100") String delay, OrderRequest body) {
        Started started = Started.now(MODE);
        Result result = scenarios.checkout(started, limits.delay(delay), limits.order(body));
        return Created.order(MODE, result);
    }

    @GET
    @Path("/orders/{id}")
    public Result order(@PathParam("id") String id) {
        Started started = Started.now(MODE);
        return scenarios.order(started, limits.orderId(id));
    }

    @GET
    @Path("/cpu")
    public Result cpu(@QueryParam("n") @DefaultValue("100000") String n) {
        Started started = Started.now(MODE);
        return scenarios.cpu(started, limits.n(n));
    }

    @GET
    @Path("/pinning")
    public Result pinning(@QueryParam("delay") @DefaultValue("100") String delay,
            @QueryParam("lock") @DefaultValue("synchronized") String lock) {
        Started started = Started.now(MODE);
        return scenarios.pinning(started, limits.delay(delay), limits.lock(lock));
    }
}
