package org.vtvr.blocking;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.virtual.threads.VirtualThreads;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.vtvr.config.BenchConfig;
import org.vtvr.error.ProblemType;
import org.vtvr.scenario.Mode;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a blocking mode's fan-out calls run, as its {@link Mode.FanOut} says: a new virtual thread each, or the worker
 * mode's own bounded pool ({@code bench.fanout-pool-size} threads, at most {@code bench.fanout-queue-size} calls
 * waiting), so a fan-out never takes the threads that serve requests.
 */
@ApplicationScoped
public class FanoutPool {

    @Inject
    BenchConfig config;

    @Inject
    MeterRegistry registry;

    @Inject
    @VirtualThreads
    ExecutorService virtualThreads;

    private ThreadPoolExecutor threads;

    /** One permit per call running or queued; a request reserves all its calls at once or none. */
    private Semaphore room;

    @PostConstruct
    void start() {
        AtomicInteger number = new AtomicInteger();
        int size = config.fanoutPoolSize();
        threads = new ThreadPoolExecutor(size, size, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, "fanout-thread-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        threads.allowCoreThreadTimeOut(true);
        room = new Semaphore(size + config.fanoutQueueSize());
        registry.gauge("fanout.pool.size", threads, ThreadPoolExecutor::getMaximumPoolSize);
        registry.gauge("fanout.pool.active", threads, ThreadPoolExecutor::getActiveCount);
        registry.gauge("fanout.pool.queued", threads, pool -> pool.getQueue().size());
    }

    @PreDestroy
    void stop() {
        threads.shutdownNow();
    }

    /** The executor for {@code calls} concurrent calls of one {@code mode} request. */
    public Executor executor(Mode mode, int calls) {
        return switch (mode.fanOut()) {
            case VIRTUAL_THREAD_PER_CALL -> virtualThreads;
            case BOUNDED_POOL -> reserve(calls);
            case SUBSCRIPTIONS -> throw new IllegalArgumentException(mode + " fans out without threads");
        };
    }

    /**
     * Reserves room for {@code calls} calls, or refuses the whole fan-out with 503 at once; the executor returned
     * takes exactly that many tasks, each giving its room back when it ends or, cancelled, is dropped.
     */
    private Executor reserve(int calls) {
        if (!room.tryAcquire(calls)) {
            throw ProblemType.OVERLOADED.exception("the fan-out pool cannot queue " + calls
                    + " more calls (bench.fanout-pool-size + bench.fanout-queue-size); retry later");
        }
        return task -> threads.execute(() -> {
            try {
                task.run();
            } finally {
                room.release();
            }
        });
    }
}
