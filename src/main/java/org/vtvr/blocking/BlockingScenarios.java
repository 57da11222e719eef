package org.vtvr.blocking;

import io.quarkus.virtual.threads.VirtualThreads;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.context.ManagedExecutor;
import org.vtvr.data.OrmRepository;
import org.vtvr.data.PurchaseOrder;
import org.vtvr.delay.DelayGateway;
import org.vtvr.scenario.BenchConfig;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.NotFoundProblem;
import org.vtvr.scenario.OrderRequest;
import org.vtvr.scenario.Primes;
import org.vtvr.scenario.Result;
import org.vtvr.scenario.Started;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.IntStream;

/**
 * Every scenario written once in plain blocking code (blocking REST client, Hibernate ORM over JDBC). The
 * virtual and worker modes both run exactly this; only the thread that calls it differs.
 */
@ApplicationScoped
public class BlockingScenarios {

    @Inject
    DelayGateway delay;

    @Inject
    OrmRepository repository;

    @Inject
    BenchConfig config;

    @Inject
    @VirtualThreads
    ExecutorService virtualThreads;

    @Inject
    ManagedExecutor workerPool;

    public Result io(Started started, int delayMs, int calls) {
        for (int i = 0; i < calls; i++) {
            delay.call(delayMs);
        }
        return started.result("io").withDelay(delayMs, calls);
    }

    /** The calls run concurrently on the request's own kind of thread: virtual threads, or the worker pool. */
    public Result fanout(Started started, int delayMs, int calls) {
        ExecutorService executor = started.mode() == Mode.VIRTUAL ? virtualThreads : workerPool;
        List<CompletableFuture<Integer>> futures = IntStream.range(0, calls)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> delay.call(delayMs), executor))
                .toList();
        try {
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                    .get(config.fanoutTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            futures.forEach(f -> f.cancel(true));
            throw DelayGateway.timedOut(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw DelayGateway.timedOut(e);
        }
        return started.result("fanout").withDelay(delayMs, calls);
    }

    /** Reads one after another, as in the reactive mode. */
    public Result db(Started started, int queries) {
        long checksum = 0;
        for (int i = 0; i < queries; i++) {
            checksum += repository.itemPrice(randomItemId());
        }
        return started.result("db").withQueries(queries, checksum);
    }

    public Result slowQuery(Started started, int delayMs) {
        repository.sleep(delayMs);
        return started.result("slow-query").withDelay(delayMs, null);
    }

    /** Payment, then stock (two delay calls), then the order row in its own transaction. */
    public Result checkout(Started started, int delayMs, OrderRequest request) {
        delay.call(delayMs);
        delay.call(delayMs);
        PurchaseOrder order = repository.save(PurchaseOrder.from(request, started.mode()));
        return started.result("checkout").withDelay(delayMs, 2).withOrder(order.view());
    }

    public Result order(Started started, long id) {
        PurchaseOrder order = repository.findOrder(id).orElseThrow(() -> new NotFoundProblem("no order with id " + id));
        return started.result("order").withOrder(order.view());
    }

    public Result cpu(Started started, int n) {
        return started.result("cpu").withPrimes(n, Primes.countUpTo(n));
    }

    /**
     * Blocks inside a per-request monitor (or lock), so there is no contention: only pinning can make a difference.
     * Before JDK 24 (JEP 491) a virtual thread parked inside {@code synchronized} pins its carrier.
     */
    public Result pinning(Started started, int delayMs, String lock) {
        if ("synchronized".equals(lock)) {
            Object monitor = new Object();
            synchronized (monitor) {
                delay.call(delayMs);
            }
        } else {
            ReentrantLock reentrant = new ReentrantLock();
            reentrant.lock();
            try {
                delay.call(delayMs);
            } finally {
                reentrant.unlock();
            }
        }
        return started.result("pinning").withDelay(delayMs, 1).withLock(lock);
    }

    private long randomItemId() {
        return ThreadLocalRandom.current().nextLong(1, config.rows() + 1L);
    }
}
