package org.vtvr.vtnative;

import org.vtvr.api.Result;
import org.vtvr.api.Result.Outcome;
import org.vtvr.cpu.Primes;
import org.vtvr.limits.Deadline;
import org.vtvr.scenario.Param;
import org.vtvr.scenario.Scenario;
import org.vtvr.scenario.Workload;

import java.util.List;
import java.util.function.Function;

import static org.vtvr.scenario.Param.CALLS;
import static org.vtvr.scenario.Param.DELAY;
import static org.vtvr.scenario.Param.FANOUT_CALLS;
import static org.vtvr.scenario.Param.INSERT;
import static org.vtvr.scenario.Param.QUERIES;
import static org.vtvr.scenario.Param.WORKLOAD_CALLS;
import static org.vtvr.scenario.Param.WORKLOAD_CPU;
import static org.vtvr.scenario.Param.WORKLOAD_FANOUT;
import static org.vtvr.scenario.Param.WORKLOAD_QUERIES;
import static org.vtvr.scenario.Scenario.DB;
import static org.vtvr.scenario.Scenario.FANOUT;
import static org.vtvr.scenario.Scenario.IO;
import static org.vtvr.scenario.Scenario.WORKLOAD;

/**
 * io, fanout, db and workload as the app's {@code blocking.BlockingScenarios} runs them for the virtual mode, on the
 * request's own virtual thread: the same steps in the same order, the same answer ({@link Result}).
 */
final class Scenarios {

    /** The scenarios served, each {@code GET}. */
    static final List<Scenario> SERVED = List.of(IO, FANOUT, DB, WORKLOAD);

    private final String series;
    private final Inputs inputs;
    private final DelayCalls delay;
    private final Store store;

    Scenarios(String series, Inputs inputs, DelayCalls delay, Store store) {
        this.series = series;
        this.inputs = inputs;
        this.delay = delay;
        this.store = store;
    }

    /** The answer to {@code scenario} with its query parameters ({@code query.apply(name)}, null when absent). */
    Result serve(Scenario scenario, Function<String, String> query, long startNanos) {
        return switch (scenario) {
            case IO -> io(startNanos, number(IO, DELAY, query), number(IO, CALLS, query));
            case FANOUT -> fanout(startNanos, number(FANOUT, DELAY, query), number(FANOUT, FANOUT_CALLS, query));
            case DB -> db(startNanos, number(DB, QUERIES, query));
            case WORKLOAD -> workload(startNanos, new Workload(number(WORKLOAD, DELAY, query),
                    number(WORKLOAD, WORKLOAD_CALLS, query), number(WORKLOAD, WORKLOAD_FANOUT, query),
                    number(WORKLOAD, WORKLOAD_QUERIES, query), number(WORKLOAD, WORKLOAD_CPU, query),
                    number(WORKLOAD, INSERT, query) == 1));
            default -> throw new IllegalArgumentException(scenario + " is not served by " + series);
        };
    }

    private Result io(long start, int delayMs, int calls) {
        delay.sequential(delayMs, calls, inputs.deadline(IO, start, (long) calls * delayMs));
        return answer(IO, start, Outcome.waited(delayMs, calls));
    }

    private Result fanout(long start, int delayMs, int calls) {
        delay.concurrent(delayMs, calls, inputs.deadline(FANOUT, start, delayMs));
        return answer(FANOUT, start, Outcome.waited(delayMs, calls));
    }

    private Result db(long start, int queries) {
        return answer(DB, start, Outcome.read(queries, store.reads(queries)));
    }

    /** io's, fanout's, db's, cpu's and checkout's steps, in that order. */
    private Result workload(long start, Workload plan) {
        Deadline deadline = inputs.deadline(WORKLOAD, start, plan.plannedMs());
        delay.sequential(plan.delay(), plan.calls(), deadline);
        delay.concurrent(plan.delay(), plan.fanout(), deadline);
        long checksum = store.reads(plan.queries());
        int primes = Primes.countUpTo(plan.cpu());
        Long orderId = plan.insert() ? store.insert(Workload.ORDER, series) : null;
        return answer(WORKLOAD, start, Outcome.worked(plan.delay(), plan.calls(), plan.fanout(), plan.queries(),
                checksum, plan.cpu(), primes, orderId));
    }

    private int number(Scenario scenario, Param param, Function<String, String> query) {
        return inputs.number(scenario, param, query.apply(param.key()));
    }

    private Result answer(Scenario scenario, long start, Outcome outcome) {
        Thread thread = Thread.currentThread();
        return new Result(series, scenario.id(), thread.getName(), thread.isVirtual(),
                (System.nanoTime() - start) / 1_000_000, outcome);
    }
}
