package org.vtvr.delay.client;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The timers of the delay calls' deadlines ({@code ifNoItem().after(...).on(timers.executor())}). A call answered in
 * time cancels its timer, and this executor drops a cancelled timer at once ({@code setRemoveOnCancelPolicy}): the
 * default executor keeps it queued until its deadline, and with it the call's subscriber and everything that reaches,
 * so every answered request stayed reachable until its deadline (issue #27: heap after GC 2.2-2.4x its idle start
 * right after 100,000 answers).
 */
@ApplicationScoped
public class DeadlineTimers {

    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "vtvr-deadline-timer");
        thread.setDaemon(true);
        return thread;
    });

    public DeadlineTimers() {
        executor.setRemoveOnCancelPolicy(true);
    }

    public ScheduledExecutorService executor() {
        return executor;
    }

    /** Timers still queued: the calls in progress (an answered call's timer is gone). */
    public int pending() {
        return executor.getQueue().size();
    }

    @PreDestroy
    void stop() {
        executor.shutdownNow();
    }
}
