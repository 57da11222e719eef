package org.vtvr.reactive;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.vtvr.api.OrderRequest;
import org.vtvr.api.Result;
import org.vtvr.api.Result.Outcome;
import org.vtvr.config.BenchConfig;
import org.vtvr.cpu.Primes;
import org.vtvr.data.PurchaseOrder;
import org.vtvr.data.ReactiveRepository;
import org.vtvr.delay.client.DelayGateway;
import org.vtvr.error.ProblemType;
import org.vtvr.limits.Deadline;
import org.vtvr.limits.Limits;
import org.vtvr.http.Started;
import org.vtvr.scenario.Workload;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/**
 * Every scenario as a {@code Uni} pipeline on the event loop (the {@code Uni} side of the REST client, Hibernate
 * Reactive), mirroring {@code BlockingScenarios} step for step and returning the same {@link Result}.
 */
@ApplicationScoped
public class ReactiveScenarios {

    @Inject
    DelayGateway delay;

    @Inject
    ReactiveRepository repository;

    @Inject
    BenchConfig config;

    @Inject
    Limits limits;

    public Uni<Result> io(Started started, int delayMs, int calls) {
        return sequentialCalls(delayMs, calls, limits.deadline(started, (long) calls * delayMs))
                .map(done -> started.result(Outcome.waited(delayMs, calls)));
    }

    public Uni<Result> fanout(Started started, int delayMs, int calls) {
        return concurrentCalls(delayMs, calls, limits.deadline(started, delayMs))
                .map(done -> started.result(Outcome.waited(delayMs, calls)));
    }

    public Uni<Result> db(Started started, int queries) {
        return reads(queries).map(sum -> started.result(Outcome.read(queries, sum)));
    }

    public Uni<Result> slowQuery(Started started, int delayMs) {
        limits.fitsSocketTimeout(delayMs);
        return repository.sleep(delayMs).map(ignored -> started.result(Outcome.waited(delayMs, null)));
    }

    public Uni<Result> checkout(Started started, int delayMs, OrderRequest request) {
        return sequentialCalls(delayMs, 2, limits.deadline(started, 2L * delayMs))
                .flatMap(paymentAndStock -> insert(started, request))
                .map(order -> started.result(Outcome.ordered(delayMs, order.view())));
    }

    public Uni<Result> order(Started started, long id) {
        return repository.findOrder(id)
                .onItem().ifNull().failWith(() -> ProblemType.NOT_FOUND.exception("no order with id " + id))
                .map(order -> started.result(Outcome.found(order.view())));
    }

    /** Runs on the event loop on purpose: this is what CPU-bound work costs a reactive service. */
    public Uni<Result> cpu(Started started, int n) {
        return Uni.createFrom().item(() -> started.result(Outcome.counted(n, Primes.countUpTo(n))));
    }

    /** The same steps in the same order as {@code BlockingScenarios}; the cpu step runs on the event loop, as cpu's. */
    public Uni<Result> workload(Started started, Workload plan) {
        Deadline deadline = limits.deadline(started, plan.plannedMs());
        return sequentialCalls(plan.delay(), plan.calls(), deadline)
                .flatMap(sequential -> concurrentCalls(plan.delay(), plan.fanout(), deadline))
                .flatMap(concurrent -> reads(plan.queries()))
                .flatMap(checksum -> {
                    int primes = Primes.countUpTo(plan.cpu());
                    Uni<Long> orderId = plan.insert() ? insert(started, Workload.ORDER).map(order -> order.id)
                            : Uni.createFrom().nullItem();
                    return orderId.map(id -> started.result(Outcome.worked(plan.delay(), plan.calls(), plan.fanout(),
                            plan.queries(), checksum, plan.cpu(), primes, id)));
                });
    }

    private Uni<Void> sequentialCalls(int delayMs, int calls, Deadline deadline) {
        Uni<Integer> chain = Uni.createFrom().item(0);
        for (int i = 0; i < calls; i++) {
            chain = chain.flatMap(previous -> delay.callAsync(delayMs, deadline));
        }
        return chain.replaceWithVoid();
    }

    /** The first failure fails the request and cancels the other calls' subscriptions, which aborts them. */
    private Uni<Void> concurrentCalls(int delayMs, int calls, Deadline deadline) {
        if (calls == 0) {
            return Uni.createFrom().voidItem();
        }
        List<Uni<Integer>> all = IntStream.range(0, calls).mapToObj(i -> delay.callAsync(delayMs, deadline)).toList();
        return Uni.join().all(all).andFailFast().replaceWithVoid();
    }

    /** Reads one after another, each in its own session and connection, as in the blocking modes (docs/equal-work.md). */
    private Uni<Long> reads(int queries) {
        Uni<Long> checksum = Uni.createFrom().item(0L);
        for (int i = 0; i < queries; i++) {
            checksum = checksum.flatMap(sum -> repository.itemPrice(randomItemId()).map(price -> sum + price));
        }
        return checksum;
    }

    private Uni<PurchaseOrder> insert(Started started, OrderRequest request) {
        return repository.save(PurchaseOrder.from(request, started.mode()));
    }

    private long randomItemId() {
        return ThreadLocalRandom.current().nextLong(1, config.rows() + 1L);
    }
}
