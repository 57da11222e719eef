package org.vtvr.reactive;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.vtvr.data.PurchaseOrder;
import org.vtvr.data.ReactiveRepository;
import org.vtvr.delay.DelayGateway;
import org.vtvr.scenario.BenchConfig;
import org.vtvr.scenario.NotFoundProblem;
import org.vtvr.scenario.OrderRequest;
import org.vtvr.scenario.Primes;
import org.vtvr.scenario.Result;
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

    public Uni<Result> io(Started started, int delayMs, int calls) {
        Uni<Integer> chain = Uni.createFrom().item(0);
        for (int i = 0; i < calls; i++) {
            chain = chain.flatMap(previous -> delay.callAsync(delayMs));
        }
        return chain.map(last -> started.result("io").withDelay(delayMs, calls));
    }

    public Uni<Result> fanout(Started started, int delayMs, int calls) {
        List<Uni<Integer>> all = IntStream.range(0, calls).mapToObj(i -> delay.callAsync(delayMs)).toList();
        return Uni.join().all(all).andFailFast()
                .ifNoItem().after(config.fanoutTimeout()).failWith(() -> DelayGateway.timedOut(null))
                .map(replies -> started.result("fanout").withDelay(delayMs, calls));
    }

    public Uni<Result> db(Started started, int queries) {
        return Panache.withSession(() -> {
            Uni<Long> checksum = Uni.createFrom().item(0L);
            for (int i = 0; i < queries; i++) {
                checksum = checksum.flatMap(sum -> repository.itemPrice(randomItemId()).map(price -> sum + price));
            }
            return checksum;
        }).map(checksum -> started.result("db").withQueries(queries, checksum));
    }

    public Uni<Result> slowQuery(Started started, int delayMs) {
        return repository.sleep(delayMs).map(ignored -> started.result("slow-query").withDelay(delayMs, null));
    }

    public Uni<Result> checkout(Started started, int delayMs, OrderRequest request) {
        return delay.callAsync(delayMs)
                .flatMap(payment -> delay.callAsync(delayMs))
                .flatMap(stock -> repository.save(PurchaseOrder.from(request, started.mode())))
                .map(order -> started.result("checkout").withDelay(delayMs, 2).withOrder(order.view()));
    }

    public Uni<Result> order(Started started, long id) {
        return repository.findOrder(id)
                .onItem().ifNull().failWith(() -> new NotFoundProblem("no order with id " + id))
                .map(order -> started.result("order").withOrder(order.view()));
    }

    /** Runs on the event loop on purpose: this is what CPU-bound work costs a reactive service. */
    public Uni<Result> cpu(Started started, int n) {
        return Uni.createFrom().item(() -> started.result("cpu").withPrimes(n, Primes.countUpTo(n)));
    }

    private long randomItemId() {
        return ThreadLocalRandom.current().nextLong(1, config.rows() + 1L);
    }
}
