package org.vtvr.reactive;

import io.smallrye.mutiny.Uni;
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
import static org.vtvr.scenario.Scenario.SLOW_QUERY;
import static org.vtvr.scenario.Scenario.WORKLOAD;

/**
 * The scenarios on the Vert.x event loop: methods return {@code Uni}, so Quarkus REST never moves them to a
 * worker thread. Same paths, parameters and JSON as the blocking modes, from the same catalogue ({@code Scenario});
 * no pinning scenario (no monitors here).
 */
@Path("/reactive")
@Produces(MediaType.APPLICATION_JSON)
@Served
public class ReactiveResource {

    private static final Mode MODE = Mode.REACTIVE;

    @Inject
    ReactiveScenarios scenarios;

    @Inject
    Limits limits;

    @GET
    @Path(Paths.IO)
    public Uni<Result> io(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Started started = Started.now(MODE, IO);
        return scenarios.io(started, limits.number(IO, DELAY, delay), limits.number(IO, CALLS, calls));
    }

    @GET
    @Path(Paths.FANOUT)
    public Uni<Result> fanout(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Started started = Started.now(MODE, FANOUT);
        return scenarios.fanout(started, limits.number(FANOUT, DELAY, delay),
                limits.number(FANOUT, FANOUT_CALLS, calls));
    }

    @GET
    @Path(Paths.DB)
    public Uni<Result> db(@QueryParam(Keys.QUERIES) String queries) {
        Started started = Started.now(MODE, DB);
        return scenarios.db(started, limits.number(DB, QUERIES, queries));
    }

    @GET
    @Path(Paths.SLOW_QUERY)
    public Uni<Result> slowQuery(@QueryParam(Keys.DELAY) String delay) {
        Started started = Started.now(MODE, SLOW_QUERY);
        return scenarios.slowQuery(started, limits.number(SLOW_QUERY, DELAY, delay));
    }

    @POST
    @Path(Paths.CHECKOUT)
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<RestResponse<Result>> checkout(@QueryParam(Keys.DELAY) String delay, OrderRequest body) {
        Started started = Started.now(MODE, CHECKOUT);
        return scenarios.checkout(started, limits.number(CHECKOUT, DELAY, delay), limits.order(body)).map(Created::order);
    }

    @GET
    @Path(Paths.ORDER)
    public Uni<Result> order(@PathParam(Keys.ID) String id) {
        Started started = Started.now(MODE, ORDER);
        return scenarios.order(started, limits.orderId(id));
    }

    @GET
    @Path(Paths.CPU)
    public Uni<Result> cpu(@QueryParam(Keys.N) String n) {
        Started started = Started.now(MODE, CPU);
        return scenarios.cpu(started, limits.nOnEventLoop(CPU, N, n));
    }

    @GET
    @Path(Paths.WORKLOAD)
    public Uni<Result> workload(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls,
            @QueryParam(Keys.FANOUT) String fanout, @QueryParam(Keys.QUERIES) String queries,
            @QueryParam(Keys.CPU) String cpu, @QueryParam(Keys.INSERT) String insert) {
        Started started = Started.now(MODE, WORKLOAD);
        return scenarios.workload(started, new Workload(limits.number(WORKLOAD, DELAY, delay),
                limits.number(WORKLOAD, WORKLOAD_CALLS, calls), limits.number(WORKLOAD, WORKLOAD_FANOUT, fanout),
                limits.number(WORKLOAD, WORKLOAD_QUERIES, queries), limits.nOnEventLoop(WORKLOAD, WORKLOAD_CPU, cpu),
                limits.number(WORKLOAD, INSERT, insert) == 1));
    }
}
