package org.vtvr.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.ObjectName;

/**
 * What a parked thread keeps: starts N threads of one kind (platform or virtual), each blocked on a latch under a
 * stack of DEPTH frames of its own, and prints one JSON line with the process's resident memory (VmRSS), the heap the
 * last full GC left in use and, when NMT is on, the JVM's committed thread memory, before and after.
 *
 * <p>Run it as the runner does: {@code java -XX:+UseSerialGC -Xms512m -Xmx512m -XX:+AlwaysPreTouch
 * -XX:NativeMemoryTracking=summary -Xbatch -XX:CompileCommand=quiet
 * -XX:CompileCommand=dontinline,org.vtvr.jmh.ParkedThreads::descend -cp benchmarks.jar org.vtvr.jmh.ParkedThreads
 * virtual 2000}. The heap is resident from the start (AlwaysPreTouch), so the RSS delta is native memory only (a
 * platform thread's stack and the JVM's and the C library's per-thread structures) and the heap delta is the
 * threads' Java objects (a virtual thread's stack lives on the heap as stack chunks): their sum is a parked thread's
 * whole cost, counted once. -Xbatch compiles in the foreground, so the warm-up leaves the frames' methods compiled
 * (C2) before anything is measured: a compilation finishing during the measured round made a virtual thread's heap
 * cost vary by 40 % from run to run (interpreted and C1 frames are larger).
 */
public final class ParkedThreads {

    // Frames of our own under the latch's await (which adds about six more: AQS, LockSupport, the park itself); the
    // runner keeps the JIT from inlining them into fewer (-XX:CompileCommand=dontinline,...::descend)
    static final int DEPTH = 16;
    // Calls of the frames' method before anything is measured, past C2's thresholds, so that every thread parks
    // under the same compiled frames (with -Xbatch: compiled before the calls go on)
    static final int WARMUP_CALLS = 20_000;
    // A round of threads started, parked and ended before the "before" figures: the JIT has compiled this path and
    // the JVM has grown its own tables, so the delta is the threads' and not the first use's
    static final int WARMUP_THREADS = 200;

    private ParkedThreads() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !(args[0].equals("platform") || args[0].equals("virtual"))) {
            System.err.println("usage: ParkedThreads platform|virtual N");
            System.exit(2);
        }
        String kind = args[0];
        int n = Integer.parseInt(args[1]);
        Thread.Builder builder = kind.equals("virtual") ? Thread.ofVirtual() : Thread.ofPlatform();

        CountDownLatch open = new CountDownLatch(0);
        for (int i = 0; i < WARMUP_CALLS; i++) {
            descend(DEPTH, open);
        }
        release(park(builder, WARMUP_THREADS));
        Snapshot.take();   // its first use starts JMX's MBean server (about 11 MiB): not to be counted as the threads'
        Snapshot before = Snapshot.take();
        Parked parked = park(builder, n);
        Snapshot after = Snapshot.take();
        release(parked);

        System.out.println("{\"kind\": \"" + kind + "\", \"threads\": " + n + ", \"depth\": " + DEPTH
                + ", \"rss_kib_before\": " + before.rssKib + ", \"rss_kib_after\": " + after.rssKib
                + ", \"heap_used_before\": " + before.heapUsed + ", \"heap_used_after\": " + after.heapUsed
                + ", \"nmt_thread_committed_kib_before\": " + before.nmtThreadKib
                + ", \"nmt_thread_committed_kib_after\": " + after.nmtThreadKib + "}");
    }

    record Parked(List<Thread> threads, CountDownLatch release) {
    }

    /** N threads started and each parked on the latch DEPTH frames down; returns once every one is WAITING. */
    static Parked park(Thread.Builder builder, int n) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            threads.add(builder.start(() -> descend(DEPTH, release)));
        }
        // the latch's count is down only when the thread has really parked: wait for the state itself
        for (Thread t : threads) {
            while (t.getState() != Thread.State.WAITING) {
                Thread.sleep(1);
            }
        }
        return new Parked(threads, release);
    }

    static void release(Parked parked) throws InterruptedException {
        parked.release.countDown();
        for (Thread t : parked.threads) {
            t.join();
        }
    }

    /** A frame with a few locals, DEPTH times, then the block: a stack as deep as a small handler's. */
    static long descend(int depth, CountDownLatch release) {
        long a = depth * 31L;
        long b = a ^ 0x5DEECE66DL;
        if (depth > 0) {
            return a + b + descend(depth - 1, release);
        }
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return a + b;
    }

    /** The process's memory at one moment, after a full GC. */
    record Snapshot(long rssKib, long heapUsed, long nmtThreadKib) {
        private static final Pattern NMT_THREAD = Pattern.compile("-\\s+Thread \\(reserved=\\d+KB, committed=(\\d+)KB\\)");

        static Snapshot take() throws Exception {
            System.gc();
            Thread.sleep(200);   // let the kernel's and the JVM's bookkeeping settle before reading the RSS
            return new Snapshot(readRssKib(), heapAfterGc(), readNmtThreadKib());
        }

        /** The heap's used bytes as the last GC left them: the heap usage now would count the eden allocated since
         * (TLABs handed out whole), which varied by more than the 2000 platform threads' Thread objects. */
        static long heapAfterGc() {
            long used = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                    used += pool.getCollectionUsage().getUsed();
                }
            }
            return used;
        }

        static long readRssKib() throws Exception {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            return -1;
        }

        /** NMT's committed memory of the category Thread (the stacks), -1 when NMT is off. */
        static long readNmtThreadKib() {
            try {
                Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                        new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
                Matcher m = NMT_THREAD.matcher(String.valueOf(out));
                return m.find() ? Long.parseLong(m.group(1)) : -1;
            } catch (Exception e) {
                return -1;
            }
        }
    }
}
