"""The run's facts and figures as words, shared by summary.md and report.html: its settings,
mode order, how the figures were taken, a step's load and a table cell."""
from harness.analysis import model
from harness.analysis.steps import fmt, params_of

# The settings that make the comparison fair or bound it, printed in every report: (key, what it is)
SETTINGS = [
    ("quarkus.thread-pool.max-threads", "worker threads"),
    ("quarkus.thread-pool.queue-size", "worker queue"),
    ("bench.fanout-pool-size", "worker fan-out threads"),
    ("bench.fanout-queue-size", "worker fan-out queue"),
    ("quarkus.datasource.jdbc.max-size", "JDBC pool"),
    ("quarkus.datasource.reactive.max-size", "reactive pool"),
    ("bench.db-acquire-timeout", "DB pool wait"),
    ("bench.db-socket-timeout-ms", "DB socket timeout ms"),
    ("quarkus.rest-client.delay.connection-pool-size", "delay client connections"),
    ("bench.blocking-client", "blocking delay client"),
    ("bench.request-deadline", "request deadline"),
    ("bench.max-in-flight", "requests in progress per mode"),
    ("bench.max-n-event-loop", "reactive cpu n ceiling"),
    ("bench.delay-http2", "delay calls over h2c"),
    ("quarkus.http.limits.max-concurrent-streams", "HTTP/2 streams per connection"),
]


def settings_text(meta):
    """The run's settings as one line: 'worker threads 200, worker queue 400, ...' (as the app
    told them at /q/info; '?' for one it did not tell)."""
    values = meta.get("settings") or {}
    return ", ".join(f"{label} {values.get(key, '?')}" for key, label in SETTINGS)


# the app's quarkus.thread-pool.max-threads (src/main/resources/application.properties), for a run
# whose app did not tell it at /q/info
WORKER_THREADS = 200


def worker_pool_of(meta, default=WORKER_THREADS):
    """quarkus.thread-pool.max-threads of the run's app: the worker-mode ceiling's numerator."""
    v = str((meta.get("settings") or {}).get("quarkus.thread-pool.max-threads", ""))
    return int(v) if v.isdigit() else default


def calls_of(r):
    return float(params_of(r["params"]).get("calls", 1))


def load_label(r):
    return f"{fmt(r['load'])} {'req/s' if r['load_kind'] == 'rate' else 'conc'}"


def order_text(meta):
    """mode_order of a run (a list) or of several runs (a list of lists), as text."""
    o = meta.get("mode_order") or []
    if o and isinstance(o[0], list):
        return "; ".join(f"run {i + 1}: " + " > ".join(x) for i, x in enumerate(o))
    return " > ".join(o) if isinstance(o, list) else str(o)


def method_notes(meta):
    """How the figures were taken, for both reports."""
    return [
        "Order: the modes are measured in a rotated order per run (mode order above), so no mode "
        "always gets the warmest database and page cache; an A/A row (-aa) measures one mode twice "
        "to show the noise floor.",
        "CPU per request: the app process's user+system CPU (psutil) between two readings taken "
        "when the load tool starts and when it has ended, over the successful requests. "
        f"/q/metrics is scraped during the step every {meta.get('metrics_interval', '0.5')} s "
        "for the pool gauges; that cost stays in the figure (never subtracted) and is shown as "
        "'scrape CPU %' (scrapes x one scrape's CPU measured at idle). 'machine CPU %' is every "
        "core's busy time over the step (database, kernel and sampler included; 100% = one core), "
        "read at the same two moments; with a remote app it is the generator's machine.",
        "Latency: 'ok' percentiles count successes only (the targets and charts use them, beside "
        "the success rate); the plain p50/p99 count every answer, fast errors included. "
        "Percentiles: HdrHistogram, 3 significant digits.",
        "A remote app (--app-url without --app-pid) is measured from its /q/metrics only: CPU from "
        "process_cpu_time_ns_total, threads from jvm_threads_live_threads; RSS only if it exports "
        "process_resident_memory_bytes.",
    ]


def per_run_text(meta, mode):
    """'5,500 / 4,000 / 7,000 (median 5,500)': a series' saturation point per `--set runs=N` run."""
    per = (meta or {}).get("saturation_runs", {}).get(mode)
    if not per:
        return ""
    known = sorted(x for x in per if x)
    med = f" (median {fmt(known[(len(known) - 1) // 2], 0)})" if known else ""
    return " / ".join(fmt(x, 0) if x else "none" for x in per) + med


def cell(r, k):
    """A cell of a scenario's table (model.TABLE): the load with its kind, else the figure."""
    return load_label(r) if k == "load" else fmt(r[k], model.digits(k))


TARGETS_NOTE = ("The performance targets (docs/results.md \"Targets\"), judged on this run's rows: "
                "latency on successes only (p99 ok), beside the success rate. A ratio within the "
                "A/A spread (the same mode measured twice in this run) is 'within noise', not PASS "
                "or FAIL. They are meant for a default run or the medians of several (5 s steps "
                "after the warm-up); --quick steps are too short.")
