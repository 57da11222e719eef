package org.vtvr.scenario;

import org.vtvr.config.BenchConfig;

import java.util.List;
import java.util.function.ToIntFunction;

/**
 * A request parameter of the scenarios: its name, its smallest value and the {@code bench.*} setting that holds its
 * largest, or the words it accepts; {@code Limits} checks every request against it and OpenAPI can read it.
 */
public enum Param {
    DELAY(Keys.DELAY, 0, "bench.max-delay", BenchConfig::maxDelay),
    CALLS(Keys.CALLS, 1, "bench.max-calls", BenchConfig::maxCalls),
    /** fanout's {@code calls}: all run at once, so a smaller share of the client's connections and fan-out threads. */
    FANOUT_CALLS(Keys.CALLS, 1, "bench.max-fanout-calls", BenchConfig::maxFanoutCalls),
    QUERIES(Keys.QUERIES, 1, "bench.max-queries", BenchConfig::maxQueries),
    /** cpu's {@code n}; the reactive mode, whose kernel runs on the event loop, also holds it to {@code bench.max-n-event-loop}. */
    N(Keys.N, 1, "bench.max-n", BenchConfig::maxN),
    /** A path parameter: any whole number, an unknown one answers 404. */
    ID(Keys.ID, Long.MIN_VALUE, null, null),
    LOCK(Keys.LOCK, List.of("synchronized", "reentrant")),
    /** workload's steps, each held to its scenario's bound (io, fanout, db, cpu); 0 leaves the step out. */
    WORKLOAD_CALLS(Keys.CALLS, 0, "bench.max-calls", BenchConfig::maxCalls),
    WORKLOAD_FANOUT(Keys.FANOUT, 0, "bench.max-fanout-calls", BenchConfig::maxFanoutCalls),
    WORKLOAD_QUERIES(Keys.QUERIES, 0, "bench.max-queries", BenchConfig::maxQueries),
    WORKLOAD_CPU(Keys.CPU, 0, "bench.max-n", BenchConfig::maxN),
    /** workload's last step: 1 writes one order row as checkout does, 0 none; a yes or no, so no setting. */
    INSERT(Keys.INSERT, 0, null, config -> 1);

    /** The names, as constants for the resources' {@code @QueryParam} and {@code @PathParam} annotations. */
    public static final class Keys {
        public static final String DELAY = "delay";
        public static final String CALLS = "calls";
        public static final String QUERIES = "queries";
        public static final String N = "n";
        public static final String ID = "id";
        public static final String LOCK = "lock";
        public static final String FANOUT = "fanout";
        public static final String CPU = "cpu";
        public static final String INSERT = "insert";

        private Keys() {
        }
    }

    private final String key;
    private final long min;
    private final String maxSetting;
    private final ToIntFunction<BenchConfig> max;
    private final List<String> choices;

    Param(String key, long min, String maxSetting, ToIntFunction<BenchConfig> max) {
        this.key = key;
        this.min = min;
        this.maxSetting = maxSetting;
        this.max = max;
        this.choices = List.of();
    }

    Param(String key, List<String> choices) {
        this.key = key;
        this.min = 0;
        this.maxSetting = null;
        this.max = null;
        this.choices = choices;
    }

    /** The name in the query string or path. */
    public String key() {
        return key;
    }

    public long min() {
        return min;
    }

    /** The {@code bench.*} setting of the largest accepted value; null for a fixed or no bound, or a word. */
    public String maxSetting() {
        return maxSetting;
    }

    /** Whether a number has a largest value (all but the order id). */
    public boolean bounded() {
        return max != null;
    }

    /** The largest accepted value under {@code config}; {@code Long.MAX_VALUE} for an unbounded number. */
    public long max(BenchConfig config) {
        return max == null ? Long.MAX_VALUE : max.applyAsInt(config);
    }

    /**
     * Whether it sizes the CPU kernel (cpu's n, workload's cpu): the reactive mode runs the kernel on the event loop,
     * so there it is also held to {@code bench.max-n-event-loop} ({@code Limits.nOnEventLoop}).
     */
    public boolean sizesKernel() {
        return this == N || this == WORKLOAD_CPU;
    }

    /** The words a word parameter accepts; empty for a number. */
    public List<String> choices() {
        return choices;
    }
}
