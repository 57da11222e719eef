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
    LOCK(Keys.LOCK, List.of("synchronized", "reentrant"));

    /** The names, as constants for the resources' {@code @QueryParam} and {@code @PathParam} annotations. */
    public static final class Keys {
        public static final String DELAY = "delay";
        public static final String CALLS = "calls";
        public static final String QUERIES = "queries";
        public static final String N = "n";
        public static final String ID = "id";
        public static final String LOCK = "lock";

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

    /** The {@code bench.*} setting of the largest accepted value; null for an unbounded number or a word. */
    public String maxSetting() {
        return maxSetting;
    }

    /** The largest accepted value under {@code config}; {@code Long.MAX_VALUE} for an unbounded number. */
    public long max(BenchConfig config) {
        return max == null ? Long.MAX_VALUE : max.applyAsInt(config);
    }

    /** The words a word parameter accepts; empty for a number. */
    public List<String> choices() {
        return choices;
    }
}
