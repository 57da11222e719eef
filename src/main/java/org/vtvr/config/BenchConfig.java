package org.vtvr.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * Every {@code bench.*} setting, each with its default: input limits and scenario settings. docs/configuration.md
 * lists them (ConfigurationDocTest checks it); the scenario catalogue ({@code scenario.Param}) names the bound each
 * parameter is held to.
 */
@ConfigMapping(prefix = "bench")
public interface BenchConfig {

    /** Largest accepted {@code delay} in ms, for the delay service and every scenario that takes one. */
    @WithDefault("10000")
    int maxDelay();

    /** Largest accepted {@code calls} for io and workload (fanout has its own, {@code bench.max-fanout-calls}). */
    @WithDefault("1000")
    int maxCalls();

    /** Largest accepted {@code queries} for db and workload. */
    @WithDefault("500")
    int maxQueries();

    /** Largest accepted {@code n} for cpu, and {@code cpu} for workload. */
    @WithDefault("10000000")
    int maxN();

    /**
     * Largest accepted {@code n} for the reactive cpu scenario (and workload's {@code cpu}), which runs on the event
     * loop on purpose: 100,000 (the scenario's default n) is about 3 ms of CPU, so four clients looping on it leave the
     * other modes' HTTP traffic, carried by the same event loops, answering within 250 ms. Experiments E2 and E3 raise
     * it to their own n to show what larger kernels cost on the event loop (docs/hostile-clients.md).
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

    /**
     * Overall deadline of one request's delay-service work (io, fanout, orders, pinning, workload), counted from the
     * request's arrival: every call gives up, and is aborted at the delay service, when it passes, and the request
     * answers 504; a request still waiting for a thread then (the worker queue) is answered 504 at that moment.
     * Parameters whose planned delay (calls x delay for io, 2 x delay for orders, delay for fanout, pinning and
     * slow-query, calls x delay plus one delay if it fans out for workload) cannot fit it are refused up front with
     * 400.
     */
    @WithDefault("20s")
    Duration requestDeadline();

    /**
     * Largest accepted {@code calls} for fanout ({@code fanout} for workload): one request may hold at most this many
     * of the REST client's connections ({@code quarkus.rest-client.delay.connection-pool-size}, 1024) and fan-out
     * threads at once.
     */
    @WithDefault("100")
    int maxFanoutCalls();

    /**
     * Threads of the worker mode's own fan-out pool, which runs fanout's calls so they never queue on the request
     * pool ({@code quarkus.thread-pool.max-threads}). The virtual mode starts one virtual thread per call instead.
     */
    @WithDefault("200")
    int fanoutPoolSize();

    /** Calls that may wait for a fan-out thread; a fanout whose calls do not all fit is refused at once with 503. */
    @WithDefault("1000")
    int fanoutQueueSize();

    /**
     * Socket timeout of a database connection in ms, JDBC ({@code socketTimeout}) and reactive (idle timeout: no read or write)
     * alike: a database that stops answering (stalled process, network black hole) fails the statement with 503
     * after this long; slow-query refuses (400) a {@code delay} above this minus one second, which it could not finish.
     * The JDBC side was seen to wait up to twice this long in a stall (docs/equal-work.md), hence 6 s for a 15 s bound.
     */
    @WithDefault("6000")
    int dbSocketTimeoutMs();

    /**
     * The client the virtual and worker modes call the delay service with: {@code rest-client}, the Quarkus REST
     * client's blocking method (Vert.x does the I/O on an event loop while the caller waits), or {@code socket},
     * Apache HttpClient 5 classic (the caller blocks on the connection's own socket). Both read
     * {@code quarkus.rest-client.delay.*}; the reactive mode always uses the REST client's {@code Uni} method.
     */
    @WithDefault("rest-client")
    BlockingClient blockingClient();

    /**
     * Whether the REST client and the floor's Vert.x client call the delay service over cleartext HTTP/2 with prior
     * knowledge (h2c), many calls sharing one connection, instead of HTTP/1.1 (a connection per call in flight). The
     * socket client ({@code bench.blocking-client=socket}) speaks HTTP/1.1 only and ignores it (docs/scale.md).
     */
    @WithDefault("false")
    boolean delayHttp2();

    /**
     * How long the app may warm itself up before it reports ready: it sends every mode's io (calls of 0 ms) to its own
     * port until its JIT compilers used less than a tenth of a core in the last second, at most this long, and only
     * then answers UP on {@code /q/health/ready} (docs/faults.md "The first minute"). {@code 0s}: no warm-up, ready at
     * once; a native executable has no JIT and never warms up.
     */
    @WithDefault("0s")
    Duration warmUp();

    /** The values of {@code bench.blocking-client}. */
    enum BlockingClient {
        REST_CLIENT, SOCKET;

        /** The name as configured and as the {@code client} tag of {@code delay_client_calls_seconds}. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }
}
