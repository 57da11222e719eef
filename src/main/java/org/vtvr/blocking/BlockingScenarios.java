package org.vtvr.blocking;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.vtvr.api.OrderRequest;
import org.vtvr.api.Result;
import org.vtvr.api.Result.Outcome;
import org.vtvr.config.BenchConfig;
import org.vtvr.cpu.Primes;
import org.vtvr.data.OrmRepository;
import org.vtvr.data.PurchaseOrder;
import org.vtvr.delay.client.DelayGateway;
import org.vtvr.error.ProblemType;
import org.vtvr.limits.Deadline;
import org.vtvr.limits.Limits;
import org.vtvr.http.Started;
import org.vtvr.scenario.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Every scenario written once in plain blocking code (blocking REST client, Hibernate ORM over JDBC). The virtual and
 * worker modes both run exactly this, on the thread their resource runs on; fanout's calls run where the mode's
 * {@link org.vtvr.scenario.Mode.FanOut} says ({@link FanoutPool}).
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
    Limits limits;

    @Inject
    FanoutPool fanoutPool;

    public Result io(Started started, int delayMs, int calls) {
        sequentialCalls(delayMs, calls, limits.deadline(started, (long) calls * delayMs));
        return started.result(Outcome.waited(delayMs, calls));
    }

    public Result fanout(Started started, int delayMs, int calls) {
        concurrentCalls(started, delayMs, calls, limits.deadline(started, delayMs));
        return started.result(Outcome.waited(delayMs, calls));
    }

    public Result db(Started started, int queries) {
        return started.result(Outcome.read(queries, reads(queries)));
    }

    public Result slowQuery(Started started, int delayMs) {
        limits.fitsSocketTimeout(delayMs);
        repository.sleep(delayMs);
        return started.result(Outcome.waited(delayMs, null));
    }

    /** Payment, then stock (two delay calls), then the order row in its own transaction. */
    public Result checkout(Started started, int delayMs, OrderRequest request) {
        sequentialCalls(delayMs, 2, limits.deadline(started, 2L * delayMs));
        return started.result(Outcome.ordered(delayMs, insert(started, request).view()));
    }

    public Result order(Started started, long id) {
        PurchaseOrder order = repository.findOrder(id)
                .orElseThrow(() -> ProblemType.NOT_FOUND.exception("no order with id " + id));
        return started.result(Outcome.found(order.view()));
    }

    public Result cpu(Started started, int n) {
        return started.result(Outcome.counted(n, Primes.countUpTo(n)));
    }

    /** io's, fanout's, db's, cpu's and checkout's steps, in that order, each as its own scenario runs it. */
    public Result workload(Started started, Workload plan) {
        Deadline deadline = limits.deadline(started, plan.plannedMs());
        sequentialCalls(plan.delay(), plan.calls(), deadline);
        concurrentCalls(started, plan.delay(), plan.fanout(), deadline);
        long checksum = reads(plan.queries());
        int primes = Primes.countUpTo(plan.cpu());
        Long orderId = plan.insert() ? insert(started, Workload.ORDER).id : null;
        return started.result(Outcome.worked(plan.delay(), plan.calls(), plan.fanout(), plan.queries(), checksum,
                plan.cpu(), primes, orderId));
    }

    /**
     * Blocks inside a per-request monitor (or lock), so there is no contention: only pinning can make a difference.
     * Before JDK 24 (JEP 491) a virtual thread parked inside {@code synchronized} pins its carrier.
     */
    public Result pinning(Started started, int delayMs, String lock) {
        Deadline deadline = limits.deadline(started, delayMs);
        if ("synchronized".equals(lock)) {
            Object monitor = new Object();
            synchronized (monitor) {
                delay.call(delayMs, deadline);
            }
        } else {
            ReentrantLock reentrant = new ReentrantLock();
            reentrant.lock();
            try {
                delay.call(delayMs, deadline);
            } finally {
                reentrant.unlock();
            }
        }
        return started.result(Outcome.locked(delayMs, lock));
    }

    private void sequentialCalls(int delayMs, int calls, Deadline deadline) {
        for (int i = 0; i < calls; i++) {
            delay.call(delayMs, deadline);
        }
    }

    /** The calls run concurrently; the first failure fails the request and interrupts the other calls, which aborts them. */
    private void concurrentCalls(Started started, int delayMs, int calls, Deadline deadline) {
        if (calls == 0) {
            return;
        }
        CompletionService<Integer> done = new ExecutorCompletionService<>(fanoutPool.executor(started.mode(), calls));
        List<Future<Integer>> futures = new ArrayList<>(calls);
        try {
            for (int i = 0; i < calls; i++) {
                futures.add(done.submit(() -> delay.call(delayMs, deadline)));
            }
            for (int i = 0; i < calls; i++) {
                Future<Integer> next = done.poll(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
                if (next == null) {
                    throw DelayGateway.timedOut(null);
                }
                next.get();
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw DelayGateway.timedOut(e);
        } finally {
            futures.forEach(f -> f.cancel(true));
        }
    }

    /** Reads one after another, as in the reactive mode; the sum of the prices read. */
    private long reads(int queries) {
        long checksum = 0;
        for (int i = 0; i < queries; i++) {
            checksum += repository.itemPrice(randomItemId());
        }
        return checksum;
    }

    /** One order row in its own transaction. */
    private PurchaseOrder insert(Started started, OrderRequest request) {
        return repository.save(PurchaseOrder.from(request, started.mode()));
    }

    private long randomItemId() {
        return ThreadLocalRandom.current().nextLong(1, config.rows() + 1L);
    }
}
