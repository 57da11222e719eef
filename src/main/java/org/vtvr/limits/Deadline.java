package org.vtvr.limits;

import org.vtvr.scenario.Started;

import java.time.Duration;

/** The moment a request's delay-service work must be done by ({@code bench.request-deadline} after it started). */
public record Deadline(long nanos) {

    public static Deadline of(Started started, Duration budget) {
        return new Deadline(started.nanos() + budget.toNanos());
    }

    /** What is left, never negative. */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, nanos - System.nanoTime()));
    }

    public boolean passed() {
        return nanos - System.nanoTime() <= 0;
    }
}
