"""One step folder's raw results (Vegeta, Hyperfoil or hey, process samples, /q/metrics) -> one
row of figures; the rows' order."""
import json
import os
import shutil

# FIELDS, TEXT_FIELDS: for readers
from harness.analysis.model import FIELDS, TEXT_FIELDS, StepMeta, StepRow  # noqa: F401
from harness.drivers import hey, hyperfoil, is_rate
from harness.drivers.vegeta import Vegeta
from harness.infra.numbers import percentiles, rnd
from harness.infra.settings import ENV
from harness.sampling.sample import jvm_metrics

RATE_TOLERANCE = 0.95

MODE_ORDER = ["floor", "virtual", "virtual+socket", "worker", "worker+socket", "reactive"]
AA_SUFFIX = "-aa"   # the A/A row: the same mode measured again in the same run, from a fresh app
SCENARIO_ORDER = ["io", "fanout", "db", "slow-query", "checkout", "cpu", "pinning",
                  "pinning-reentrant"]


# ------------------------------------------------------------------------------------------ helpers
def fmt(x, nd=1):
    if x == "":
        return ""
    if x is None:
        return "n/a"
    if isinstance(x, float):
        if abs(x) >= 100:
            return f"{x:,.0f}"
        return f"{x:.{nd}f}"
    return str(x)


