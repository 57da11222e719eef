package org.vtvr.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.vtvr.scenario.Mode;

/**
 * The one response shape of every scenario in every mode: who served it, how long it took, and the scenario's
 * own result fields (absent when a scenario has none).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Result(
        String mode,
        String scenario,
        String thread,
        boolean virtual,
        long elapsedMs,
        Integer delay,
        Integer calls,
        Integer queries,
        Long checksum,
        Integer n,
        Integer primes,
        String lock,
        Long orderId,
        Order order) {

    /** The order as stored, for the checkout scenario. */
    public record Order(long id, String customer, String sku, int quantity, String mode) {
    }

    /** A result for a request that started at {@code startNanos} on {@code servedBy}; add fields with the with* methods. */
    public static Result of(Mode mode, String scenario, Thread servedBy, long startNanos) {
        return new Result(mode.path(), scenario, servedBy.getName(), servedBy.isVirtual(),
                (System.nanoTime() - startNanos) / 1_000_000, null, null, null, null, null, null, null, null, null);
    }

    public Result withDelay(int delay, Integer calls) {
        return new Result(mode, scenario, thread, virtual, elapsedMs, delay, calls, queries, checksum, n, primes, lock, orderId, order);
    }

    public Result withQueries(int queries, long checksum) {
        return new Result(mode, scenario, thread, virtual, elapsedMs, delay, calls, queries, checksum, n, primes, lock, orderId, order);
    }

    public Result withPrimes(int n, int primes) {
        return new Result(mode, scenario, thread, virtual, elapsedMs, delay, calls, queries, checksum, n, primes, lock, orderId, order);
    }

    public Result withLock(String lock) {
        return new Result(mode, scenario, thread, virtual, elapsedMs, delay, calls, queries, checksum, n, primes, lock, orderId, order);
    }

    public Result withOrder(Order order) {
        return new Result(mode, scenario, thread, virtual, elapsedMs, delay, calls, queries, checksum, n, primes, lock, order.id(), order);
    }
}
