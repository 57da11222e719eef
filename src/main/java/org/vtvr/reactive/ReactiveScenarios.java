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
import org.vtvr.scenario.Started;

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
        Deadline deadline = limits.deadline(started, (long) calls * delayMs);
        Uni<Integer> chain = Uni.createFrom().item(0);
        for (int i = 0; i < calls; i++) {
            chain = chain.flatMap(previous -> delay.callAsync(delayMs, deadline));
        }
        return chain.map(last -> started.result(Outcome.waited(delayMs, calls)));
    }

    /** The first failure fails the request and cancels the other calls' subscriptions, which aborts them. */
    public Uni<Result> fanout(Started started, int delayMs, int calls) {
        Deadline deadline = limits.deadline(started, delayMs);
        List<Uni<Integer>> all = IntStream.range(0, calls).mapToObj(i -> delay.callAsync(delayMs, deadline)).toList();
        return Uni.join().all(all).andFailFast()
                .map(replies -> started.result(Outcome.waited(delayMs, calls)));
    }

    /** Reads one after another, each in its own session and connection, as in the blocking modes (docs/equal-work.md). */
    public Uni<Result> db(Started started, int queries) {
        Uni<Long> checksum = Uni.createFrom().item(0L);
        for (int i = 0; i < queries; i++) {
            checksum = checksum.flatMap(sum -> repository.itemPrice(randomItemId()).map(price -> sum + price));
        }
        return checksum.map(sum -> started.result(Outcome.read(queries, sum)));
    }

    public Uni<Result> slowQuery(Started started, int delayMs) {
        limits.fitsSocketTimeout(delayMs);
        return repository.sleep(delayMs).map(ignored -> started.result(Outcome.waited(delayMs, null)));
    }

    public Uni<Result> checkout(Started started, int delayMs, OrderRequest request) {
        Deadline deadline = limits.deadline(started, 2L * delayMs);
        return delay.callAsync(delayMs, deadline)
                .flatMap(payment -> delay.callAsync(delayMs, deadline))
                .flatMap(stock -> repository.save(PurchaseOrder.from(request, started.mode())))
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

    private long randomItemId() {
        return ThreadLocalRandom.current().nextLong(1, config.rows() + 1L);
    }
}
