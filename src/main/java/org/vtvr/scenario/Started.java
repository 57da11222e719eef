package org.vtvr.scenario;

import org.vtvr.api.Result;

/** The moment and the thread a request started on, captured by the resource before any work is done. */
public record Started(Mode mode, Thread thread, long nanos) {

    public static Started now(Mode mode) {
        return new Started(mode, Thread.currentThread(), System.nanoTime());
    }

    public Result result(String scenario) {
        return Result.of(mode, scenario, thread, nanos);
    }
}
