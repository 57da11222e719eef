import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;

/**
 * The machine's speed just before a trial (harness/sampling/yardstick.py, docs/statistics.md): one fixed unit of work
 * (a map filled and read, strings made, an array sorted) repeated for the milliseconds asked on stdin; the median
 * CPU nanoseconds of a unit (this thread's own CPU time) go to stdout. The same work costs more CPU when the shared
 * host slows this machine down, whichever series the trial is of: it runs while no series is loaded.
 */
public class Yardstick {
    static long sink;

    static long unit() {
        HashMap<Integer, String> map = new HashMap<>();
        for (int i = 0; i < 2000; i++) {
            map.put(i * 31, Integer.toString(i));
        }
        long s = 0;
        for (var e : map.entrySet()) {
            s += e.getKey() ^ e.getValue().hashCode();
        }
        int[] a = new int[2000];
        for (int i = 0; i < a.length; i++) {
            a[i] = (int) ((s * i + i * 7919L) % 10007);
        }
        Arrays.sort(a);
        return s + a[a.length / 2];
    }

    public static void main(String[] args) throws Exception {
        var cpu = ManagementFactory.getThreadMXBean();
        for (long t0 = System.nanoTime(); System.nanoTime() - t0 < 3_000_000_000L; ) {
            sink += unit();   // compiled before the first reading
        }
        System.out.println("ready");
        var in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            long end = System.nanoTime() + Long.parseLong(line.trim()) * 1_000_000L;
            var costs = new ArrayList<Long>();
            do {
                long c0 = cpu.getCurrentThreadCpuTime();
                sink += unit();
                costs.add(cpu.getCurrentThreadCpuTime() - c0);
            } while (System.nanoTime() < end);
            Collections.sort(costs);
            System.out.println(costs.size() + " " + costs.get(costs.size() / 2) + " " + (sink & 1));
        }
    }
}
