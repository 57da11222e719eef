package org.vtvr.scenario;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** Input limits and scenario settings, all under {@code bench.*}; README's configuration table lists them. */
@ConfigMapping(prefix = "bench")
public interface BenchConfig {

    /** Largest accepted {@code delay} in ms, for the delay service and every scenario that takes one. */
    @WithDefault("10000")
    int maxDelay();

    /** Largest accepted {@code calls} for io and fanout. */
    @WithDefault("1000")
    int maxCalls();

    /** Largest accepted {@code queries} for db. */
    @WithDefault("500")
    int maxQueries();

    /** Largest accepted {@code n} for cpu. */
    @WithDefault("10000000")
    int maxN();

    /** Rows in the seeded {@code items} table; db reads random ids in 1..rows. */
    @WithDefault("10000")
    int rows();

    /** Whether start-up creates the missing seed rows (off for the delay-only profile, which has no database). */
    @WithDefault("true")
    boolean seed();

    /** Longest wait for a pooled database connection, JDBC and reactive alike; past it the request answers 503. */
    @WithDefault("3s")
    Duration dbAcquireTimeout();

    /** Upper bound on one fanout request waiting for its calls; past it the request answers 504. */
    @WithDefault("30s")
    Duration fanoutTimeout();
}
