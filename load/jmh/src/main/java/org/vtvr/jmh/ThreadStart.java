package org.vtvr.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What starting a thread costs: the mean time per thread to start BATCH threads that do nothing and join them all, a
 * platform thread ({@code Thread.ofPlatform().start}) against a virtual one ({@code Thread.ofVirtual().start}, the
 * default scheduler).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class ThreadStart {

    // Threads per invocation. One start and join at a time would time, besides the start, the wake-up of the joining
    // benchmark thread and (for a virtual thread) of an idle carrier, each a cross-core wake-up that costs 10-80 us
    // on a virtual machine and swamps a virtual thread's start; over a batch they are paid once per BATCH threads
    static final int BATCH = 100;

    // Does nothing: what is timed is the thread's creation, start, end and join. Another thread runs it, so the JIT
    // cannot remove the work
    private static final Runnable NOTHING = () -> { };

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void platform(Blackhole bh) throws InterruptedException {
        startAndJoin(Thread.ofPlatform(), bh);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void virtual(Blackhole bh) throws InterruptedException {
        startAndJoin(Thread.ofVirtual(), bh);
    }

    private static void startAndJoin(Thread.Builder builder, Blackhole bh) throws InterruptedException {
        Thread[] threads = new Thread[BATCH];
        for (int i = 0; i < BATCH; i++) {
            threads[i] = builder.start(NOTHING);
        }
        for (Thread t : threads) {
            t.join();
            bh.consume(t);
        }
    }
}
