package org.vtvr.jmh;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a switch costs: the mean time of one one-way hand-off in a ping-pong between two threads of one kind, each
 * blocking (LockSupport.park, no spinning) until the other unparks it; two platform threads (the OS switches) against
 * two virtual threads (the default scheduler, one carrier per core, mounts and unmounts them).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class HandOff {

    // On the 2-core virtual machine here a platform hand-off took 2-5 us in some forks and about 40 us in others
    // (likely: both threads on one core, or each wake-up crossing cores); one fork's interval does not show that

    // Round trips per invocation: the benchmark thread's own start and end signals (two more hand-offs, with a
    // platform thread) are then 0.1 % of the hand-offs counted
    static final int ROUND_TRIPS = 1000;

    /** Two threads passing a baton back and forth, run on demand ROUND_TRIPS times. */
    public abstract static class Pair {
        private volatile int holder;          // which of the two may run: 0 ping, 1 pong
        private volatile boolean stopped;
        private final Thread[] threads = new Thread[2];
        private final Semaphore go = new Semaphore(0);
        private final Semaphore done = new Semaphore(0);

        abstract Thread.Builder builder();

        @Setup(Level.Trial)
        public void start() {
            threads[1] = builder().unstarted(() -> {
                while (!stopped) {
                    pass(1);
                }
            });
            threads[0] = builder().unstarted(() -> {
                try {
                    while (true) {
                        go.acquire();
                        for (int i = 0; i < ROUND_TRIPS; i++) {
                            pass(0);
                        }
                        done.release();
                    }
                } catch (InterruptedException e) {
                    // torn down
                }
            });
            threads[0].start();
            threads[1].start();
        }

        /** Gives the baton to the other thread and blocks until it comes back (or the pair is stopped). */
        private void pass(int me) {
            holder = 1 - me;
            LockSupport.unpark(threads[1 - me]);
            while (holder != me && !stopped) {
                LockSupport.park(this);   // a loop: park may return spuriously
            }
        }

        void roundTrips() throws InterruptedException {
            go.release();
            done.acquire();
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            stopped = true;
            for (Thread t : threads) {
                t.interrupt();
                LockSupport.unpark(t);
                t.join();
            }
        }
    }

    @State(Scope.Benchmark)
    public static class PlatformPair extends Pair {
        @Override
        Thread.Builder builder() {
            return Thread.ofPlatform().daemon();
        }
    }

    @State(Scope.Benchmark)
    public static class VirtualPair extends Pair {
        @Override
        Thread.Builder builder() {
            return Thread.ofVirtual();
        }
    }

    @Benchmark
    @OperationsPerInvocation(2 * ROUND_TRIPS)
    public void platform(PlatformPair pair) throws InterruptedException {
        pair.roundTrips();
    }

    @Benchmark
    @OperationsPerInvocation(2 * ROUND_TRIPS)
    public void virtual(VirtualPair pair) throws InterruptedException {
        pair.roundTrips();
    }
}
