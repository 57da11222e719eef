package org.vtvr.http;

import io.vertx.core.Vertx;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One mode request from the moment it reached the server ({@link Admission} stamps it on the event loop, before any
 * thread is picked) to its answer: the moment its deadline counts from, and, in the modes that hold a thread per
 * request, that thread. A client that hangs up interrupts the thread (its delay calls are aborted, a running statement
 * is cancelled: {@link #onCancel}), and a request still queued at its deadline is answered 504 by the event loop, not
 * after a whole call (docs/faults.md).
 * <p>
 * The serving thread claims the request ({@link #begin}) and gives it back in a finally ({@link #end}); the event
 * loop interrupts it only between the two, under the same lock, so a thread that already moved on to another request
 * is never interrupted.
 */
public final class Arrival {

    /** Where {@link Admission} keeps it in the request's {@code RoutingContext}. */
    static final String KEY = Arrival.class.getName();

    private static final ThreadLocal<Arrival> CURRENT = new ThreadLocal<>();

    private enum State { QUEUED, RUNNING, DONE, ANSWERED }

    private final long nanos;
    private final boolean ownThread;
    private final ReentrantLock lock = new ReentrantLock();
    private State state = State.QUEUED;
    private Thread thread;
    private boolean interrupted;
    private Runnable cancel;
    private Vertx vertx;
    private long timer = -1;

    Arrival(long nanos, boolean ownThread) {
        this.nanos = nanos;
        this.ownThread = ownThread;
    }

    /** {@link System#nanoTime()} when the request serving this thread arrived; now for work outside a mode request. */
    public static long nanos() {
        Arrival current = CURRENT.get();
        return current == null ? System.nanoTime() : current.nanos;
    }

    /**
     * Runs {@code cancel} (off the event loop) if the client hangs up while the calling thread's request runs, for
     * work an interrupt does not end, such as a JDBC statement on a platform thread; close the handle when that work is
     * over. A no-op outside a mode request; throws {@link ServedInterceptor.Gone} when the client already left.
     */
    public static Registration onCancel(Runnable cancel) {
        Arrival current = CURRENT.get();
        if (current == null || !current.ownThread) {
            return () -> { };
        }
        current.lock.lock();
        try {
            if (current.interrupted) {
                throw new ServedInterceptor.Gone();   // the client already left: do not start the work
            }
            current.cancel = cancel;
        } finally {
            current.lock.unlock();
        }
        return () -> {
            current.lock.lock();
            try {
                current.cancel = null;
            } finally {
                current.lock.unlock();
            }
        };
    }

    /** The end of an {@link #onCancel} registration. */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * The serving thread takes the request; false when it must do nothing: the event loop already answered it (its
     * deadline passed while it was queued) or its client hung up before it started.
     */
    boolean begin() {
        lock.lock();
        try {
            if (state != State.QUEUED) {
                return false;
            }
            state = State.RUNNING;
            thread = Thread.currentThread();
            cancelTimer();   // a thread has it: no longer answered by the event loop
        } finally {
            lock.unlock();
        }
        CURRENT.set(this);
        return true;
    }

    /** The serving thread gives the request back; an interrupt meant for this request does not outlive it. */
    void end() {
        CURRENT.remove();
        boolean wasInterrupted;
        lock.lock();
        try {
            state = State.DONE;
            thread = null;
            cancel = null;
            wasInterrupted = interrupted;
        } finally {
            lock.unlock();
        }
        if (wasInterrupted) {
            Thread.interrupted();
        }
    }

    /** On the event loop: {@code answer} runs if the request is still queued at {@code delayMs} from now (a timer). */
    void expireAfter(Vertx vertx, long delayMs, Runnable answer) {
        this.vertx = vertx;
        long id = vertx.setTimer(Math.max(1, delayMs), fired -> {
            if (claim()) {
                answer.run();
            }
        });
        lock.lock();
        try {
            timer = id;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock. */
    private void cancelTimer() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    /**
     * On the event loop, when the response ended ({@code answered}) or the client went away: a deadline timer goes,
     * and after a hang-up a queued request is dropped and a running one's thread interrupted.
     */
    void ended(boolean answered) {
        lock.lock();
        try {
            cancelTimer();
        } finally {
            lock.unlock();
        }
        if (answered || !ownThread || claim()) {
            return;
        }
        Runnable cancelling;
        lock.lock();
        try {
            if (state != State.RUNNING || interrupted) {
                return;
            }
            interrupted = true;
            cancelling = cancel;
        } finally {
            lock.unlock();
        }
        if (cancelling == null) {
            interruptIfRunning();
        } else {
            // the statement first: on a virtual thread an interrupt closes the JDBC socket, and a closed connection's
            // statement can no longer be cancelled in the server; the cancel does I/O, so not on the event loop
            Thread.ofVirtual().name("cancel-on-hang-up").start(() -> {
                cancelling.run();
                interruptIfRunning();
            });
        }
    }

    private void interruptIfRunning() {
        lock.lock();
        try {
            if (state == State.RUNNING) {
                thread.interrupt();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes a request no thread has started yet away from the queue; false once a thread has it. */
    private boolean claim() {
        lock.lock();
        try {
            if (state == State.QUEUED) {
                state = State.ANSWERED;
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }
}
