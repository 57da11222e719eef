package org.vtvr.scenario;

import org.vtvr.api.OrderRequest;

/**
 * One workload request's steps as {@code Limits} accepted them, run in this order by both implementations:
 * {@code calls} delay calls one after another and {@code fanout} at once, each of {@code delay} ms, {@code queries}
 * reads, the CPU kernel up to {@code cpu}, and one order row if {@code insert}.
 */
public record Workload(int delay, int calls, int fanout, int queries, int cpu, boolean insert) {

    /** The row the insert step writes, the same each time: checkout's INSERT with a body that passes its checks. */
    public static final OrderRequest ORDER = new OrderRequest("workload", "WORKLOAD", 1);

    /** The wait held to the request deadline: io's calls × delay, then one delay for the fan-out's calls at once. */
    public long plannedMs() {
        return (long) calls * delay + (fanout > 0 ? delay : 0);
    }
}
