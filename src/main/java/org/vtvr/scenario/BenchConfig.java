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

    /**
     * Largest accepted {@code n} for the reactive cpu scenario, which runs on the event loop on purpose: 100,000 (the
     * scenario's default n) is about 3 ms of CPU, so four clients looping on it leave the other modes' HTTP traffic,
     * carried by the same event loops, answering within 250 ms. Experiments E2 and E3 raise it to their own n to show
     * what larger kernels cost on the event loop (docs/hostile-clients.md).
     */
    @WithDefault("100000")
    int maxNEventLoop();

    /**
     * Requests in progress per mode (the first path segment: virtual, worker, reactive), the same bound for each;
     * past it a request answers 503 problem at once. 5,000 is above the largest load the benchmark applies (3,000
     * concurrent hey users in E1), so no published figure meets it (docs/hostile-clients.md).
     */
    @WithDefault("5000")
    int maxInFlight();

    /** Longest request target (path and query) in characters; a longer one answers 414 problem. */
    @WithDefault("4096")
    int maxUriLength();

    /** Largest total size of the request headers (names and values) in bytes; past it 431 problem. */
    @WithDefault("16384")
    int maxHeaderSize();

    /** Whether the mode endpoints are served; false in the delay-only profile, where they answer 404 problem. */
    @WithDefault("true")
    boolean serveModes();

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
