package org.vtvr.http;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;
import org.vtvr.config.BenchConfig;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Scenario;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code bench.warm-up}: a start-up that reports ready only once warm. With a bound above zero the app sends every
 * mode's io (one call of 0 ms) to its own port, {@link #CLIENTS} at a time, in rounds of a second, until its JIT
 * compilers used less than {@link #QUIET_SHARE} of a core in the last round (after {@link #MIN_ROUNDS} rounds) or the
 * bound has passed; meanwhile this readiness check answers DOWN. Measured with {@code load/compare.sh --experiment
 * coldstart} (docs/startup.md): a fresh app loaded from its first ready second queued for seconds without it.
 * A JVM without compilation-time monitoring (a native executable) has nothing to warm and is ready at once. The check
 * is asynchronous, as {@code data/DatabaseReadiness} is, so readiness answers while the worker pool is full
 * ({@code WorkerBoundTest}).
 */
@Readiness
@ApplicationScoped
public class WarmUp implements AsyncHealthCheck {

    static final int CLIENTS = 16;
    static final double QUIET_SHARE = 0.10;
    static final int MIN_ROUNDS = 3;
    private static final Logger LOG = Logger.getLogger(WarmUp.class);

    private volatile boolean warm;
    private final AtomicLong sent = new AtomicLong();
    private volatile long tookMs;

    void start(@Observes StartupEvent event, BenchConfig config, Config all) {
        Duration bound = config.warmUp();
        CompilationMXBean jit = bound.isZero() || bound.isNegative() ? null : compiler();
        if (jit == null) {
            warm = true;
            return;
        }
        String key = LaunchMode.current() == LaunchMode.TEST ? "quarkus.http.test-port" : "quarkus.http.port";
        int port = all.getValue(key, Integer.class);
        Thread.ofVirtual().name("warm-up").start(() -> run(port, bound, jit));
    }

    /** The JIT's compilation time, or null where there is none to read (a native executable). */
    private static CompilationMXBean compiler() {
        try {
            CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit : null;
        } catch (RuntimeException | Error e) {
            return null;
        }
    }

    private void run(int port, Duration bound, CompilationMXBean jit) {
        long t0 = System.nanoTime();
        List<URI> paths = Arrays.stream(Mode.values()).filter(Scenario.IO.modes()::contains)
                .map(mode -> URI.create("http://127.0.0.1:" + port + "/" + mode.path() + Scenario.IO.path() + "?delay=0"))
                .toList();
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            long end = t0 + bound.toNanos();
            int rounds = 0;
            double share = 1;
            while (System.nanoTime() < end && (rounds < MIN_ROUNDS || share >= QUIET_SHARE)) {
                long c0 = jit.getTotalCompilationTime();
                long r0 = System.nanoTime();
                long roundEnd = Math.min(end, r0 + TimeUnit.SECONDS.toNanos(1));
                for (int i = 0; i < CLIENTS; i++) {
                    int first = i;
                    clients.submit(() -> send(client, paths, first, roundEnd));
                }
                while (System.nanoTime() < roundEnd) {
                    Thread.sleep(Duration.ofMillis(50));
                }
                share = (jit.getTotalCompilationTime() - c0) / ((System.nanoTime() - r0) / 1e6);
                rounds++;
            }
            tookMs = (System.nanoTime() - t0) / 1_000_000;
            LOG.infof("warm-up: %d requests in %d ms, the JIT at %.0f %% of a core in the last second", sent.get(),
                    tookMs, 100 * share);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            warm = true;
        }
    }

    /** Requests one after the other, from path FIRST on, until END (System.nanoTime); a failed one counts too. */
    private void send(HttpClient client, List<URI> paths, int first, long end) {
        for (int i = first; System.nanoTime() < end; i++) {
            try {
                client.send(HttpRequest.newBuilder(paths.get(i % paths.size())).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                pause();       // not listening yet, or refused: try again shortly
            }
            sent.incrementAndGet();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(Duration.ofMillis(20));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Answered at once on the event loop: a blocking check would run on the worker pool, behind its queue. */
    @Override
    public Uni<HealthCheckResponse> call() {
        return Uni.createFrom().item(HealthCheckResponse.named("warm-up").status(warm).withData("requests", sent.get())
                .withData("tookMs", tookMs).build());
    }
}
