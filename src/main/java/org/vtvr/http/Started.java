package org.vtvr.http;

import org.vtvr.api.Result;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Scenario;

/**
 * The mode, scenario and thread a request started with, captured by the resource before any work is done, and the
 * moment it reached the server ({@link Arrival}): its deadline and {@code elapsedMs} count from there, queueing
 * included.
 */
public record Started(Mode mode, Scenario scenario, Thread thread, long nanos) {

    public static Started now(Mode mode, Scenario scenario) {
        return new Started(mode, scenario, Thread.currentThread(), Arrival.nanos());
    }

    public Result result(Result.Outcome outcome) {
        return new Result(mode.path(), scenario.id(), thread.getName(), thread.isVirtual(),
                (System.nanoTime() - nanos) / 1_000_000, outcome);
    }
}