def read_json(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def vegeta_bin():
    for cand in (ENV.vegeta, shutil.which("vegeta"), os.path.join(ENV.cache_dir, "bin", "vegeta")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def params_of(params):
    """'delay=100&calls=1' -> {'delay': '100', 'calls': '1'}"""
    return dict(kv.split("=", 1) for kv in (params or "").split("&") if "=" in kv)


# ----------------------------------------------------------------------------------------- one step
def rate_result(tool, step, ramp_in_s=0.0):
    """The drivers.base.Result of a rate tool's raw results in STEP (the requests after the first
    RAMP_IN_S seconds), or None when there are none (or no vegeta binary to read Vegeta's)."""
    if tool == "hyperfoil":
        run = hyperfoil.read(os.path.join(step, "results"))
        return hyperfoil.from_run(run, ramp_in_s) if run else None
    return vegeta_result(step, ramp_in_s)


def vegeta_result(step, ramp_in_s=0.0):
    """The drivers.base.Result of the step's results.bin (the requests sent after the first
    RAMP_IN_S seconds), or None without a vegeta binary."""
    vb = vegeta_bin()
    if not (vb and os.path.exists(os.path.join(step, "results.bin"))):
        return None
    res = Vegeta(vb).result(os.path.join(step, "results"), ramp_in_s)
    return res if res.every_ms.get_total_count() else None


def read_samples(step):
    """The sampler's readings in STEP, a remote app's CPU, RSS and threads from its scrapes."""
    samples = []
    for line in read_text(os.path.join(step, "samples.jsonl")).splitlines():
        try:
            samples.append(json.loads(line))
        except ValueError:
            pass
    # a remote app (no pid): its CPU and RSS come from the scrapes (Micrometer's process_cpu_time)
    for s in samples:
        m = s.get("metrics") or {}
        if "cpu_ms" not in s and m.get("process_cpu_ms") is not None:
            s["cpu_ms"] = m["process_cpu_ms"]
            if m.get("process_rss_bytes"):
                s["rss_kb"] = m["process_rss_bytes"] / 1024
            if m.get("jvm_live_threads"):
                s["threads"] = m["jvm_live_threads"]
    return samples


def host_figures(samples):
    """(the whole machine's CPU %, 100 = one core; its busiest core's), between the first and last
    reading; (None, None) without two."""
    host = [s for s in samples if s.get("host_busy_ms")]
    if (len(host) >= 2 and host[-1]["t"] > host[0]["t"]
            and len(host[0]["host_busy_ms"]) == len(host[-1]["host_busy_ms"])):
        per_core = [(b - a) / (host[-1]["t"] - host[0]["t"]) / 10.0
                    for a, b in zip(host[0]["host_busy_ms"], host[-1]["host_busy_ms"], strict=True)]
        return sum(per_core), max(per_core)
    return None, None


def resource_figures(step, scrape_cpu_ms=None):
    """The app's, the machine's and the tools' CPU, memory and pools in STEP's samples;
    SCRAPE_CPU_MS: one metrics scrape's CPU (meta.json), to state its share."""
    samples = read_samples(step)
    before = jvm_metrics(read_text(os.path.join(step, "metrics-before.prom")))
    after = jvm_metrics(read_text(os.path.join(step, "metrics-after.prom")))
    res = {"cpu_ms": None, "cpu_pct": None, "rss_peak_mib": None, "threads_peak": None,
           "gen_cpu_pct": None, "delay_cpu_pct": None, "scrape_cpu_pct": None}
    timed = [s for s in samples if s.get("cpu_ms") is not None]
    wall = timed[-1]["t"] - timed[0]["t"] if len(timed) >= 2 else 0
    if len(timed) >= 2:
        # the whole window, scrapes included (step_row takes them out when measured warm)
        cpu = timed[-1]["cpu_ms"] - timed[0]["cpu_ms"]
        res["cpu_ms"] = cpu
        res["cpu_pct"] = 100.0 * cpu / (wall * 1000.0) if wall > 0 else None
        if scrape_cpu_ms is not None and cpu > 0:
            res["scrape_ms"] = samples[-1].get("scrapes", 0) * scrape_cpu_ms
            res["scrape_cpu_pct"] = 100.0 * res["scrape_ms"] / cpu
        if (wall > 0 and samples[0].get("delay_cpu_ms") is not None
                and samples[-1].get("delay_cpu_ms") is not None):
            res["delay_cpu_pct"] = ((samples[-1]["delay_cpu_ms"] - samples[0]["delay_cpu_ms"])
                                    / wall / 10.0)
        gen = read_json(os.path.join(step, "generator.json"))
        if gen and gen.get("wall_ms"):
            res["gen_cpu_pct"] = 100.0 * gen["cpu_ms"] / gen["wall_ms"]
    res["host_cpu_pct"], res["host_core_max_pct"] = host_figures(samples)
    # JIT compiler and GC threads' share of the step's CPU (sampled at the step's ends only)
    ends = [s for s in samples if s.get("jit_ms") is not None]
    res["jit_pct"] = res["gc_pct"] = None
    if len(ends) >= 2 and res["cpu_ms"]:
        res["jit_pct"] = 100.0 * (ends[-1]["jit_ms"] - ends[0]["jit_ms"]) / res["cpu_ms"]
        res["gc_pct"] = 100.0 * (ends[-1]["gc_ms"] - ends[0]["gc_ms"]) / res["cpu_ms"]
    rss = [s["rss_kb"] for s in samples if s.get("rss_kb")]
    thr = [s["threads"] for s in samples if s.get("threads")]
    res["rss_peak_mib"] = max(rss) / 1024.0 if rss else None
    res["threads_peak"] = max(thr) if thr else None
    scraped = [s["metrics"] for s in samples if s.get("metrics")] + [before, after]

    def peak(key, scale=1.0):
        vals = [m[key] for m in scraped if m.get(key) is not None]
        return max(vals) / scale if vals else None

    res["heap_peak_mib"] = peak("heap_bytes", 1024.0 * 1024.0)
    res["db_pool_active_peak"] = peak("pool_active")
    res["db_pool_awaiting_peak"] = peak("pool_awaiting")
    res["worker_pool_active_peak"] = peak("worker_active")
    res["worker_pool_queue_peak"] = peak("worker_queued")
    if before.get("pinned") is not None and after.get("pinned") is not None:
        res["pinned_events"] = after["pinned"] - before["pinned"]
    elif after.get("pinned") is not None:
        res["pinned_events"] = after["pinned"]
    else:
        res["pinned_events"] = None
    res["samples"] = len(timed)
    return res


# the app's quarkus.thread-pool.max-threads (src/main/resources/application.properties), for a run
# whose app did not tell it at /q/info
WORKER_THREADS = 200


def worker_pool_of(meta, default=WORKER_THREADS):
    """quarkus.thread-pool.max-threads of the run's app (META: its machine.json): the worker-mode
    ceiling's numerator."""
    v = str((meta.get("settings") or {}).get("quarkus.thread-pool.max-threads", ""))
    return int(v) if v.isdigit() else default


def worker_ceiling(scenario, params, worker_pool):
    """Little's law for the worker pool: WORKER_POOL threads (quarkus.thread-pool.max-threads) each
    held for the whole request, when that time is known."""
    p = params_of(params)
    try:
        if scenario == "io":
            return worker_pool * 1000.0 / (float(p["delay"]) * float(p.get("calls", 1)))
        if scenario.startswith("pinning"):
            return worker_pool * 1000.0 / float(p["delay"])
    except (KeyError, ValueError, ZeroDivisionError):
        pass
    return None


def step_row(step, worker_pool):
    """The StepRow of one step folder: its row.json, written when the step ended (measure); a
    folder from before row.json is measured now, once. WORKER_POOL: the worker pool's size."""
    return StepRow.read(step) or measure(step, worker_pool)


def measure(step, worker_pool):
    """The StepRow of a step that just ended, from the tools' raw output (parsed here only, at the
    run's edge), kept in its row.json for the report."""
    row = step_figures(step, worker_pool)
    row.write(step)
    return row


def step_figures(step, worker_pool):
    """The StepRow of one step folder; WORKER_POOL: the worker pool's size (worker ceiling)."""
    meta = StepMeta.read(step) or StepMeta()
    tool = meta.tool
    row = StepRow(**{k: meta[k] for k in ("scenario", "params", "mode", "tool", "load_kind",
                                          "load", "duration_s", "client")})
    # mode+client and A/A rows are their own series
    row["mode"] = meta.series or row["mode"]
    row["step"] = os.path.basename(step.rstrip("/"))
    flags, load, dur = [], float(meta.load or 0), float(meta.duration_s or 0)
    ok = 0
    if is_rate(tool):   # the results.json of every rate tool has the shape of Vegeta's report
        rep = read_json(os.path.join(step, "results.json"))
        if rep is None:
            row["flags"] = "NO_RESULTS"
            return row
        ok = rate_figures(row, step, rep, tool, float(meta.ramp_in_s or 0), load, flags)
    elif tool == "hey":
        path = os.path.join(step, "results.csv")
        if not os.path.exists(path):
            row["flags"] = "NO_RESULTS"
            return row
        ok = hey_figures(row, path, dur, flags)
    if row["success_pct"] is not None and row["success_pct"] < 100.0:
        flags.append("ERRORS")
    res = resource_figures(step, meta.scrape_cpu_ms)
    if res["cpu_ms"] is not None and ok:   # a warm app's cost: the JIT's compiling is a start's,
        cpu = res["cpu_ms"] * (1 - (res["jit_pct"] or 0) / 100)   # the scrapes are the harness'
        if meta.cpu_less_scrapes:
            cpu = max(0.0, cpu - (res.get("scrape_ms") or 0.0))
        row["cpu_ms_per_req"] = rnd(cpu / ok, 3)
    for k in ("cpu_pct", "jit_pct", "gc_pct", "rss_peak_mib", "heap_peak_mib", "gen_cpu_pct",
              "delay_cpu_pct", "host_cpu_pct", "host_core_max_pct", "scrape_cpu_pct"):
        row[k] = rnd(res[k])
    for k in ("threads_peak", "pinned_events", "db_pool_active_peak", "db_pool_awaiting_peak",
              "worker_pool_active_peak", "worker_pool_queue_peak"):
        row[k] = None if res[k] is None else int(res[k])
    if res["samples"] < 2:
        flags.append("NO_SAMPLES")
    if os.path.exists(os.path.join(step, "unresponsive.txt")):
        flags.append("APP_UNRESPONSIVE")
    row["flags"] = " ".join(flags)
    if row["mode"].startswith("worker"):
        row["worker_ceiling_rps"] = rnd(worker_ceiling(row["scenario"] or "", row["params"],
                                                       worker_pool), 0)
    return row


def rate_figures(row, step, rep, tool, ramp_in_s, load, flags):
    """Fills ROW from a rate tool's report REP and raw results, FLAGS too -> the successes."""
    raw = rate_result(tool, step, ramp_in_s)
    n = rep.get("requests", 0)
    row["requests"] = n
    row["send_rps"] = rnd(rep.get("rate"))
    row["achieved_rps"] = rnd(rep.get("throughput"))
    row["success_pct"] = rnd(100.0 * rep.get("success", 0), 2)
    ok = round(rep.get("success", 0) * n)
    lat = rep.get("latencies", {})
    if raw:
        for key, p in (("p50_ms", 50), ("p90_ms", 90), ("p99_ms", 99), ("p999_ms", 99.9)):
            row[key] = rnd(raw.percentile_ms(p, ok_only=False), 2)
        row["p50_ok_ms"], row["p99_ok_ms"] = (rnd(raw.percentile_ms(50), 2),
                                              rnd(raw.percentile_ms(99), 2))
        row["p99_all_ms"] = rnd(raw.percentile_ms(99, histogram=raw.every_ms), 2)
        row["max_ms"], row["mean_ms"] = rnd(raw.max_ms, 2), rnd(raw.mean_ms, 2)
        codes, errs = raw.status, raw.errors
    else:
        for key, src in (("p50_ms", "50th"), ("p90_ms", "90th"), ("p99_ms", "99th"),
                         ("max_ms", "max"), ("mean_ms", "mean")):
            row[key] = rnd(lat.get(src, 0) / 1e6, 2) if src in lat else None
        codes, errs = rep.get("status_codes") or {}, {e: 1 for e in rep.get("errors") or []}
    row["status_codes"] = " ".join(f"{c}:{v}" for c, v in sorted(codes.items()))
    row["errors"] = "; ".join(sorted(errs, key=lambda e: -errs[e])[:3])[:300]
    # the tool's rate is what it managed to send: below the asked rate, the generator (not the
    # server) was the limit and latency is under-reported (coordinated omission).
    if rep.get("rate") is not None and rep["rate"] < RATE_TOLERANCE * load:
        flags.append("LOW_SEND_RATE")
    # Its throughput is successes / (send time + wait for the last answers); allow one median
    # latency (+100 ms for a GC pause or slow last answer) of wait: more means answers queued
    # behind the asked rate (in overload the wait grows with the backlog, the median half as fast).
    d = (rep.get("duration") or 0) / 1e9
    p50 = (row["p50_ms"] or 0) / 1000.0 + 0.1
    if (d > 0 and rep.get("throughput") is not None
            and rep["throughput"] < RATE_TOLERANCE * load * d / (d + p50)):
        flags.append("BELOW_RATE")
    return ok


def hey_figures(row, path, dur, flags):
    """Fills ROW from hey's results.csv at PATH, flags into FLAGS -> the successes."""
    rows = hey.rows(path)
    lats = [r[0] for r in rows]
    pc = percentiles([r[0] for r in rows if 200 <= r[1] < 400], (50, 99))
    row["p50_ok_ms"], row["p99_ok_ms"] = rnd(pc[50], 2), rnd(pc[99], 2)
    codes = {}
    for r in rows:
        codes[str(r[1])] = codes.get(str(r[1]), 0) + 1
    ok = sum(1 for r in rows if 200 <= r[1] < 400)
    elapsed = max((r[2] for r in rows), default=dur) or dur
    row["requests"] = len(rows)
    row["achieved_rps"] = rnd(ok / elapsed) if elapsed else None
    row["send_rps"] = rnd(len(rows) / elapsed) if elapsed else None
    row["success_pct"] = rnd(100.0 * ok / len(rows), 2) if rows else 0.0
    pc = percentiles(lats, (50, 90, 99, 99.9))
    for key, p in (("p50_ms", 50), ("p90_ms", 90), ("p99_ms", 99), ("p999_ms", 99.9)):
        row[key] = rnd(pc[p], 2)
    row["max_ms"] = rnd(max(lats), 2) if lats else None
    row["mean_ms"] = rnd(sum(lats) / len(lats), 2) if lats else None
    row["status_codes"] = " ".join(f"{c}:{v}" for c, v in sorted(codes.items()))
    row["errors"] = ""
    if not rows:
        flags.append("NO_ANSWERS")
    return ok


def one_line(row):
    unit = "req/s" if row["load_kind"] == "rate" else "in flight"
    s = (f"{row['tool']:6} {row['scenario']} {row['mode']} {fmt(row['load'])} {unit}: "
         f"{fmt(row['achieved_rps'])} ok/s, {fmt(row['success_pct'], 2)}% ok, "
         f"p50 ok {fmt(row['p50_ok_ms'])} ms, p99 ok {fmt(row['p99_ok_ms'])} ms "
         f"(all {fmt(row['p99_ms'])}), {fmt(row['cpu_ms_per_req'], 3)} CPU-ms/req "
         f"(JIT {fmt(row['jit_pct'], 0)}%, GC {fmt(row['gc_pct'], 0)}%), "
         f"{fmt(row['threads_peak'])} threads, RSS {fmt(row['rss_peak_mib'])} MiB")
    if row["pinned_events"]:
        s += f", {row['pinned_events']} pinned"
    if row["flags"]:
        s += f"  [{row['flags']}]"
    return s


# -------------------------------------------------------------------------------------------- order
def sort_rows(rows):
    """Report order: scenario, Vegeta before hey, mode, load."""
    order = {s: i for i, s in enumerate(SCENARIO_ORDER)}
    return sorted(rows, key=lambda r: (order.get(r["scenario"], 99), r["scenario"] or "",
                                       r["tool"] != "vegeta", mode_rank(r["mode"]), r["mode"] or "",
                                       float(r["load"] or 0)))


def mode_rank(mode):
    """Report order of a series: the known modes first, an A/A row right after its mode."""
    base = (mode or "").removesuffix(AA_SUFFIX)
    return (MODE_ORDER.index(base) if base in MODE_ORDER else len(MODE_ORDER), base, mode != base)


def series_names(rows):
    return sorted({r["mode"] for r in rows}, key=mode_rank)
