package org.vtvr.virtual;

import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.RestResponse;
import org.vtvr.api.OrderRequest;
import org.vtvr.api.Result;
import org.vtvr.blocking.BlockingScenarios;
import org.vtvr.http.Served;
import org.vtvr.limits.Limits;
import org.vtvr.scenario.Created;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Param.Keys;
import org.vtvr.scenario.Scenario.Paths;
import org.vtvr.http.Started;
import org.vtvr.scenario.Workload;

import static org.vtvr.scenario.Param.CALLS;
import static org.vtvr.scenario.Param.DELAY;
import static org.vtvr.scenario.Param.FANOUT_CALLS;
import static org.vtvr.scenario.Param.INSERT;
import static org.vtvr.scenario.Param.LOCK;
import static org.vtvr.scenario.Param.N;
import static org.vtvr.scenario.Param.QUERIES;
import static org.vtvr.scenario.Param.WORKLOAD_CALLS;
import static org.vtvr.scenario.Param.WORKLOAD_CPU;
import static org.vtvr.scenario.Param.WORKLOAD_FANOUT;
import static org.vtvr.scenario.Param.WORKLOAD_QUERIES;
import static org.vtvr.scenario.Scenario.CHECKOUT;
import static org.vtvr.scenario.Scenario.CPU;
import static org.vtvr.scenario.Scenario.DB;
import static org.vtvr.scenario.Scenario.FANOUT;
import static org.vtvr.scenario.Scenario.IO;
import static org.vtvr.scenario.Scenario.ORDER;
import static org.vtvr.scenario.Scenario.PINNING;
import static org.vtvr.scenario.Scenario.SLOW_QUERY;
import static org.vtvr.scenario.Scenario.WORKLOAD;

/**
 * The blocking scenarios, each request on a new virtual thread.
 *
 * <p>{@code VirtualResource} and {@code WorkerResource} are the same file but for the threading annotation: both
 * delegate every endpoint to {@link BlockingScenarios}. They cannot share a base class, because Quarkus REST reads
 * the threading annotation from the class that declares each endpoint method (EndpointIndexer#getInheritableAnnotation).
 * Parameters, their bounds and defaults come from the scenario catalogue ({@code Scenario}, {@code Param}).
 */
@Path("/virtual")
@Produces(MediaType.APPLICATION_JSON)
@RunOnVirtualThread
@Served
public class VirtualResource {

    private static final Mode MODE = Mode.VIRTUAL;

    @Inject
    BlockingScenarios scenarios;

    @Inject
    Limits limits;

    @GET
    @Path(Paths.IO)
    public Result io(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Started started = Started.now(MODE, IO);
        return scenarios.io(started, limits.number(IO, DELAY, delay), limits.number(IO, CALLS, calls));
    }

    @GET
    @Path(Paths.FANOUT)
    public Result fanout(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Started started = Started.now(MODE, FANOUT);
        return scenarios.fanout(started, limits.number(FANOUT, DELAY, delay),
                limits.number(FANOUT, FANOUT_CALLS, calls));
    }

    @GET
    @Path(Paths.DB)
    public Result db(@QueryParam(Keys.QUERIES) String queries) {
        Started started = Started.now(MODE, DB);
        return scenarios.db(started, limits.number(DB, QUERIES, queries));
    }

    @GET
    @Path(Paths.SLOW_QUERY)
    public Result slowQuery(@QueryParam(Keys.DELAY) String delay) {
        Started started = Started.now(MODE, SLOW_QUERY);
        return scenarios.slowQuery(started, limits.number(SLOW_QUERY, DELAY, delay));
    }

    @POST
    @Path(Paths.CHECKOUT)
    @Consumes(MediaType.APPLICATION_JSON)
    public RestResponse<Result> checkout(@QueryParam(Keys.DELAY) String delay, OrderRequest body) {
        Started started = Started.now(MODE, CHECKOUT);
        return Created.order(scenarios.checkout(started, limits.number(CHECKOUT, DELAY, delay), limits.order(body)));
    }

    @GET
    @Path(Paths.ORDER)
    public Result order(@PathParam(Keys.ID) String id) {
        Started started = Started.now(MODE, ORDER);
        return scenarios.order(started, limits.orderId(id));
    }

    @GET
    @Path(Paths.CPU)
    public Result cpu(@QueryParam(Keys.N) String n) {
        Started started = Started.now(MODE, CPU);
        return scenarios.cpu(started, limits.number(CPU, N, n));
    }

    @GET
    @Path(Paths.PINNING)
    public Result pinning(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.LOCK) String lock) {
        Started started = Started.now(MODE, PINNING);
        return scenarios.pinning(started, limits.number(PINNING, DELAY, delay), limits.word(PINNING, LOCK, lock));
    }

    @GET
    @Path(Paths.WORKLOAD)
    public Result workload(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls,
            @QueryParam(Keys.FANOUT) String fanout, @QueryParam(Keys.QUERIES) String queries,
            @QueryParam(Keys.CPU) String cpu, @QueryParam(Keys.INSERT) String insert) {
        Started started = Started.now(MODE, WORKLOAD);
        return scenarios.workload(started, new Workload(limits.number(WORKLOAD, DELAY, delay),
                limits.number(WORKLOAD, WORKLOAD_CALLS, calls), limits.number(WORKLOAD, WORKLOAD_FANOUT, fanout),
                limits.number(WORKLOAD, WORKLOAD_QUERIES, queries), limits.number(WORKLOAD, WORKLOAD_CPU, cpu),
                limits.number(WORKLOAD, INSERT, insert) == 1));
    }
}
