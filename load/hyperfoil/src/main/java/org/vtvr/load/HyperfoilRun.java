package org.vtvr.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hyperfoil.api.config.Agent;
import io.hyperfoil.api.config.Benchmark;
import io.hyperfoil.api.config.BenchmarkData;
import io.hyperfoil.api.config.Model;
import io.hyperfoil.api.config.Phase;
import io.hyperfoil.api.session.PhaseInstance;
import io.hyperfoil.api.statistics.StatisticsSnapshot;
import io.hyperfoil.core.impl.LocalSimulationRunner;
import io.hyperfoil.core.parser.BenchmarkParser;
import io.hyperfoil.http.statistics.HttpStats;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs one Hyperfoil benchmark file on this machine with Hyperfoil's own local runner and writes what it measured, per
 * phase, as JSON: requests, answers, errors, the status classes and the latencies as a compressed HdrHistogram of
 * microseconds (the harness's unit). With {@code --parse} it only reads the file with Hyperfoil's parser and writes
 * its agents and each agent's share of every phase's rate (what a controller would send each of them).
 *
 * <p>{@code java -cp ... org.vtvr.load.HyperfoilRun [--parse] BENCHMARK.hf.yaml OUT.json}
 */
public final class HyperfoilRun {

    /** The harness's histograms: 1 us to an hour, 3 significant digits (load/harness/drivers/base.py). */
    private static final long HIGHEST_US = 3_600_000_000L;

    private static final ObjectMapper JSON = new ObjectMapper();

    private HyperfoilRun() {
    }

    public static void main(String[] args) throws Exception {
        boolean parseOnly = args.length == 3 && args[0].equals("--parse");
        if (args.length != (parseOnly ? 3 : 2)) {
            System.err.println("usage: HyperfoilRun [--parse] BENCHMARK.hf.yaml OUT.json");
            System.exit(2);
        }
        Path file = Path.of(args[parseOnly ? 1 : 0]);
        File out = new File(args[parseOnly ? 2 : 1]);
        Benchmark benchmark = BenchmarkParser.instance()
                .buildBenchmark(BenchmarkParser.instance().createSource(Files.readString(file), BenchmarkData.EMPTY), Map.of());
        JSON.writerWithDefaultPrettyPrinter().writeValue(out, parseOnly ? parsed(benchmark) : run(benchmark));
    }

    /** The agents and, per agent, its slice of each open-model phase's rate and of each closed-model phase's users. */
    private static ObjectNode parsed(Benchmark benchmark) {
        ObjectNode root = JSON.createObjectNode().put("name", benchmark.name());
        ArrayNode agents = root.putArray("agents");
        Agent[] list = benchmark.agents();
        for (int i = 0; i < Math.max(1, list.length); i++) {
            ObjectNode agent = agents.addObject().put("name", list.length == 0 ? "local" : list[i].name)
                    .put("threads", benchmark.threads(i));
            if (list.length > 0) {
                agent.put("inline", list[i].inlineConfig);
            }
            ObjectNode phases = agent.putObject("phases");
            for (Phase phase : benchmark.phases()) {
                if (phase.model instanceof Model.ConstantRate rate) {
                    phases.put(phase.name, benchmark.slice(rate.usersPerSec, i));
                } else if (phase.model instanceof Model.ClosedModel closed) {
                    phases.put(phase.name, benchmark.slice(closed.users, i));
                }
            }
        }
        return root;
    }

    private static ObjectNode run(Benchmark benchmark) {
        Map<String, StatisticsSnapshot> totals = new TreeMap<>();
        Map<String, Long> finished = new ConcurrentHashMap<>();
        Map<String, Long> terminated = new ConcurrentHashMap<>();
        LocalSimulationRunner runner = new LocalSimulationRunner(benchmark,
                (phase, stepId, metric, snapshot, countDown) ->
                        totals.computeIfAbsent(phase.name, name -> new StatisticsSnapshot()).add(snapshot),
                null, null) {
            @Override
            protected CompletableFuture<Void> phaseChanged(Phase phase, PhaseInstance.Status status,
                    boolean sessionLimitExceeded, Throwable error) {
                // when the phase stopped starting requests, and when its last request was answered (or timed out)
                if (status == PhaseInstance.Status.FINISHED) {
                    finished.putIfAbsent(phase.name, System.currentTimeMillis());
                } else if (status == PhaseInstance.Status.TERMINATED) {
                    terminated.putIfAbsent(phase.name, System.currentTimeMillis());
                }
                return super.phaseChanged(phase, status, sessionLimitExceeded, error);
            }
        };
        ObjectNode root = JSON.createObjectNode().put("name", benchmark.name());
        long started = System.currentTimeMillis();
        try {
            runner.run();
        } catch (RuntimeException e) {   // a failed phase: what was measured is still written, with the reason
            root.put("error", String.valueOf(e.getCause() == null ? e : e.getCause()));
        }
        root.put("wall_ms", System.currentTimeMillis() - started);
        ObjectNode phases = root.putObject("phases");
        for (Phase phase : benchmark.phases()) {
            StatisticsSnapshot s = totals.getOrDefault(phase.name, new StatisticsSnapshot());
            PhaseInstance instance = runner.instances().get(phase.name);
            HttpStats http = HttpStats.get(s);
            ObjectNode p = phases.putObject(phase.name)
                    .put("start_ms", instance == null ? 0 : instance.absoluteStartTime())
                    .put("duration_ms", phase.duration)
                    .put("finished_ms", finished.getOrDefault(phase.name, 0L))
                    .put("terminated_ms", terminated.getOrDefault(phase.name, 0L))
                    .put("requests", s.requestCount).put("responses", s.responseCount).put("invalid", s.invalid)
                    .put("connection_errors", s.connectionErrors).put("request_timeouts", s.requestTimeouts)
                    .put("internal_errors", s.internalErrors).put("blocked_ms", s.blockedTime / 1_000_000);
            p.putObject("status").put("2xx", http.status_2xx).put("3xx", http.status_3xx).put("4xx", http.status_4xx)
                    .put("5xx", http.status_5xx).put("other", http.status_other);
            p.put("histogram_us", micros(s.histogram));
        }
        return root;
    }

    /** Hyperfoil's histogram (nanoseconds, two digits) as the harness's (microseconds), compressed and in base64. */
    private static String micros(Histogram nanos) {
        Histogram us = new Histogram(1, HIGHEST_US, 3);
        for (HistogramIterationValue v : nanos.recordedValues()) {
            us.recordValueWithCount(Math.min(HIGHEST_US, Math.max(1, nanos.medianEquivalentValue(v.getValueIteratedTo()) / 1000)),
                    v.getCountAtValueIteratedTo());
        }
        ByteBuffer buffer = ByteBuffer.allocate(us.getNeededByteBufferCapacity());
        int length = us.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }
}
