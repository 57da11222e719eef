"""`--experiment scale`'s fan-out burst: one request fanning out CALLS delay calls of 1 s each
(10,000 over HTTP/1.1, 100,000 over h2c), per series from a fresh app: wall time, answer, and the
app's CPU, peak threads, heap and RSS. The worker mode shows its bound: its fan-out pool refuses a
fan-out that does not fit (503 problem) rather than queueing it."""
import json

from harness.analysis.steps import fmt
from harness.infra.numbers import rnd
from harness.infra.series import base_of, client_of

DELAY_MS = 1_000
CALLS = {"http1": 10_000, "h2c": 100_000}
QUICK_CALLS = {"http1": 1_000, "h2c": 2_000}
DEADLINE_S = 120   # one app sends 100,000 calls on two cores: seconds, not the 1 s a call waits
SAMPLE_S = 0.25


def bursts_of(modes, quick):
    """[(series, transport, calls, skipped)]: every series over both transports; SKIPPED says why
    a pair is not run (the socket client is HTTP/1.1 only: 100,000 sockets pass the files limit)."""
    calls = QUICK_CALLS if quick else CALLS
    return [(series, t, calls[t], "the socket client speaks HTTP/1.1 only (one socket per call)"
             if t == "h2c" and client_of(series) == "socket" else None)
            for series in modes for t in calls]


def raised(transport, calls, client=""):
    """What a burst's app needs beyond a normal run's defaults, as environment variables: CALLS
    accepted in one fanout, a deadline and read timeout to send them all, a connection per call over
    HTTP/1.1 (and for the socket client), and the delay service accepting as many connections."""
    env = {"BENCH_MAX_FANOUT_CALLS": str(calls), "BENCH_REQUEST_DEADLINE": f"{DEADLINE_S}s",
           "QUARKUS_REST_CLIENT_DELAY_READ_TIMEOUT": str(DEADLINE_S * 1000),
           "QUARKUS_REST_CLIENT_DELAY_CONNECT_TIMEOUT": "10000",
           "QUARKUS_HTTP_LIMITS_MAX_CONNECTIONS": str(2 * calls + 1_000),
           "BENCH_DELAY_HTTP2": str(transport == "h2c").lower()}
    if transport == "http1" or client == "socket":
        env["QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE"] = str(calls + 100)
    return env


def estimate_s(calls):
    """Seconds one burst's request is expected to take: the calls' wait and sending them (a guess of
    5,000 calls/s on two cores shared with the delay service)."""
    return DELAY_MS / 1000 + calls / 5_000


def path(series, calls):
    return f"/{base_of(series)}/fanout?delay={DELAY_MS}&calls={calls}"


def row_of(series, transport, calls, status, body, wall_s, idle, samples, cpu_ms, served):
    """One burst's row: the answer (status, the problem's detail if refused), wall time over the 1 s
    the calls wait, the app's CPU, and the peaks of the SAMPLES taken meanwhile (Monitor rows)."""
    detail = None
    if status != 200:
        try:
            detail = json.loads(body).get("detail")
        except (ValueError, AttributeError):
            detail = body[:200].decode("utf-8", "replace") if body else "no answer"
    metrics = [s.get("metrics") or {} for s in samples]

    def peak(values):
        vals = [v for v in values if v is not None]
        return max(vals, default=None)
    heap = peak(m.get("heap_bytes") for m in metrics)
    return {"series": series, "transport": transport, "calls": calls, "status": status,
            "detail": detail, "wall_ms": round(wall_s * 1000),
            "over_delay_ms": round(wall_s * 1000 - DELAY_MS), "cpu_ms": round(cpu_ms),
            "cpu_ms_per_call": rnd(cpu_ms / calls, 3) if status == 200 else None,
            "peak_os_threads": peak(s.get("threads") for s in samples),
            "idle_os_threads": idle.get("platform_threads"),
            "peak_jvm_threads": peak(m.get("jvm_live_threads") for m in metrics),
            "peak_heap_mib": mib(heap, 2 ** 20),
            "idle_heap_after_gc_mib": mib(idle.get("heap_after_gc_kib")),
            "peak_rss_mib": mib(peak(s.get("rss_kb") for s in samples)),
            "idle_rss_mib": mib(idle.get("rss_kib")), "delay_calls_served": served}


def mib(value, unit=1024):
    return None if value is None else round(value / unit)


COLS = [("series", "series"), ("transport", "transport"), ("calls", "calls"), ("status", "status"),
        ("wall_ms", "wall ms"), ("cpu_ms", "app CPU ms"), ("cpu_ms_per_call", "CPU ms/call"),
        ("peak_os_threads", "OS threads (idle -> peak)"), ("peak_jvm_threads", "JVM threads peak"),
        ("peak_heap_mib", "heap MiB (idle after GC -> peak)"),
        ("peak_rss_mib", "RSS MiB (idle -> peak)"), ("delay_calls_served", "calls served"),
        ("detail", "refused because")]


def cell(r, key):
    idle = {"peak_os_threads": "idle_os_threads", "peak_heap_mib": "idle_heap_after_gc_mib",
            "peak_rss_mib": "idle_rss_mib"}.get(key)
    if idle:
        return f"{fmt(r.get(idle))} -> {fmt(r.get(key))}"
    return fmt(r.get(key))


def table_md(rows, skipped):
    out = ["| " + " | ".join(h for _, h in COLS) + " |", "|" + "---|" * len(COLS)]
    out += ["| " + " | ".join(cell(r, k) for k, _ in COLS) + " |" for r in rows]
    out += [f"- not run: {series} over {t} ({calls:,} calls): {why}"
            for series, t, calls, why in skipped]
    return out
