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

    /**
     * The client the virtual and worker modes call the delay service with: {@code rest-client}, the Quarkus REST
     * client's blocking method (Vert.x does the I/O on an event loop while the caller waits), or {@code socket},
     * Apache HttpClient 5 classic (the caller blocks on the connection's own socket). Both read
     * {@code quarkus.rest-client.delay.*}; the reactive mode always uses the REST client's {@code Uni} method.
     */
    @WithDefault("rest-client")
    BlockingClient blockingClient();

    /** The values of {@code bench.blocking-client}. */
    enum BlockingClient {
        REST_CLIENT, SOCKET;

        /** The name as configured and as the {@code client} tag of {@code delay_client_calls_seconds}. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }
}
