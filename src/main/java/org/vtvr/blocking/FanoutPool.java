package org.vtvr.blocking;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.vtvr.config.BenchConfig;
import org.vtvr.delay.client.DelayGateway;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker mode's own bounded pool for fanout's calls ({@code bench.fanout-pool-size} threads, at most
 * {@code bench.fanout-queue-size} calls waiting), so a fan-out never takes the threads that serve requests.
 */
@ApplicationScoped
public class FanoutPool {

    @Inject
    BenchConfig config;

    @Inject
    MeterRegistry registry;

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

    /**
     * Reserves room for {@code calls} calls, or refuses the whole fan-out with 503 at once; the executor returned
     * takes exactly that many tasks, each giving its room back when it ends or, cancelled, is dropped.
     */
    public Executor reserve(int calls) {
        if (!room.tryAcquire(calls)) {
            throw DelayGateway.overloaded(new RejectedExecutionException("the fan-out pool cannot queue " + calls
                    + " more calls (bench.fanout-pool-size + bench.fanout-queue-size)"));
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
