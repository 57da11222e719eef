package org.vtvr.floor;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import org.vtvr.limits.Deadline;
import org.vtvr.limits.Limits;
import org.vtvr.scenario.Scenario;

import java.util.ArrayList;
import java.util.List;

import static org.vtvr.scenario.Param.CALLS;
import static org.vtvr.scenario.Param.DELAY;
import static org.vtvr.scenario.Param.FANOUT_CALLS;
import static org.vtvr.scenario.Scenario.FANOUT;
import static org.vtvr.scenario.Scenario.IO;

/**
 * io and fanout as the floor serves them, for any Vert.x server on its event loop: the input rules ({@link Limits}),
 * the deadline, the delay calls ({@link FloorDelayClient}) and the answer. The app's plain routes ({@link FloorRoutes})
 * and the bare Vert.x process ({@code bare.BareVertx}) both serve through it, so what differs between them is only
 * what is around it (docs/floor.md).
 */
public final class FloorWork {

    /** The scenarios it serves, both {@code GET}. */
    public static final List<Scenario> SCENARIOS = List.of(IO, FANOUT);

    private final String series;
    private final Limits limits;
    private final FloorDelayClient client;

    public FloorWork(String series, Limits limits, FloorDelayClient client) {
        this.series = series;
        this.limits = limits;
        this.client = client;
    }

    /**
     * The answer to one request of {@code scenario} with its raw {@code delay} and {@code calls} (null: the default);
     * bad input throws its {@code ProblemException} here, before any call. io's calls run one after another, fanout's
     * all at once, the first failure failing the request and resetting the others.
     */
    public Future<JsonObject> serve(Scenario scenario, String delayRaw, String callsRaw, FloorDelayClient.Open open) {
        long start = System.nanoTime();
        Thread thread = Thread.currentThread();
        int delay = limits.number(scenario, DELAY, delayRaw);
        Future<?> done;
        int calls;
        if (scenario == IO) {
            calls = limits.number(IO, CALLS, callsRaw);
            Deadline deadline = limits.deadline(IO, start, (long) calls * delay);
            Future<Integer> chain = Future.succeededFuture(0);
            for (int i = 0; i < calls; i++) {
                chain = chain.compose(previous -> client.call(delay, deadline, open));
            }
            done = chain;
        } else if (scenario == FANOUT) {
            calls = limits.number(FANOUT, FANOUT_CALLS, callsRaw);
            Deadline deadline = limits.deadline(FANOUT, start, delay);
            List<Future<Integer>> all = new ArrayList<>(calls);
            for (int i = 0; i < calls; i++) {
                all.add(client.call(delay, deadline, open));
            }
            done = Future.all(all).onFailure(failed -> open.abort());
        } else {
            throw new IllegalArgumentException(scenario + " is not served by " + series);
        }
        return done.map(ignored -> answer(series, scenario, thread, start, delay, calls));
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
