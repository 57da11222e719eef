package org.vtvr.ladder;

import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Future;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.vtvr.api.DelayReply;
import org.vtvr.api.Result;
import org.vtvr.blocking.BlockingScenarios;
import org.vtvr.delay.client.DelayClient;
import org.vtvr.delay.client.DelayGateway;
import org.vtvr.floor.FloorDelayClient;
import org.vtvr.floor.FloorWork;
import org.vtvr.limits.Deadline;
import org.vtvr.limits.Limits;
import org.vtvr.reactive.ReactiveScenarios;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Param.Keys;
import org.vtvr.scenario.Scenario;
import org.vtvr.http.Started;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.IntFunction;

import static org.vtvr.scenario.Param.CALLS;
import static org.vtvr.scenario.Param.DELAY;
import static org.vtvr.scenario.Scenario.IO;

/**
 * The cost ladder's app-side rungs (docs/floor.md): io served by each step between the floor series and a mode as
 * shipped, each rung one change from the one before. Not a product mode: no request gate (the modes' only
 * difference from the last rungs), in the scenario catalogue only as io's measurement series ({@code GET /scenarios}:
 * {@link #RUNGS}), and io only. Rungs answering before the last
 * write the floor's JSON ({@link FloorWork#answer}) with their own name as {@code mode}. A measurement tool, not
 * public API: left out of the OpenAPI document (mp.openapi.scan.exclude.classes), as the floor's routes are.
 */
@Path(LadderResource.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public class LadderResource {

    static final String ROOT = "/ladder";

    /** The rungs in ladder order (event loop, then virtual thread), as {@code GET /scenarios} lists their series. */
    public static final List<String> RUNGS = List.of("rest", "rest-client", "gateway", "reactive",
            "vt", "vt-rest-client", "vt-gateway", "virtual");

    /** The scenarios every rung serves. */
    public static final List<Scenario> SCENARIOS = List.of(IO);

    /** A rung's series name in the catalogue and the load harness: {@code ladder-<rung>}. */
    public static String series(String rung) {
        return "ladder-" + rung;
    }

    /** The path at which {@code rung} serves {@code scenario}. */
    public static String path(String rung, Scenario scenario) {
        return ROOT + "/" + rung + scenario.path();
    }

    /** Every rung's path, read from the endpoints themselves (error.AllowedMethods: their OPTIONS and 405 answers). */
    public static List<String> paths() {
        return Arrays.stream(LadderResource.class.getDeclaredMethods()).filter(m -> m.isAnnotationPresent(GET.class))
                .map(m -> ROOT + m.getAnnotation(Path.class).value()).sorted().toList();
    }

    @Inject
    Limits limits;

    @Inject
    FloorDelayClient floorClient;

    @Inject
    @RestClient
    DelayClient restClient;

    @Inject
    DelayGateway gateway;

    @Inject
    ReactiveScenarios reactive;

    @Inject
    BlockingScenarios blocking;

    /** Rung 1 (event loop): the floor's calls and answer behind a Quarkus REST endpoint instead of a plain route. */
    @GET
    @Path("/rest/io")
    public CompletionStage<String> rest(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Plan plan = plan("rest", delay, calls);
        FloorDelayClient.Open open = new FloorDelayClient.Open();
        Future<Integer> chain = Future.succeededFuture(0);
        for (int i = 0; i < plan.calls; i++) {
            chain = chain.compose(previous -> floorClient.call(plan.delay, plan.deadline, open));
        }
        return chain.map(last -> plan.answer()).toCompletionStage();
    }

    /** Rung 2 (event loop): + the REST client's {@code Uni} for the calls instead of the bare Vert.x client. */
    @GET
    @Path("/rest-client/io")
    public Uni<String> restClient(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Plan plan = plan("rest-client", delay, calls);
        return chain(plan, ms -> restClient.callAsync(ms).map(DelayReply::delay));
    }

    /** Rung 3 (event loop): + {@link DelayGateway} (deadline per call, failures as problems, the per-call timer). */
    @GET
    @Path("/gateway/io")
    public Uni<String> gateway(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Plan plan = plan("gateway", delay, calls);
        return chain(plan, ms -> gateway.callAsync(ms, plan.deadline));
    }

    /** Rung 4 (event loop): + the mode's code and answer ({@code Result} by Jackson): /reactive/io minus the gate. */
    @GET
    @Path("/reactive/io")
    public Uni<Result> reactive(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Started started = Started.now(Mode.REACTIVE, IO);
        return reactive.io(started, limits.number(IO, DELAY, delay), limits.number(IO, CALLS, calls));
    }

    /** Rung 1 (virtual thread): the floor's calls, awaited, behind a {@code @RunOnVirtualThread} endpoint. */
    @GET
    @Path("/vt/io")
    @RunOnVirtualThread
    public String vt(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Plan plan = plan("vt", delay, calls);
        FloorDelayClient.Open open = new FloorDelayClient.Open();
        for (int i = 0; i < plan.calls; i++) {
            await(floorClient.call(plan.delay, plan.deadline, open).toCompletionStage());
        }
        return plan.answer();
    }

    /** Rung 2 (virtual thread): + the REST client's {@code Uni} awaited instead of the bare Vert.x client. */
    @GET
    @Path("/vt-rest-client/io")
    @RunOnVirtualThread
    public String vtRestClient(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Plan plan = plan("vt-rest-client", delay, calls);
        for (int i = 0; i < plan.calls; i++) {
            await(restClient.callAsync(plan.delay).subscribeAsCompletionStage());
        }
        return plan.answer();
    }

    /** Rung 3 (virtual thread): + {@link DelayGateway}'s blocking call, the client set by bench.blocking-client. */
    @GET
    @Path("/vt-gateway/io")
    @RunOnVirtualThread
    public String vtGateway(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Plan plan = plan("vt-gateway", delay, calls);
        for (int i = 0; i < plan.calls; i++) {
            gateway.call(plan.delay, plan.deadline);
        }
        return plan.answer();
    }

    /** Rung 4 (virtual thread): + the mode's own code and answer: /virtual/io minus the gate. */
    @GET
    @Path("/virtual/io")
    @RunOnVirtualThread
    public Result virtual(@QueryParam(Keys.DELAY) String delay, @QueryParam(Keys.CALLS) String calls) {
        Started started = Started.now(Mode.VIRTUAL, IO);
        return blocking.io(started, limits.number(IO, DELAY, delay), limits.number(IO, CALLS, calls));
    }

    /** One io request's checked input and deadline, as the floor plans it. */
    private record Plan(String rung, long start, int delay, int calls, Deadline deadline) {

        String answer() {
            return FloorWork.answer(rung, IO, Thread.currentThread(), start, delay, calls).encode();
        }
    }

    private Plan plan(String rung, String delay, String calls) {
        long start = System.nanoTime();
        int delayMs = limits.number(IO, DELAY, delay);
        int n = limits.number(IO, CALLS, calls);
        return new Plan(rung, start, delayMs, n, limits.deadline(IO, start, (long) n * delayMs));
    }

    private static Uni<String> chain(Plan plan, IntFunction<Uni<Integer>> call) {
        Uni<Integer> chain = Uni.createFrom().item(0);
        for (int i = 0; i < plan.calls; i++) {
            chain = chain.flatMap(previous -> call.apply(plan.delay));
        }
        return chain.map(last -> plan.answer());
    }

    private static <T> T await(CompletionStage<T> call) {
        try {
            return call.toCompletableFuture().get();
        } catch (ExecutionException e) {
            throw DelayGateway.classify(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw DelayGateway.timedOut(e);
        }
    }
}
