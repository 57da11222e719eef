package org.vtvr.scenario;

import java.util.Locale;
import java.util.Set;

/**
 * The three execution models; each is also the first path segment of its endpoints. Besides the thread a request
 * runs on (the annotation of its resource), a mode differs in one more place, named here: how fanout runs its calls.
 */
public enum Mode {
    VIRTUAL(FanOut.VIRTUAL_THREAD_PER_CALL),
    WORKER(FanOut.BOUNDED_POOL),
    REACTIVE(FanOut.SUBSCRIPTIONS);

    public static final Set<Mode> ALL = Set.of(values());

    /**
     * Where fanout's concurrent calls run: a new virtual thread each, the worker mode's own bounded pool
     * ({@code bench.fanout-pool-size}; a platform thread per call has no bound, and the request pool it runs on must
     * not be borrowed), or {@code Uni} subscriptions on the event loop (docs/equal-work.md, "Fan-out in the worker mode").
     */
    public enum FanOut {
        VIRTUAL_THREAD_PER_CALL, BOUNDED_POOL, SUBSCRIPTIONS
    }

    private final FanOut fanOut;

    Mode(FanOut fanOut) {
        this.fanOut = fanOut;
    }

    public FanOut fanOut() {
        return fanOut;
    }

    /**
     * Whether a request holds a thread of its own while it runs (virtual, worker): a client that hangs up interrupts
     * it, and a request still waiting for one at its deadline is answered 504 (org.vtvr.http.Arrival).
     */
    public boolean ownThread() {
        return fanOut != FanOut.SUBSCRIPTIONS;
    }

    /**
     * Whether a request may wait for its thread (worker: a bounded pool and queue; a virtual thread starts at once):
     * one still waiting at its deadline is answered 504 by the event loop then.
     */
    public boolean queues() {
        return this == WORKER;
    }

    public String path() {
        return name().toLowerCase(Locale.ROOT);
    }
}
