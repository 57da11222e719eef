package org.vtvr.floor;

import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.vtvr.config.BenchConfig;
import org.vtvr.limits.Deadline;
import org.vtvr.limits.Limits;
import org.vtvr.scenario.Param.Keys;
import org.vtvr.scenario.Scenario;

import java.util.ArrayList;
import java.util.List;

import static org.vtvr.scenario.Param.CALLS;
import static org.vtvr.scenario.Param.DELAY;
import static org.vtvr.scenario.Param.FANOUT_CALLS;
import static org.vtvr.scenario.Scenario.FANOUT;
import static org.vtvr.scenario.Scenario.IO;

/**
 * The floor series, {@code /floor/io} and {@code /floor/fanout}: plain Vert.x routes on the event loop calling the
 * delay service with a bare Vert.x client ({@link FloorDelayClient}); no REST layer, no Mutiny, no request gate, no
 * per-call timer, the answer a Vert.x {@code JsonObject} rather than the {@code Result} record. The same input rules
 * ({@link Limits}), deadline, delay calls and answer fields as the modes, so what a mode costs above it is what its
 * framework layers and its threading model add (docs/floor.md). Failures answer through {@code HttpLimits}' failure
 * handler as the same problem+json.
 */
@ApplicationScoped
public class FloorRoutes {

    /** The series' name: the first path segment and the answer's {@code mode}. */
    public static final String SERIES = "floor";

    /** The scenarios it serves, both {@code GET}. */
    public static final List<Scenario> SCENARIOS = List.of(IO, FANOUT);

    private Limits limits;
    private FloorDelayClient client;

    void install(@Observes Router router, Limits limits, FloorDelayClient client, BenchConfig config) {
        if (!config.serveModes()) {
            return;   // the delay-only profile serves /delay alone
        }
        this.limits = limits;
        this.client = client;
        for (Scenario scenario : SCENARIOS) {
            String path = "/" + SERIES + scenario.path();
            router.route(path).method(HttpMethod.GET).method(HttpMethod.HEAD)
                    .handler(scenario == IO ? this::io : this::fanout);
            // as for the modes' paths: 405 with Allow (HttpLimits) for other methods; OPTIONS is contract.OptionsAnswer's
            router.route(path).handler(rc -> rc.fail(405));
        }
    }

    private void io(RoutingContext rc) {
        long start = System.nanoTime();
        int delay = limits.number(IO, DELAY, rc.request().getParam(Keys.DELAY));
        int calls = limits.number(IO, CALLS, rc.request().getParam(Keys.CALLS));
        Deadline deadline = limits.deadline(IO, start, (long) calls * delay);
        FloorDelayClient.Open open = openCalls(rc);
        Future<Integer> chain = Future.succeededFuture(0);
        for (int i = 0; i < calls; i++) {
            chain = chain.compose(previous -> client.call(delay, deadline, open));
        }
        answer(rc, chain, IO, start, delay, calls);
    }

    /** The calls run concurrently; the first failure fails the request and resets the others. */
    private void fanout(RoutingContext rc) {
        long start = System.nanoTime();
        int delay = limits.number(FANOUT, DELAY, rc.request().getParam(Keys.DELAY));
        int calls = limits.number(FANOUT, FANOUT_CALLS, rc.request().getParam(Keys.CALLS));
        Deadline deadline = limits.deadline(FANOUT, start, delay);
        FloorDelayClient.Open open = openCalls(rc);
        List<Future<Integer>> all = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            all.add(client.call(delay, deadline, open));
        }
        answer(rc, Future.all(all).onFailure(failed -> open.abort()), FANOUT, start, delay, calls);
    }

    /** The request's open calls, reset when its client hangs up before the answer, as the modes' calls are. */
    private static FloorDelayClient.Open openCalls(RoutingContext rc) {
        FloorDelayClient.Open open = new FloorDelayClient.Open();
        rc.addEndHandler(ended -> {
            if (ended.failed()) {
                open.abort();
            }
        });
        return open;
    }

    private static void answer(RoutingContext rc, Future<?> done, Scenario scenario, long start, int delay, int calls) {
        Thread thread = Thread.currentThread();
        done.onComplete(result -> {
            if (result.failed()) {
                rc.fail(result.cause());
            } else {
                rc.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                        .end(answer(SERIES, scenario, thread, start, delay, calls).toBuffer());
            }
        });
    }

    /**
     * The fields of {@code api.Result} for io and fanout, in its order (FloorTest compares them), as a map rather than
     * the record; {@code series} is the answer's {@code mode}.
     */
    public static JsonObject answer(String series, Scenario scenario, Thread thread, long start, int delay, int calls) {
        return new JsonObject()
                .put("mode", series)
                .put("scenario", scenario.id())
                .put("thread", thread.getName())
                .put("virtual", thread.isVirtual())
                .put("elapsedMs", (System.nanoTime() - start) / 1_000_000)
                .put("delay", delay)
                .put("calls", calls);
    }
}
