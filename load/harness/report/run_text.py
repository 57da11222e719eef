"""The run's facts and figures as words, shared by summary.md and report.html: its settings,
mode order, how the figures were taken, its targets and saturation, each scenario's table (Texts,
made once per run)."""
from __future__ import annotations

import dataclasses

from harness.analysis import model
from harness.analysis.steps import fmt, params_of, series_names, worker_ceiling, worker_pool_of
from harness.analysis.verdicts import saturation, saturation_args, targets

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
        "when the load tool starts and when it has ended, "
        + ("less what its JIT compiler threads spent (compiling is a start's cost, not a warm "
           "app's; their share of the app's CPU is 'JIT %'), " if meta.get("cpu_less_jit") else "")
        + "over the successful requests. "
        f"/q/metrics is scraped during the step every {meta.get('metrics_interval', '0.5')} s "
        "for the pool gauges"
        + (": the harness' own, so they leave the figure (scrapes x one scrape's CPU, measured on "
           "the warm app at idle: 'scrape CPU %'). " if meta.get("cpu_less_scrapes") else
           "; that cost stays in the figure (never subtracted) and is shown as 'scrape CPU %' "
           "(scrapes x one scrape's CPU measured at idle). ")
        + "'machine CPU %' is every "
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
    # .get: a result published before a field existed renders that cell n/a
    return load_label(r) if k == "load" else fmt(r.get(k), model.digits(k))


TARGETS_NOTE = ("The performance targets (docs/results.md \"Targets\"), judged on this run's rows: "
                "latency on successes only (p99 ok), beside the success rate. A ratio within the "
                "A/A spread (the same mode measured twice in this run) is 'within noise', not PASS "
                "or FAIL. They are meant for a default run or the medians of several (5 s steps "
                "after the warm-up); --quick steps are too short.")


FACTS = (("cores", "cores"), ("cpu", "CPU"), ("memory_mib", "memory MiB"), ("os", "OS"),
         ("jdk", "JDK"), ("quarkus", "Quarkus"), ("app", "app"), ("java_opts", "JVM options"),
         ("delay_java_opts", "delay service JVM options"), ("started", "started"),
         ("command", "command"), ("git_commit", "commit"), ("vegeta", "Vegeta"),
         ("hyperfoil", "Hyperfoil"), ("hey", "hey"), ("mode_order", "mode order"),
         ("placement", "CPU placement"), ("settings", "pools and limits (every mode)"))
LEFT_COLS = ("mode", "tool", "status_codes", "flags")   # text, left-aligned


def fact(meta, key):
    """One line of the report's 'This run' table."""
    v = (order_text(meta) if key == "mode_order"
         else settings_text(meta) if key == "settings" else meta.get(key))
    if key == "placement" and not v:
        v = "none: every process may use every core"
    if key in ("java_opts", "delay_java_opts") and not v:
        v = "JVM defaults (max heap = 1/4 of RAM)"
    return str(v if v not in (None, "") else "n/a")


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One scenario's steps as both pages show them."""
    name: str
    params: str            # its first row's parameters (summary.md's heading)
    all_params: str        # every row's, ' | ' between (the cost experiment varies them)
    ceiling: float | None  # the worker pool's, by Little's law
    rows: list
    cells: list            # per row: [(left-aligned, text)] in model.TABLE's order


@dataclasses.dataclass(frozen=True)
class Texts:
    """The run's facts and figures as words, once for summary.md and report.html."""
    worker_pool: int
    order: str
    settings: str
    notes: list
    facts: list            # [(label, text)] of FACTS
    opening: list          # what a run without verdicts opens with (sequential_opening)
    targets: list          # point targets [(target, measured, verdict)]; none beside verdicts
    saturation: list       # io's [(series, rate text, each run's text, limit)]
    per_run: bool          # medians of several runs: saturation per run
    scenarios: list        # [Scenario]
    flagged: list          # [(row, its load's label)]
    series: list           # the series' names, in report order

    @classmethod
    def of(cls, rows, meta, decided):
        """ROWS of a run with machine.json META; DECIDED: it has verdicts (no point targets)."""
        pool = worker_pool_of(meta)
        point = [] if decided else targets(rows, pool)
        sat = [(m, fmt(x, 0) if x else "none", per_run_text(meta, m), w)
               for m, x, w in saturation(rows, **saturation_args(meta))]
        return cls(pool, order_text(meta), settings_text(meta), method_notes(meta),
                   [(label, fact(meta, k)) for k, label in FACTS],
                   [] if decided else sequential_opening(rows, point), point, sat,
                   "saturation_runs" in (meta or {}), scenarios(rows, pool),
                   [(r, load_label(r)) for r in rows if r["flags"]], series_names(rows))


def scenarios(rows, worker_pool):
    out = []
    for sc in dict.fromkeys(r["scenario"] for r in rows):
        sr = [r for r in rows if r["scenario"] == sc]
        every = " | ".join(dict.fromkeys(r["params"] or "" for r in sr))
        out.append(Scenario(sc, sr[0]["params"], every,
                            worker_ceiling(sc, sr[0]["params"], worker_pool), sr,
                            [[(k in LEFT_COLS, cell(r, k)) for k in model.TABLE] for r in sr]))
    return out


def sequential_opening(rows, point):
    """What a run without verdicts opens with: what was swept, and its point targets POINT."""
    steps = ", ".join(
        f"{sc} ({', '.join(dict.fromkeys(load_label(r) for r in rows if r['scenario'] == sc))})"
        for sc in dict.fromkeys(r["scenario"] for r in rows))
    out = [f"Compared {', '.join(dict.fromkeys(r['mode'] for r in rows))} in a sequential sweep, "
           f"one reading per step and no intervals: {steps}."]
    if point:
        n = {v: sum(1 for *_, x in point if x == v) for v in ("PASS", "FAIL")}
        out.append(f"Targets on those readings: {n['PASS']} hold, {n['FAIL']} miss"
                   + (f" ({'; '.join(a for a, _, v in point if v == 'FAIL')[:300]})"
                      if n["FAIL"] else "")
                   + "; a difference is decided only by the interleaved design's intervals.")
    return out
