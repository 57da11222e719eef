package org.vtvr.limits;

import java.time.Duration;

/** The moment a request's delay-service work must be done by ({@code bench.request-deadline} after it arrived). */
public record Deadline(long nanos) {

    /** {@code budget} after {@code startNanos} ({@link System#nanoTime()} when the request arrived). */
    public static Deadline of(long startNanos, Duration budget) {
        return new Deadline(startNanos + budget.toNanos());
    }

    /** What is left, never negative. */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, nanos - System.nanoTime()));
    }

    public boolean passed() {
        return nanos - System.nanoTime() <= 0;
    }
}
