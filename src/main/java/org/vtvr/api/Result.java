package org.vtvr.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * The one response shape of every scenario in every mode: who served it and how long it took, then the scenario's
 * own {@link Outcome} fields at the same level.
 */
public record Result(String mode, String scenario, String thread, boolean virtual, long elapsedMs,
        @JsonUnwrapped Outcome outcome) {

    /** What one scenario did; each factory sets the fields that scenario has, the others stay out of the JSON. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Outcome(Integer delay, Integer calls, Integer fanout, Integer queries, Long checksum, Integer n,
            Integer primes, String lock, Long orderId, Order order) {

        /** io, fanout: {@code calls} delay-service calls of {@code delay} ms; slow-query: no calls. */
        public static Outcome waited(int delay, Integer calls) {
            return new Outcome(delay, calls, null, null, null, null, null, null, null, null);
        }

        public static Outcome read(int queries, long checksum) {
            return new Outcome(null, null, null, queries, checksum, null, null, null, null, null);
        }

        public static Outcome counted(int n, int primes) {
            return new Outcome(null, null, null, null, null, n, primes, null, null, null);
        }

        /** pinning: one call made while holding {@code lock}. */
        public static Outcome locked(int delay, String lock) {
            return new Outcome(delay, 1, null, null, null, null, null, lock, null, null);
        }

        /** checkout: two calls (payment, stock), then the stored order. */
        public static Outcome ordered(int delay, Order order) {
            return new Outcome(delay, 2, null, null, null, null, null, null, order.id(), order);
        }

        /**
         * workload: {@code calls} sequential and {@code fanout} concurrent calls, {@code queries} reads, the primes up
         * to {@code n}, and the id of the order row it wrote (null: none).
         */
        public static Outcome worked(int delay, int calls, int fanout, int queries, long checksum, int n, int primes,
                Long orderId) {
            return new Outcome(delay, calls, fanout, queries, checksum, n, primes, null, orderId, null);
        }

        /** order: the stored order read back. */
        public static Outcome found(Order order) {
            return new Outcome(null, null, null, null, null, null, null, null, order.id(), order);
        }
    }

    /** The order as stored, for the checkout and order scenarios. */
    public record Order(long id, String customer, String sku, int quantity, String mode) {
    }
}
