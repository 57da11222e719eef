#!/usr/bin/env python3
"""Turns the raw step folders of a compare.sh run into summary.csv, summary.json, summary.md and report.html.

Usage:
  load/report.py build RUN_DIR             summaries and the HTML report for RUN_DIR/steps/*
  load/report.py median OUT RUN_DIR...     the same files in OUT from several runs: per step the row of the run
                                           whose p99 (successes) is the median, min-max of every figure, flags
                                           with their counts
  load/report.py figures RUN_DIR OUT_DIR   io-p99.svg and io-throughput.svg for README (standalone SVG files)
  load/report.py step STEP_DIR             one line about one finished step (compare.sh prints it);
                                           exit 3 when the step saw errors
  load/report.py hey-summary FILE.csv      a short summary of a hey CSV (load/hey.sh prints it)
  load/report.py machine [--java JAVA] [--set KEY=VALUE ...]   machine facts as JSON (compare.sh saves it)

Runs in the virtual environment of load/requirements.txt (load/tools.sh): percentiles with hdrhistogram (3
significant digits), process figures with psutil, /q/metrics with prometheus_client's parser. The report is one
HTML file with inline SVG figures, so it opens offline. Vegeta percentiles come from the raw results
(`vegeta encode`): all answers, and successes only (p50_ok_ms, p99_ok_ms); when no vegeta binary is found, they
come from Vegeta's JSON report, p99.9 and the success-only figures are left empty.
Environment: VEGETA (path of the vegeta binary; else PATH, else $VTVR_CACHE/bin/vegeta).
"""
import csv
import glob
import html
import io
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys

from hdrh.histogram import HdrHistogram

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sample import jvm_metrics  # noqa: E402  (same folder)

MODE_COLORS = {"virtual": "#1f77b4", "worker": "#e6730f", "reactive": "#2ca02c", "virtual+socket": "#17becf",
               "worker+socket": "#bcbd22"}
EXTRA_COLORS = ["#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#d62728"]
MODE_ORDER = ["virtual", "virtual+socket", "worker", "worker+socket", "reactive"]
AA_SUFFIX = "-aa"   # the A/A row: the same mode measured a second time in the same run, from a fresh app
SCENARIO_ORDER = ["io", "fanout", "db", "slow-query", "checkout", "cpu", "pinning", "pinning-reentrant"]
# The settings that make the comparison fair or bound it, printed in every report: (key, what it is)
SETTINGS = [
    ("quarkus.thread-pool.max-threads", "worker threads"), ("quarkus.thread-pool.queue-size", "worker queue"),
    ("bench.fanout-pool-size", "worker fan-out threads"), ("bench.fanout-queue-size", "worker fan-out queue"),
    ("quarkus.datasource.jdbc.max-size", "JDBC pool"), ("quarkus.datasource.reactive.max-size", "reactive pool"),
    ("bench.db-acquire-timeout", "DB pool wait"), ("bench.db-socket-timeout-ms", "DB socket timeout ms"),
    ("quarkus.rest-client.delay.connection-pool-size", "delay client connections"),
    ("bench.blocking-client", "blocking delay client"), ("bench.request-deadline", "request deadline"),
    ("bench.max-in-flight", "requests in progress per mode"), ("bench.max-n-event-loop", "reactive cpu n ceiling"),
]


def app_settings(java_opts=""):
    """SETTINGS as this build configures them: application.properties, else BenchConfig's @WithDefault, with
    -Dkey=value in the app's JVM options winning (what the app of this run was started with)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    props = read_text(os.path.join(root, "src", "main", "resources", "application.properties"))
    config = read_text(os.path.join(root, "src", "main", "java", "org", "vtvr", "scenario", "BenchConfig.java"))
    out = {}
    for key, _ in SETTINGS:
        m = re.search(r"^-?D?" + re.escape(key) + r"=(\S+)", " ".join((java_opts or "").split()).replace(" -D", "\n"), re.M)
        if not m:
            m = re.search(r"^" + re.escape(key) + r"\s*=\s*(.+)$", props, re.M)
        if not m and key.startswith("bench."):
            method = re.sub(r"-(\w)", lambda g: g.group(1).upper(), key[len("bench."):])
            m = re.search(r'@WithDefault\("([^"]*)"\)\s*\n\s*\S+\s+' + method + r"\(\)", config)
        value = m.group(1).strip() if m else "?"
        out[key] = re.sub(r"^\$\{[^:}]+:([^}]*)\}$", r"\1", value)   # ${bench.x:3s} -> 3s
    return out


def settings_text(meta):
    """The run's settings as one line: 'worker threads 200, worker queue 400, ...'."""
    values = meta.get("settings") or app_settings(meta.get("java_opts", ""))
    return ", ".join(f"{label} {values.get(key, '?')}" for key, label in SETTINGS)


def _worker_pool(default=200):
    """quarkus.thread-pool.max-threads: the worker-mode ceiling's numerator."""
    v = app_settings().get("quarkus.thread-pool.max-threads", "")
    return int(v) if v.isdigit() else default
RATE_TOLERANCE = 0.95

WORKER_POOL = None  # set in main(), after the helpers exist

FIELDS = [
    "scenario", "params", "mode", "tool", "load_kind", "load", "duration_s", "requests", "send_rps",
    "achieved_rps", "success_pct", "p50_ok_ms", "p99_ok_ms", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "p99_all_ms", "max_ms", "mean_ms",
    "cpu_ms_per_req", "cpu_pct", "jit_pct", "gc_pct", "rss_peak_mib", "threads_peak", "heap_peak_mib", "pinned_events",
    "db_pool_active_peak", "db_pool_awaiting_peak", "worker_pool_active_peak", "worker_pool_queue_peak",
    "worker_ceiling_rps", "gen_cpu_pct", "delay_cpu_pct", "scrape_cpu_pct", "client", "status_codes", "errors",
    "flags", "step", "runs", "p99_range_ms", "ranges",
]
TEXT_FIELDS = {"scenario", "params", "mode", "tool", "load_kind", "client", "status_codes", "errors", "flags", "step",
               "runs", "p99_range_ms", "ranges"}


# ---------------------------------------------------------------------------------------------- helpers
def percentiles(values_ms, ps):
    """{p: value in ms} for each percentile in PS, from an HdrHistogram of VALUES_MS (1 us to 1 h, 3 significant
    digits); {p: None} for no values."""
    if not values_ms:
        return {p: None for p in ps}
    h = HdrHistogram(1, 3_600_000_000, 3)
    for v in values_ms:
        h.record_value(max(1, round(v * 1000)))
    return {p: h.get_value_at_percentile(p) / 1000.0 for p in ps}


def percentile(values_ms, p):
    return percentiles(values_ms, [p])[p]


def rnd(x, nd=1):
    return None if x is None else round(x, nd)


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
    for cand in (os.environ.get("VEGETA"), shutil.which("vegeta"),
                 os.path.join(os.environ.get("VTVR_CACHE") or os.path.join(
                     os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "vt-vs-reactive"),
                     "bin", "vegeta")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def parse_duration_s(s):
    m = re.fullmatch(r"\s*([\d.]+)\s*(ms|s|m|h)?\s*", str(s))
    if not m:
        return None
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]


# ---------------------------------------------------------------------------------------------- one step
def vegeta_latencies(step, ramp_in_s=0.0):
    """-> (latencies in ms of the requests sent after the first RAMP_IN_S seconds, of those that succeeded, of all
    requests, status counts, errors) from results.bin, or None without vegeta. Status counts and errors cover
    every request."""
    binf, vb = os.path.join(step, "results.bin"), vegeta_bin()
    if not (vb and os.path.exists(binf)):
        return None
    with open(binf, "rb") as f:
        out = subprocess.run([vb, "encode", "-to", "csv"], stdin=f, capture_output=True, check=False)
    if out.returncode != 0:
        return None
    sent, codes, errors = [], {}, {}
    return vegeta_csv(out.stdout.decode("utf-8", "replace"), ramp_in_s)


def vegeta_csv(text, ramp_in_s=0.0):
    """vegeta_latencies from the text of `vegeta encode -to csv` (timestamp ns, code, latency ns, bytes out, bytes
    in, error, ...); a success is what Vegeta counts as one: a 2xx/3xx status without an error."""
    sent, codes, errors = [], {}, {}
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 6:
            continue
        sent.append((int(row[0]), int(row[2]) / 1e6, 200 <= int(row[1]) < 400 and not row[5]))
        codes[row[1]] = codes.get(row[1], 0) + 1
        if row[5]:
            errors[row[5]] = errors.get(row[5], 0) + 1
    start = min((t for t, _, _ in sent), default=0) + ramp_in_s * 1e9
    return ([l for t, l, _ in sent if t >= start], [l for t, l, ok in sent if t >= start and ok],
            [l for _, l, _ in sent], codes, errors)


def hey_rows(path):
    """-> list of (latency ms, status, end offset s) of the answered requests in a hey CSV (plain numbers, so
    split() is enough: a fast error flood can leave millions of rows)."""
    rows = []
    with open(path) as f:
        head = f.readline().strip().split(",")
        try:
            i_lat, i_code, i_off = head.index("response-time"), head.index("status-code"), head.index("offset")
        except ValueError:
            return rows
        for line in f:
            r = line.split(",")
            try:
                lat = float(r[i_lat])
                rows.append((lat * 1000.0, int(r[i_code]), float(r[i_off]) + lat))
            except (IndexError, ValueError):
                continue
    return rows


def resource_figures(step):
    samples = []
    for line in read_text(os.path.join(step, "samples.jsonl")).splitlines():
        try:
            samples.append(json.loads(line))
        except ValueError:
            pass
    before = jvm_metrics(read_text(os.path.join(step, "metrics-before.prom")))
    after = jvm_metrics(read_text(os.path.join(step, "metrics-after.prom")))
    res = {"cpu_ms": None, "cpu_pct": None, "rss_peak_mib": None, "threads_peak": None, "gen_cpu_pct": None,
           "delay_cpu_pct": None, "scrape_cpu_pct": None}
    # a remote app (no pid): its CPU and RSS come from the scrapes (Micrometer's process_cpu_time)
    for s in samples:
        m = s.get("metrics") or {}
        if "cpu_ms" not in s and m.get("process_cpu_ms") is not None:
            s["cpu_ms"] = m["process_cpu_ms"]
            if m.get("process_rss_bytes"):
                s["rss_kb"] = m["process_rss_bytes"] / 1024
            if m.get("jvm_live_threads"):
                s["threads"] = m["jvm_live_threads"]
    timed = [s for s in samples if s.get("cpu_ms") is not None]
    wall = timed[-1]["t"] - timed[0]["t"] if len(timed) >= 2 else 0
    if len(timed) >= 2:
        # the whole window, scrapes included: never subtracted, their idle cost is stated beside it
        cpu = timed[-1]["cpu_ms"] - timed[0]["cpu_ms"]
        res["cpu_ms"] = cpu
        res["cpu_pct"] = 100.0 * cpu / (wall * 1000.0) if wall > 0 else None
        meta = read_json(os.path.join(step, "meta.json"), {})
        if meta.get("scrape_cpu_ms") is not None and cpu > 0:
            res["scrape_cpu_pct"] = 100.0 * samples[-1].get("scrapes", 0) * meta["scrape_cpu_ms"] / cpu
        if wall > 0 and samples[0].get("delay_cpu_ms") is not None and samples[-1].get("delay_cpu_ms") is not None:
            res["delay_cpu_pct"] = (samples[-1]["delay_cpu_ms"] - samples[0]["delay_cpu_ms"]) / wall / 10.0
        gen = read_json(os.path.join(step, "generator.json"))
        if gen and gen.get("wall_ms"):
            res["gen_cpu_pct"] = 100.0 * gen["cpu_ms"] / gen["wall_ms"]
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


def step_row(step):
    meta = read_json(os.path.join(step, "meta.json"), {})
    tool = meta.get("tool")
    row = {k: None for k in FIELDS}
    row.update({k: meta.get(k) for k in ("scenario", "params", "mode", "tool", "load_kind", "load", "duration_s",
                                         "client")})
    row["mode"] = meta.get("series") or row["mode"]   # mode+client and A/A rows are their own series
    row["step"] = os.path.basename(step.rstrip("/"))
    flags, load, dur = [], float(meta.get("load") or 0), float(meta.get("duration_s") or 0)
    ok = 0
    if tool == "vegeta":
        rep = read_json(os.path.join(step, "results.json"))
        if rep is None:
            row["flags"] = "NO_RESULTS"
            return row
        raw = vegeta_latencies(step, float(meta.get("ramp_in_s") or 0))
        n = rep.get("requests", 0)
        row["requests"] = n
        row["send_rps"] = rnd(rep.get("rate"))
        row["achieved_rps"] = rnd(rep.get("throughput"))
        row["success_pct"] = rnd(100.0 * rep.get("success", 0), 2)
        ok = round(rep.get("success", 0) * n)
        lat = rep.get("latencies", {})
        if raw:
            lats, ok_lats, all_lats, codes, errs = raw
            pc = percentiles(lats, (50, 90, 99, 99.9))
            for key, p in (("p50_ms", 50), ("p90_ms", 90), ("p99_ms", 99), ("p999_ms", 99.9)):
                row[key] = rnd(pc[p], 2)
            pc = percentiles(ok_lats, (50, 99))
            row["p50_ok_ms"], row["p99_ok_ms"] = rnd(pc[50], 2), rnd(pc[99], 2)
            row["p99_all_ms"] = rnd(percentile(all_lats, 99), 2)
            row["max_ms"] = rnd(max(lats), 2) if lats else None
            row["mean_ms"] = rnd(sum(lats) / len(lats), 2) if lats else None
        else:
            for key, src in (("p50_ms", "50th"), ("p90_ms", "90th"), ("p99_ms", "99th"), ("max_ms", "max"),
                             ("mean_ms", "mean")):
                row[key] = rnd(lat.get(src, 0) / 1e6, 2) if src in lat else None
            codes, errs = rep.get("status_codes") or {}, {e: 1 for e in rep.get("errors") or []}
        row["status_codes"] = " ".join(f"{c}:{v}" for c, v in sorted(codes.items()))
        row["errors"] = "; ".join(sorted(errs, key=lambda e: -errs[e])[:3])[:300]
        # Vegeta's rate is what it managed to send: below the asked rate, the generator (not the server)
        # was the limit and latency is under-reported (coordinated omission).
        if rep.get("rate") is not None and rep["rate"] < RATE_TOLERANCE * load:
            flags.append("LOW_SEND_RATE")
        # Its throughput is successes / (send time + wait for the last answers); allow one median latency
        # (+100 ms for a GC pause or a slow last answer) of wait, more means answers queued up behind the
        # asked rate: under overload the wait grows with the backlog, the median only half as fast.
        d = (rep.get("duration") or 0) / 1e9
        p50 = (row["p50_ms"] or 0) / 1000.0 + 0.1
        if d > 0 and rep.get("throughput") is not None and rep["throughput"] < RATE_TOLERANCE * load * d / (d + p50):
            flags.append("BELOW_RATE")
    elif tool == "hey":
        path = os.path.join(step, "results.csv")
        if not os.path.exists(path):
            row["flags"] = "NO_RESULTS"
            return row
        rows = hey_rows(path)
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
    if row["success_pct"] is not None and row["success_pct"] < 100.0:
        flags.append("ERRORS")
    res = resource_figures(step)
    if res["cpu_ms"] is not None and ok:
        row["cpu_ms_per_req"] = rnd(res["cpu_ms"] / ok, 3)
    for k in ("cpu_pct", "jit_pct", "gc_pct", "rss_peak_mib", "heap_peak_mib", "gen_cpu_pct", "delay_cpu_pct",
              "scrape_cpu_pct"):
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
        row["worker_ceiling_rps"] = rnd(worker_ceiling(row["scenario"] or "", row["params"]), 0)
    return row


def one_line(row):
    unit = "req/s" if row["load_kind"] == "rate" else "in flight"
    s = (f"{row['tool']:6} {row['scenario']} {row['mode']} {fmt(row['load'])} {unit}: "
         f"{fmt(row['achieved_rps'])} ok/s, {fmt(row['success_pct'], 2)}% ok, p50 ok {fmt(row['p50_ok_ms'])} ms, "
         f"p99 ok {fmt(row['p99_ok_ms'])} ms (all {fmt(row['p99_ms'])}), {fmt(row['cpu_ms_per_req'], 3)} CPU-ms/req "
         f"(JIT {fmt(row['jit_pct'], 0)}%, GC {fmt(row['gc_pct'], 0)}%), "
         f"{fmt(row['threads_peak'])} threads, RSS {fmt(row['rss_peak_mib'])} MiB")
    if row["pinned_events"]:
        s += f", {row['pinned_events']} pinned"
    if row["flags"]:
        s += f"  [{row['flags']}]"
    return s


# ---------------------------------------------------------------------------------------------- machine
def machine(argv):
    info = {"cores": os.cpu_count(), "os": platform.platform(), "kernel": platform.release(),
            "python": platform.python_version()}
    for line in read_text("/etc/os-release").splitlines():
        if line.startswith("PRETTY_NAME="):
            info["os"] = line.split("=", 1)[1].strip('"')
    for line in read_text("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            info["cpu"] = line.split(":", 1)[1].strip()
            break
    for line in read_text("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            info["memory_mib"] = int(line.split()[1]) // 1024
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    m = re.search(r"<quarkus\.platform\.version>([^<]+)<", read_text(os.path.join(root, "pom.xml")))
    info["quarkus"] = m.group(1) if m else None
    it = iter(argv)
    for a in it:
        if a == "--java":
            java = next(it)
            try:
                out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
                info["jdk"] = " / ".join(out.strip().splitlines()[:2])
            except (OSError, subprocess.SubprocessError):
                info["jdk"] = None
        elif a == "--set":
            k, v = next(it).split("=", 1)
            info[k] = v
        elif a == "--list":
            k, v = next(it).split("=", 1)
            info[k] = [x for x in v.split(",") if x]
    info["settings"] = app_settings(info.get("java_opts", ""))
    try:
        info["git_commit"] = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                                            capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        info["git_commit"] = None
    print(json.dumps(info, indent=2))


# ---------------------------------------------------------------------------------------------- SVG
def nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, t = [], start
    while not ticks or ticks[-1] < hi - step * 0.001:
        ticks.append(round(t, 10))
        t += step
    return ticks


def svg_chart(title, subtitle, series, xlabel, ylabel, hlines=(), logy=None, w=328, h=270):
    """series: [{name, color, dash, points: [(x, y, flagged, tooltip)]}]; x is categorical (sorted union)."""
    pts = [p for s in series for p in s["points"] if p[1] is not None]
    ml, mr, mt, mb = 52, 10, 56, 40
    legend, lx, ly = [], ml, 0   # (x, line) of each series' legend entry, wrapped to the chart's width
    for s in series:
        width = 26 + 6.2 * len(s["name"])
        if lx > ml and lx + width > w - mr:
            lx, ly = ml, ly + 1
        legend.append((lx, ly))
        lx += width
    mt += 14 * ly
    h += 14 * ly
    pw, ph = w - ml - mr, h - mt - mb
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'class="chart" role="img" aria-label="{e(title)}">',
           f'<text x="{ml}" y="16" class="t">{e(title)}</text>',
           f'<text x="{ml}" y="31" class="st">{e(subtitle)}</text>']
    if not pts:
        out.append(f'<text x="{w / 2}" y="{h / 2}" text-anchor="middle" class="st">no data</text></svg>')
        return "".join(out)
    xs = sorted({p[0] for p in pts})
    ys = [p[1] for p in pts] + [v for v, _ in hlines]
    ymin, ymax = min(ys), max(ys)
    if logy is None:
        logy = ymin > 0 and ymax / ymin > 30
    if logy:
        lo, hi = math.floor(math.log10(max(min(ys), 1e-3))), math.ceil(math.log10(max(ys)))
        hi = max(hi, lo + 1)
        ticks = [10 ** k for k in range(lo, hi + 1)]
        fy = lambda v: mt + ph - (math.log10(max(v, 10 ** lo)) - lo) / (hi - lo) * ph  # noqa: E731
    else:
        ticks = nice_ticks(0, ymax * 1.08 if ymax > 0 else 1)
        top = ticks[-1]
        fy = lambda v: mt + ph - v / top * ph  # noqa: E731
    n = len(xs)
    fx = lambda x: ml + (pw * (xs.index(x) + 0.5) / n)  # noqa: E731
    nudge = {id(s): (i - (len(series) - 1) / 2) * 5 for i, s in enumerate(series)}  # equal values stay visible
    out.append(f'<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" class="plot"/>')
    for t in ticks:
        y = fy(t)
        out.append(f'<line x1="{ml}" x2="{ml + pw}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{ml - 5}" y="{y + 4:.1f}" text-anchor="end" class="ax">{fmt_tick(t)}</text>')
    for x in xs:
        out.append(f'<text x="{fx(x):.1f}" y="{mt + ph + 15}" text-anchor="middle" class="ax">{fmt_tick(x)}</text>')
    out.append(f'<text x="{ml + pw / 2}" y="{h - 6}" text-anchor="middle" class="ax">{e(xlabel)}</text>')
    out.append(f'<text transform="translate(13,{mt + ph / 2}) rotate(-90)" text-anchor="middle" class="ax">'
               f'{e(ylabel)}{" (log)" if logy else ""}</text>')
    for v, label in hlines:
        y = fy(v)
        out.append(f'<line x1="{ml}" x2="{ml + pw}" y1="{y:.1f}" y2="{y:.1f}" class="ceil"/>'
                   f'<text x="{ml + pw - 4}" y="{y - 4:.1f}" text-anchor="end" class="ceilt">{e(label)}</text>')
    for s in series:
        sp = sorted((p for p in s["points"] if p[1] is not None), key=lambda p: xs.index(p[0]))
        dx = nudge[id(s)]
        if len(sp) > 1:
            d = " ".join(f"{'M' if i == 0 else 'L'}{fx(p[0]) + dx:.1f},{fy(p[1]):.1f}" for i, p in enumerate(sp))
            dash = ' stroke-dasharray="5,4"' if s.get("dash") else ""
            out.append(f'<path d="{d}" fill="none" stroke="{s["color"]}" stroke-width="2"{dash}/>')
        for x, y, flagged, tip in sp:
            cx, cy = fx(x) + dx, fy(y)
            out.append(f'<g><title>{e(tip)}</title>')
            if flagged:
                out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="7" class="flag"/>')
            shape = (f'<rect x="{cx - 3.5:.1f}" y="{cy - 3.5:.1f}" width="7" height="7" fill="{s["color"]}"/>'
                     if s.get("dash") else f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.8" fill="{s["color"]}"/>')
            out.append(shape + "</g>")
    for s, (lx, line) in zip(series, legend):  # legend between the titles and the plot
        label, y = s["name"], mt - 12 - 14 * (ly - line)
        dash = ' stroke-dasharray="5,4"' if s.get("dash") else ""
        out.append(f'<line x1="{lx}" x2="{lx + 16}" y1="{y}" y2="{y}" stroke="{s["color"]}" '
                   f'stroke-width="2"{dash}/>'
                   f'<text x="{lx + 19}" y="{y + 4}" class="lg">{e(label)}</text>')
    out.append("</svg>")
    return "".join(out)


def fmt_tick(v):
    if v >= 1000 and float(v).is_integer():
        return f"{v / 1000:g}k" if v % 1000 == 0 else f"{v:,.0f}"
    return f"{v:g}"


# ---------------------------------------------------------------------------------------------- build
def load_rows(run):
    rows = []
    for step in sorted(glob.glob(os.path.join(run, "steps", "*"))):
        if os.path.exists(os.path.join(step, "meta.json")):
            rows.append(step_row(step))
    return sort_rows(rows)


def params_of(params):
    """'delay=100&calls=1' -> {'delay': '100', 'calls': '1'}"""
    return dict(kv.split("=", 1) for kv in (params or "").split("&") if "=" in kv)


def sort_rows(rows):
    """Report order: scenario, Vegeta before hey, mode, load."""
    order = {s: i for i, s in enumerate(SCENARIO_ORDER)}
    return sorted(rows, key=lambda r: (order.get(r["scenario"], 99), r["scenario"] or "", r["tool"] != "vegeta",
                                       mode_rank(r["mode"]), r["mode"] or "",
                                       float(r["load"] or 0)))


def worker_ceiling(scenario, params):
    """Little's law for the worker pool: 200 threads each held for the whole request, when that time is known."""
    p = params_of(params)
    try:
        if scenario == "io":
            return WORKER_POOL * 1000.0 / (float(p["delay"]) * float(p.get("calls", 1)))
        if scenario.startswith("pinning"):
            return WORKER_POOL * 1000.0 / float(p["delay"])
    except (KeyError, ValueError, ZeroDivisionError):
        pass
    return None


def tip(r):
    return (f"{r['mode']} {r['tool']} {r['load']} {'req/s' if r['load_kind'] == 'rate' else 'in flight'}\n"
            f"achieved {fmt(r['achieved_rps'])} req/s, success {fmt(r['success_pct'], 2)}%\n"
            f"successes: p50 {fmt(r['p50_ok_ms'])} / p99 {fmt(r['p99_ok_ms'])} ms; "
            f"all answers: p50 {fmt(r['p50_ms'])} / p99 {fmt(r['p99_ms'])} / max {fmt(r['max_ms'])} ms\n"
            f"CPU {fmt(r['cpu_ms_per_req'], 3)} ms/req, RSS {fmt(r['rss_peak_mib'])} MiB, "
            f"threads {fmt(r['threads_peak'])}" + (f"\nFLAGS: {r['flags']}" if r["flags"] else ""))


def mode_rank(mode):
    """Report order of a series: the known modes first, an A/A row right after its mode."""
    base = (mode or "").removesuffix(AA_SUFFIX)
    return (MODE_ORDER.index(base) if base in MODE_ORDER else len(MODE_ORDER), base, mode != base)


def series_names(rows):
    return sorted({r["mode"] for r in rows}, key=mode_rank)


def mode_color(mode, names):
    base = mode.removesuffix(AA_SUFFIX)
    if base in MODE_COLORS:
        return MODE_COLORS[base]
    extra = [n for n in names if n.removesuffix(AA_SUFFIX) not in MODE_COLORS]
    return EXTRA_COLORS[extra.index(mode) % len(EXTRA_COLORS)] if mode in extra else "#333"


def series_for(rows, key, dash=False, suffix="", x=lambda r: float(r["load"])):
    out, names = [], series_names(rows)
    for mode in names:
        mr = [r for r in rows if r["mode"] == mode]
        out.append({"name": mode + suffix, "color": mode_color(mode, names),
                    "dash": dash or mode.endswith(AA_SUFFIX),
                    "points": [(x(r), r[key], bool(r["flags"]), tip(r)) for r in mr]})
    return out


def calls_of(r):
    return float(params_of(r["params"]).get("calls", 1))


def write_csv_json(run, rows):
    with open(os.path.join(run, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: "" if r.get(k) is None else json.dumps(r[k]) if isinstance(r[k], dict) else r[k]
                        for k in FIELDS})
    meta = read_json(os.path.join(run, "machine.json"), {})
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump({"machine": meta, "rows": rows}, f, indent=1)


MD_COLS = [("mode", "mode"), ("tool", "tool"), ("load", "load"), ("achieved_rps", "ok req/s"),
           ("success_pct", "ok %"), ("p50_ok_ms", "p50 ok ms"), ("p99_ok_ms", "p99 ok ms"), ("p50_ms", "p50 ms"), ("p90_ms", "p90 ms"), ("p99_ms", "p99 ms"),
           ("p999_ms", "p99.9 ms"), ("p99_all_ms", "p99 incl. ramp-in"), ("max_ms", "max ms"),
           ("cpu_ms_per_req", "CPU ms/req"), ("cpu_pct", "app CPU %"), ("gen_cpu_pct", "gen CPU %"),
           ("delay_cpu_pct", "delay CPU %"), ("jit_pct", "JIT %"), ("rss_peak_mib", "RSS MiB"),
           ("threads_peak", "threads"), ("heap_peak_mib", "heap MiB"),
           ("pinned_events", "pinned"), ("db_pool_active_peak", "pool act"),
           ("db_pool_awaiting_peak", "pool wait"), ("status_codes", "status"), ("flags", "flags")]


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
        "Order: the modes are measured in a rotated order per run (mode order above), so no mode always gets "
        "the warmest database and page cache; an A/A row (-aa) measures one mode twice to show the noise floor.",
        "CPU per request: the app process's user+system CPU (psutil) between two readings taken when the load "
        "tool starts and when it has ended, over the successful requests. /q/metrics is scraped during the "
        f"step every {meta.get('metrics_interval', '0.5')} s for the pool gauges; that cost stays in the figure "
        "(never subtracted) and is shown as 'scrape CPU %' (scrapes x one scrape's CPU measured at idle).",
        "Latency: 'ok' percentiles count successes only (the targets and charts use them, beside the success "
        "rate); the plain p50/p99 count every answer, fast errors included. Percentiles: HdrHistogram, "
        "3 significant digits.",
        "A remote app (--app-url without --app-pid) is measured from its /q/metrics only: CPU from "
        "process_cpu_time_ns_total, threads from jvm_threads_live_threads; RSS only if it exports "
        "process_resident_memory_bytes.",
    ]


def write_md(run, rows, meta, scenarios):
    lines = ["# vt-vs-reactive load run", ""]
    lines += [f"- **machine**: {meta.get('cores')} cores ({meta.get('cpu', '?')}), "
              f"{meta.get('memory_mib', '?')} MiB RAM, {meta.get('os', '?')}, kernel {meta.get('kernel', '?')}",
              f"- **JDK**: {meta.get('jdk', 'n/a')}", f"- **Quarkus**: {meta.get('quarkus', 'n/a')}",
              f"- **app**: {meta.get('app', 'n/a')}; JVM options: `{meta.get('java_opts') or 'JVM defaults'}`",
              f"- **run**: {meta.get('started', '?')}, `{meta.get('command', '')}`, commit {meta.get('git_commit')}",
              f"- **tools**: {meta.get('vegeta', 'vegeta')}, {meta.get('hey', 'hey')}",
              f"- **mode order**: {order_text(meta)}", f"- **CPU placement**: {meta.get('placement') or 'none'}",
              f"- **pools and limits** (every mode): {settings_text(meta)}",
              ""] + [f"- {x}" for x in method_notes(meta)] + [""]
    lines += ["Vegeta rows (load in req/s) are the open model: latency truth at a fixed arrival rate; their "
              "percentiles leave out the requests of the step's ramp-in (RAMP_IN, 1 s by default), which "
              "'p99 incl. ramp-in' counts too. hey rows "
              "(load = requests in flight) are the closed model: they probe saturation throughput; their "
              "latency hides queueing. 'ok req/s' is Vegeta's throughput (successes over send time plus the "
              "wait for the last answers) or hey's successes per second. CPU ms/req is the app process's "
              "utime+stime during the step over successful requests (delay service not included). threads = "
              "peak OS threads of the app (platform threads). Flags: LOW_SEND_RATE = Vegeta sent < 95% of the "
              "asked rate (generator-limited, latency under-reported); BELOW_RATE = answers fell > 5% behind "
              "the asked rate (server saturated); ERRORS = success < 100%; NO_SAMPLES = no process samples; APP_UNRESPONSIVE = the "
              "app did not answer one more request after the step (thread dump in the step folder) and was "
              "restarted.", ""]
    lines += targets_md(rows, meta)
    for sc in scenarios:
        sr = [r for r in rows if r["scenario"] == sc]
        if not sr:
            continue
        lines += [f"## {sc} (`{sr[0]['params']}`)", ""]
        ceil = worker_ceiling(sc, sr[0]["params"])
        if ceil:
            lines += [f"Worker-mode ceiling by Little's law: {WORKER_POOL} threads / request time = "
                      f"{ceil:,.0f} req/s.", ""]
        lines.append("| " + " | ".join(h for _, h in MD_COLS) + " |")
        lines.append("|" + "|".join("---" for _ in MD_COLS) + "|")
        for r in sr:
            cells = [load_label(r) if k == "load" else fmt(r[k], 3 if k == "cpu_ms_per_req" else 1)
                     for k, _ in MD_COLS]
            lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
        lines.append("")
    flagged = [r for r in rows if r["flags"]]
    lines += ["## Flagged steps", ""]
    lines += [f"- {r['scenario']} {r['mode']} {r['tool']} {load_label(r)}: {r['flags']}"
              + (f" ({r['errors']})" if r.get("errors") else "") for r in flagged] or ["none"]
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1380px;
 color:#222;padding:0 16px}
h1{font-size:22px;margin:0 0 6px} h2{font-size:18px;margin:30px 0 4px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:14px;margin:12px 0 4px;color:#444}
.meta{color:#444;font-size:13px} .meta td{padding:1px 10px 1px 0} .note{color:#555;font-size:12.5px;max-width:1100px}
.row{display:flex;flex-wrap:wrap;gap:8px}
.chart{background:#fff;border:1px solid #e3e3e3;border-radius:4px}
.chart .t{font-size:13px;font-weight:600;fill:#222} .chart .st{font-size:11px;fill:#666}
.chart .ax{font-size:10.5px;fill:#555} .chart .lg{font-size:11px;fill:#333}
.chart .plot{fill:#fcfcfc;stroke:#ccc} .chart .grid{stroke:#eee}
.chart .flag{fill:none;stroke:#d62728;stroke-width:2}
.chart .ceil{stroke:#e6730f;stroke-dasharray:2,3;stroke-width:1.5} .chart .ceilt{font-size:10.5px;fill:#b35300}
table.d{border-collapse:collapse;font-size:12px;margin:6px 0} table.d th,table.d td{border:1px solid #ddd;padding:2px 6px;
 text-align:right;white-space:nowrap} table.d th{background:#f3f3f3} table.d td.l{text-align:left}
tr.flagged td{background:#fff1f0} .flagtxt{color:#c0392b;font-weight:600}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px}
"""


def write_html(run, rows, meta, scenarios):
    e = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vt-vs-reactive load report"
             f"</title><style>{CSS}</style></head><body>",
             "<h1>Virtual threads vs reactive vs worker pool: load report</h1>",
             f"<p class='note'>{e(meta.get('started', '?'))}, {e(str(meta.get('cores', '?')))} cores; mode order "
             f"{e(order_text(meta))}; CPU placement: {e(meta.get('placement') or 'none')}. The run's details "
             "follow the targets.</p>",
             targets_html(rows, meta),
             "<h2>This run</h2><table class='meta'>"]
    for k, label in (("cores", "cores"), ("cpu", "CPU"), ("memory_mib", "memory MiB"), ("os", "OS"),
                     ("jdk", "JDK"), ("quarkus", "Quarkus"), ("app", "app"), ("java_opts", "JVM options"),
                     ("started", "started"), ("command", "command"), ("git_commit", "commit"),
                     ("vegeta", "Vegeta"), ("hey", "hey"), ("mode_order", "mode order"),
                     ("placement", "CPU placement"), ("settings", "pools and limits (every mode)")):
        v = order_text(meta) if k == "mode_order" else settings_text(meta) if k == "settings" else meta.get(k)
        if k == "placement" and not v:
            v = "none: every process may use every core"
        if k == "java_opts" and not v:
            v = "JVM defaults (max heap = 1/4 of RAM)"
        parts.append(f"<tr><td>{label}</td><td>{e(str(v if v not in (None, '') else 'n/a'))}</td></tr>")
    parts.append("</table>")
    names = series_names(rows)
    parts.append("<p>Modes:" + "".join(f"<span class='sw' style='background:{mode_color(m, names)}'></span>{m}"
                                       for m in names) +
                 f" (a name ending in {AA_SUFFIX} is the A/A row, dashed: that mode measured a second time, from a "
                 "fresh app). <span class='flagtxt'>Red rings</span> mark flagged steps (hover a point for its "
                 "numbers).</p>")
    parts.append("<p class='note'>" + "<br>".join(e(x) for x in method_notes(meta)) + "</p>")
    if str(meta.get("reuse")) == "1":
        parts.append("<p class='note'><b>One app served every mode in turn</b> (--reuse or --quick): peak threads, "
                     "RSS and heap carry over from the modes measured before; run without --reuse for a fresh "
                     "app and delay service per mode.</p>")
    parts.append("<p class='note'>Latency figures come from <b>Vegeta</b> (open model: a constant arrival rate, "
                 "so queueing shows as latency; nearest-rank percentiles of every request sent after the step's "
                 "ramp-in, RAMP_IN, 1 s by default, whose requests 'p99 incl. ramp-in' also counts). "
                 "Throughput-vs-concurrency "
                 "figures come from <b>hey</b> (closed model: N requests in flight; the saturation probe). "
                 "Resource figures are sampled from the app process (/proc: utime+stime, VmRSS, Threads) "
                 "during the Vegeta steps. Flags: LOW_SEND_RATE = Vegeta sent &lt; 95% of the asked rate "
                 "(load generator limited; coordinated omission); BELOW_RATE = answers fell behind the asked "
                 "rate (saturated); ERRORS = success &lt; 100%; APP_UNRESPONSIVE = the app did not answer one more "
                 "request after the step (its thread dump is in the step folder) and was restarted.</p>")
    for sc in scenarios:
        sr = [r for r in rows if r["scenario"] == sc]
        if not sr:
            continue
        veg = [r for r in sr if r["tool"] == "vegeta"]
        hey = [r for r in sr if r["tool"] == "hey"]
        params = " | ".join(dict.fromkeys(r["params"] or "" for r in sr))   # several in the cost experiment
        parts.append(f"<h2 id='{e(sc)}'>{e(sc)} <small style='font-weight:normal;color:#666'>"
                     f"{e(params)}</small></h2>")
        ceil = worker_ceiling(sc, sr[0]["params"])
        if ceil:
            parts.append(f"<p class='note'>Worker mode cannot pass {WORKER_POOL} threads / request time = "
                         f"<b>{ceil:,.0f} req/s</b> (Little's law); dotted line in the hey figure.</p>")
        charts = []   # (heading, [svg]) per row of charts; a tool without steps here gets none
        cost_keys = (("cpu_ms_per_req", "CPU per request", "CPU ms/req"), ("rss_peak_mib", "peak RSS", "MiB"))
        if veg:
            charts.append(("Latency vs request rate &mdash; Vegeta (open model)", [
                svg_chart(f"{label} latency", f"Vegeta, constant rate, {sub}", series_for(veg, key),
                          "requested rate (req/s)", "ms")
                for key, label, sub in (("p50_ok_ms", "p50", "successes only"), ("p99_ok_ms", "p99", "successes only"),
                                        ("p999_ms", "p99.9", "all answers"))] + [
                svg_chart("success rate", "Vegeta: 2xx/3xx answers / requests", series_for(veg, "success_pct"),
                          "requested rate (req/s)", "% ok", logy=False),
                svg_chart("achieved throughput", "Vegeta: successes / (send + wait)",
                          series_for(veg, "achieved_rps"), "requested rate (req/s)", "req/s", logy=False)]))
        if hey:
            hl = [(ceil, f"worker ceiling {ceil:,.0f}/s")] if ceil else []
            charts.append(("Throughput vs concurrency &mdash; hey (closed model)", [
                svg_chart("throughput", "hey, N requests in flight", series_for(hey, "achieved_rps"),
                          "concurrency", "ok req/s", hlines=hl, logy=False),
                svg_chart("p50 latency", "hey, successes only (closed model hides queueing)",
                          series_for(hey, "p50_ok_ms"), "concurrency", "ms"),
                svg_chart("p99 latency", "hey, successes only", series_for(hey, "p99_ok_ms"), "concurrency", "ms"),
                svg_chart("peak platform threads", "hey steps, /proc Threads", series_for(hey, "threads_peak"),
                          "concurrency", "threads", logy=False)] + [
                svg_chart(f"{label} vs concurrency", "hey steps", series_for(hey, key), "concurrency", unit, logy=False)
                for key, label, unit in cost_keys]))
        if len({r["params"] for r in veg}) > 1:   # the cost experiment: the work per request varies
            charts.append(("Cost growth &mdash; work per request (Vegeta, same rate)", [
                svg_chart(f"{label} vs calls", "delay calls per request", series_for(veg, key, x=calls_of),
                          "calls per request", unit, logy=False) for key, label, unit in cost_keys]))
        if veg:
            charts.append(("Server cost &mdash; app process during the Vegeta steps", [
                svg_chart(label, "Vegeta steps, sampled every 250 ms", series_for(veg, key),
                          "requested rate (req/s)", unit, logy=False)
                for key, label, unit in cost_keys + (("threads_peak", "peak platform threads", "threads"),
                                                     ("heap_peak_mib", "peak heap used", "MiB"))]))
        for heading, svgs in charts:
            parts.append(f"<h3>{heading}</h3><div class='row'>" + "".join(svgs) + "</div>")
        parts.append("<details><summary>all numbers</summary><table class='d'><tr>" +
                     "".join(f"<th>{e(h)}</th>" for _, h in MD_COLS) + "</tr>")
        for r in sr:
            cls = " class='flagged'" if r["flags"] else ""
            cells = []
            for k, _ in MD_COLS:
                v = load_label(r) if k == "load" else fmt(r[k], 3 if k == "cpu_ms_per_req" else 1)
                c = " class='l'" if k in ("mode", "tool", "status_codes", "flags") else ""
                cells.append(f"<td{c}>{e(v)}</td>")
            parts.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
        parts.append("</table></details>")
    flagged = [r for r in rows if r["flags"]]
    parts.append("<h2>Flagged steps</h2>")
    if flagged:
        parts.append("<ul>" + "".join(
            f"<li>{e(r['scenario'])} {e(r['mode'])} {e(r['tool'])} {e(load_label(r))}: "
            f"<span class='flagtxt'>{e(r['flags'])}</span>{(' — ' + e(r['errors'])) if r.get('errors') else ''}</li>"
            for r in flagged) + "</ul>")
    else:
        parts.append("<p>none</p>")
    parts.append("<p class='note'>Files: summary.csv, summary.json, summary.md; raw Vegeta results "
                 "(steps/*/results.bin, decode with <code>vegeta report</code>) and hey CSVs (steps/*/results.csv)."
                 "</p></body></html>")
    with open(os.path.join(run, "report.html"), "w") as f:
        f.write("\n".join(parts))


# ---------------------------------------------------------------------------------------------- targets
def _rows(rows, sc, mode, tool):
    return sorted((r for r in rows if r["scenario"] == sc and r["mode"] == mode and r["tool"] == tool),
                  key=lambda r: float(r["load"] or 0))


def _full(r):
    return r["success_pct"] == 100.0 and not re.search(r"BELOW_RATE|LOW_SEND_RATE|NO_", r["flags"] or "")


def _p99(r):
    """The latency the targets judge: successes only (the error rate is judged beside it, by _full)."""
    return r["p99_ok_ms"] if r.get("p99_ok_ms") is not None else r["p99_ms"]


def _sustained_row(rows, sc, mode, limit_ms):
    """The highest Vegeta rate's row served with 100% success, no flag and p99 under limit_ms."""
    ok = [r for r in _rows(rows, sc, mode, "vegeta")
          if _full(r) and _p99(r) is not None and (limit_ms is None or _p99(r) < limit_ms)]
    return ok[-1] if ok else None


def _sustained(rows, sc, mode, limit_ms):
    r = _sustained_row(rows, sc, mode, limit_ms)
    return float(r["load"]) if r else None


def _value(r, key):
    return _p99(r) if key == "p99_ms" else r[key]


def _ratios(rows, sc, key, both_full, mode="virtual", base="reactive"):
    """[(rate, MODE's KEY / BASE's KEY)] over the Vegeta rates both ran, where BASE (and, with both_full, MODE too)
    served fully."""
    other = {(float(r["load"]), r["params"]): r for r in _rows(rows, sc, mode, "vegeta")}
    out = []
    for r in _rows(rows, sc, base, "vegeta"):
        v = other.get((float(r["load"]), r["params"]))
        if v and _full(r) and (_full(v) or not both_full) and _value(r, key) and _value(v, key):
            out.append((float(r["load"]), _value(v, key) / _value(r, key)))
    return out


def aa_spread(rows, sc, key):
    """{rate: |second / first - 1|} of the A/A pair (one mode measured twice in this run) for KEY; {} without one."""
    spread = {}
    for aa in sorted({r["mode"] for r in rows if r["scenario"] == sc and r["mode"].endswith(AA_SUFFIX)}):
        for load, x in _ratios(rows, sc, key, both_full=True, mode=aa, base=aa.removesuffix(AA_SUFFIX)):
            spread[load] = max(spread.get(load, 0.0), abs(x - 1))
    return spread


def ratio_verdict(ratios, limit, spread):
    """PASS / FAIL / within noise for ratios [(rate, x)] against 'x <= LIMIT'. A difference between the modes no
    larger than the A/A spread at that rate (|x - 1| <= spread) cannot be told from noise: a target missed only
    at such rates, or met only because every rate was such, is 'within noise'."""
    if not ratios:
        return "n/a"

    def noise(load, x):
        return load in spread and abs(x - 1) <= spread[load]

    missed = [(load, x) for load, x in ratios if x > limit]
    if any(not noise(load, x) for load, x in missed):
        return "FAIL"
    if missed or all(noise(load, x) for load, x in ratios):
        return "within noise"
    return "PASS"


def _noise_note(spread):
    return ("; A/A spread " + ", ".join(f"{fmt(load, 0)}/s {100 * v:.0f}%" for load, v in sorted(spread.items()))
            if spread else "")


def targets(rows):
    """The performance targets (docs/results.md "Targets") checked on these rows: -> [(target, measured, verdict)],
    verdict PASS / FAIL / within noise / n/a (not enough rows to judge). Latency is judged on successes only."""
    out = []
    names = series_names(rows)
    virtuals = [m for m in names if m.split("+")[0] == "virtual" and not m.endswith(AA_SUFFIX)]

    def verdict(ok):
        return "n/a" if ok is None else ("PASS" if ok else "FAIL")

    for mode in ["reactive"] + virtuals:
        r4 = [r for r in _rows(rows, "io", mode, "vegeta") if float(r["load"]) == 4000]
        if r4:
            r = r4[0]
            out.append((f"io 4,000 req/s, {mode}: 100% ok and p99 <= 150 ms",
                        f"{fmt(r['success_pct'], 2)}% ok, p99 (successes) {fmt(_p99(r))} ms",
                        verdict(_full(r) and _p99(r) <= 150)))

    def ratio_target(name, sc, key, limit, both_full, mode):
        ratios = _ratios(rows, sc, key, both_full, mode=mode)
        if ratios:
            spread = aa_spread(rows, sc, key)
            out.append((name, ", ".join(f"{fmt(load, 0)}/s {x:.2f}x" for load, x in ratios) + _noise_note(spread),
                        ratio_verdict(ratios, limit, spread)))

    for sc in ("io", "fanout", "db", "checkout"):
        reactive = _rows(rows, sc, "reactive", "vegeta")
        if not reactive:
            continue
        delay = params_of(reactive[0]["params"]).get("delay")
        limit = 2 * float(delay) if delay and sc in ("io", "fanout", "checkout") else None
        for v in virtuals:
            ratio_target(f"{sc}: {v} p99 <= 1.25 x reactive p99 wherever reactive succeeds fully",
                         sc, "p99_ms", 1.25, False, v)
            s_r, s_v = _sustained(rows, sc, "reactive", limit), _sustained(rows, sc, v, limit)
            if s_r:
                out.append((f"{sc}: {v}'s highest sustained rate >= 90% of reactive's"
                            + (f" (100% ok, p99 < {fmt(limit, 0)} ms)" if limit else " (100% ok)"),
                            f"{v} {fmt(s_v or 0, 0)}/s, reactive {fmt(s_r, 0)}/s",
                            verdict((s_v or 0) >= 0.9 * s_r)))
    for sc in ("io", "fanout"):
        for v in virtuals:
            for key, label in (("cpu_ms_per_req", "CPU ms/req"), ("rss_peak_mib", "peak RSS")):
                ratio_target(f"{sc}: {v} {label} <= 1.2 x reactive's (steps both serve fully)", sc, key, 1.2, True, v)
    # the socket delay client (docs/blocking-client.md): virtual at its cheapest
    for v in [m for m in virtuals if m.endswith("+socket")]:
        for sc in ("io", "fanout"):
            ratio_target(f"{sc}: {v} CPU ms/req <= 1.0 x reactive's (steps both serve fully)",
                         sc, "cpu_ms_per_req", 1.0, True, v)
        cut = [(load, x) for load, x in _ratios(rows, "io", "cpu_ms_per_req", True, mode=v, base="virtual")
               if load in (2500, 4000)]
        if cut:
            spread = aa_spread(rows, "io", "cpu_ms_per_req")
            out.append((f"io: {v} CPU ms/req <= 0.8 x virtual's with the REST client at 2,500 and 4,000 req/s",
                        ", ".join(f"{fmt(load, 0)}/s {x:.2f}x" for load, x in cut) + _noise_note(spread),
                        ratio_verdict(cut, 0.8, spread)))
    wk = [r for r in _rows(rows, "io", "worker", "hey") if float(r["load"]) >= WORKER_POOL]   # enough in flight
    if wk:
        best = max(wk, key=lambda r: r["achieved_rps"] or 0)
        ceil = worker_ceiling("io", best["params"])
        if ceil:
            out.append(("io: worker sustains >= 90% of its Little's-law ceiling (hey)",
                        f"{fmt(best['achieved_rps'], 0)} req/s at {fmt(best['load'], 0)} in flight = "
                        f"{100 * (best['achieved_rps'] or 0) / ceil:.0f}% of {ceil:,.0f}",
                        verdict((best["achieved_rps"] or 0) >= 0.9 * ceil)))
    cpu = {}
    for r in rows:
        if r["scenario"] == "cpu" and r["tool"] == "hey" and r["achieved_rps"] and not r["mode"].endswith(AA_SUFFIX):
            cpu.setdefault(float(r["load"]), {})[r["mode"]] = r["achieved_rps"]
    # throughput is a capacity figure: judged at the highest concurrency (cores saturated); at low concurrency
    # a closed loop measures latency, where the event loop saves the thread hand-offs of the other modes
    if cpu:
        load, by_mode = max(cpu.items())
        if len(by_mode) >= 2:
            spread = max(by_mode.values()) / min(by_mode.values()) - 1
            out.append((f"cpu, hey {fmt(load, 0)} in flight (the highest level): modes within 10% in throughput",
                        ", ".join(f"{m} {fmt(v, 0)}/s" for m, v in by_mode.items()), verdict(spread <= 0.10)))
    pin = [r for r in rows
           if r["scenario"] == "pinning" and r["mode"] == "virtual" and r["pinned_events"] is not None]
    if pin:
        n = sum(r["pinned_events"] for r in pin)
        out.append(("pinning (synchronized), virtual: 0 pinned events (JEP 491, JDK 24+)", f"{n:g} events",
                    verdict(n == 0)))
    return out


def saturation(rows, cores=None, app_cores=None):
    """Per io series: the highest Vegeta rate with 100% success and p99 (successes) under 2x the delay, and what
    limited the next rate: [(series, rate or None, limit text)]. A process is the limit when it used >= 90% of
    the cores it may use (the app: its --cpus share or all; Vegeta and the delay service: one core each as a
    floor), else the machine when all of them together used >= 90% of its cores, else no CPU (a pool or queue)."""
    out = []
    cores = cores or os.cpu_count() or 1
    for mode in series_names([r for r in rows if r["scenario"] == "io"]):
        veg = _rows(rows, "io", mode, "vegeta")
        if not veg:
            continue
        delay = params_of(veg[0]["params"]).get("delay")
        limit = 2 * float(delay) if delay else None
        best = _sustained_row(rows, "io", mode, limit)
        beyond = [r for r in veg if best is None or float(r["load"]) > float(best["load"])]
        if not beyond:
            out.append((mode, best and float(best["load"]), "not reached: every rate was served (add higher --rates)"))
            continue
        r = beyond[0]
        app, gen, dly = (r.get(k) or 0 for k in ("cpu_pct", "gen_cpu_pct", "delay_cpu_pct"))
        if app >= 90 * (app_cores or cores):
            why = "the app's CPU"
        elif gen >= 90:
            why = "the load generator's CPU"
        elif dly >= 90:
            why = "the delay service's CPU"
        elif app + gen + dly >= 90 * cores:
            why = "the machine's CPU (shared by app, generator and delay service)"
        else:
            why = "not CPU (a pool, a queue or a timeout)"
        out.append((mode, best and float(best["load"]),
                    f"at {fmt(float(r['load']), 0)}/s: {fmt(r['success_pct'], 2)}% ok, p99 {fmt(_p99(r))} ms; "
                    f"CPU app {fmt(app, 0)}%, Vegeta {fmt(gen, 0)}%, delay service {fmt(dly, 0)}% "
                    f"(100% = one core) -> {why}"))
    return out


def saturation_args(meta):
    """The cores the machine had and the app was given (--cpus app=N), from machine.json."""
    meta = meta or {}

    def num(k):
        try:
            return int(meta.get(k))
        except (TypeError, ValueError):
            return None
    return {"cores": num("cores"), "app_cores": num("app_cores")}


def targets_md(rows, meta=None):
    t = targets(rows)
    if not t:
        return []
    lines = ["## Targets", "", TARGETS_NOTE, "", "| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in t]
    sat = saturation(rows, **saturation_args(meta))
    if sat:
        lines += ["", "## Saturation (io)", "", "| series | highest rate fully served, p99 < 2x delay | limit |",
                  "|---|---|---|"] + [f"| {m} | {fmt(x, 0) if x else 'none'} | {w} |" for m, x, w in sat]
    return lines + [""]


FLAGGED = " class='flagged'"
TARGETS_NOTE = ("The performance targets (docs/results.md \"Targets\"), judged on this run's rows: latency on successes only "
                "(p99 ok), beside the success rate. A ratio within the A/A spread (the same mode measured twice in "
                "this run) is 'within noise', not PASS or FAIL. They are meant for a "
                "default run or the medians of several (5 s steps after the warm-up); --quick steps are too short.")


def targets_html(rows, meta=None):
    t = targets(rows)
    if not t:
        return ""
    e = html.escape
    out = (f"<h2 id='targets'>Targets</h2><p class='note'>{e(TARGETS_NOTE)}</p>"
           "<table class='d'><tr><th>target</th><th>measured</th><th>verdict</th></tr>"
           + "".join(f"<tr{FLAGGED if c == 'FAIL' else ''}><td class='l'>{e(a)}</td>"
                     f"<td class='l'>{e(b)}</td><td class='l'>{e(c)}</td></tr>" for a, b, c in t) + "</table>")
    sat = saturation(rows, **saturation_args(meta))
    if sat:
        out += ("<h3>Saturation (io): highest rate with 100% success and p99 under 2x the delay</h3>"
                "<table class='d'><tr><th>series</th><th>rate</th><th>what limited the next rate</th></tr>"
                + "".join(f"<tr><td class='l'>{e(m)}</td><td>{fmt(x, 0) if x else 'none'}</td>"
                          f"<td class='l'>{e(w)}</td></tr>" for m, x, w in sat) + "</table>")
    return out


# ---------------------------------------------------------------------------------------------- median
def median_rows(runs_rows):
    """One row per step key (scenario, params, mode, tool, load) over several runs' rows: the row of the run whose p99
    (successes) is the median (the lower one of an even count), so every figure of it comes from one run; 'ranges'
    holds min-max of each figure over the runs, flags carry their counts."""
    groups = {}
    for k, rows in enumerate(runs_rows, 1):
        for r in rows:
            r = dict(r, run=k)
            groups.setdefault((r["scenario"], r.get("params"), r["mode"], r["tool"], r["load"]), []).append(r)
    out = []
    for group in groups.values():
        ranked = sorted(group, key=lambda r: (_p99(r) is None, _p99(r) or 0))
        known = [r for r in ranked if _p99(r) is not None] or ranked
        row = dict(known[(len(known) - 1) // 2])
        row["ranges"] = {}
        for k in FIELDS:
            vals = [r.get(k) for r in group if isinstance(r.get(k), (int, float)) and not isinstance(r.get(k), bool)]
            if k not in TEXT_FIELDS and k not in ("load", "duration_s") and vals:
                row["ranges"][k] = [min(vals), max(vals)]
        flags = {}
        for r in group:
            for f in (r.get("flags") or "").split():
                flags[f] = flags.get(f, 0) + 1
        row["flags"] = " ".join(f"{f}({n}/{len(group)})" for f, n in sorted(flags.items()))
        row["status_codes"] = " | ".join(r.get("status_codes") or "" for r in group)
        row["errors"] = " | ".join(r["errors"] for r in group if r.get("errors"))[:300]
        row["step"] = " ".join(r.get("step") or "" for r in group)
        row["runs"] = f"{len(group)} (median: run {row.pop('run')})"
        lo_hi = row["ranges"].get("p99_ok_ms") or row["ranges"].get("p99_ms")
        row["p99_range_ms"] = f"{fmt(lo_hi[0])}-{fmt(lo_hi[1])}" if lo_hi else None
        out.append(row)
    return sort_rows(out)


def median(out, runs):
    runs_rows = []
    for run in runs:
        data = read_json(os.path.join(run, "summary.json"))
        if data is None:
            sys.exit(f"no summary.json in {run} (a finished compare.sh run folder)")
        runs_rows.append(data["rows"])
    rows = median_rows(runs_rows)
    os.makedirs(out, exist_ok=True)
    metas = [read_json(os.path.join(r, "machine.json"), {}) for r in runs]
    meta = dict(metas[0])
    meta["command"] = f"medians of {len(runs)} runs: " + ", ".join(
        m.get("command", "?") + f" ({os.path.basename(r.rstrip('/'))})" for m, r in zip(metas, runs))
    meta["mode_order"] = [m.get("mode_order") for m in metas]
    with open(os.path.join(out, "machine.json"), "w") as f:
        json.dump(meta, f, indent=1)
    publish(out, rows, meta)


def publish(run, rows, meta):
    seen = []
    for r in rows:
        if r["scenario"] not in seen:
            seen.append(r["scenario"])
    write_csv_json(run, rows)
    write_md(run, rows, meta, seen)
    write_html(run, rows, meta, seen)
    flagged = sum(1 for r in rows if r["flags"])
    print(f"{len(rows)} steps, {flagged} flagged -> {run}/summary.csv, summary.json, summary.md, report.html")


def figures(run, out):
    """The README's two io figures from a run's (or a median's) summary.json, as standalone SVG files."""
    data = read_json(os.path.join(run, "summary.json"))
    if data is None:
        sys.exit(f"no summary.json in {run}")
    io_rows = [r for r in data["rows"] if r["scenario"] == "io"]
    veg = [r for r in io_rows if r["tool"] == "vegeta"]
    hey = [r for r in io_rows if r["tool"] == "hey"]
    ceil = worker_ceiling("io", io_rows[0]["params"]) if io_rows else None
    os.makedirs(out, exist_ok=True)
    for name, svg in (
            ("io-p99.svg", svg_chart("p99 latency", "io, Vegeta, constant rate", series_for(veg, "p99_ok_ms"),
                                     "requested rate (req/s)", "ms")),
            ("io-throughput.svg", svg_chart("throughput", "io, hey, N requests in flight",
                                            series_for(hey, "achieved_rps"), "concurrency", "ok req/s",
                                            hlines=[(ceil, f"worker ceiling {ceil:,.0f}/s")] if ceil else (),
                                            logy=False))):
        with open(os.path.join(out, name), "w") as f:
            f.write(svg.replace(">", "><style>" + CSS + "</style>", 1))
        print(os.path.join(out, name))


def build(run):
    rows = load_rows(run)
    if not rows:
        sys.exit(f"no steps found under {run}/steps")
    publish(run, rows, read_json(os.path.join(run, "machine.json"), {}))


def hey_summary(path):
    rows = hey_rows(path)
    if not rows:
        print("no answered requests")
        return
    lats = sorted(r[0] for r in rows)
    elapsed = max(r[2] for r in rows)
    codes = {}
    for r in rows:
        codes[r[1]] = codes.get(r[1], 0) + 1
    print(f"requests {len(rows)}  elapsed {elapsed:.2f}s  {len(rows) / elapsed:.1f} req/s  "
          f"status {' '.join(f'{c}:{n}' for c, n in sorted(codes.items()))}")
    print("latency ms: " + "  ".join(f"{n} {percentile(lats, p):.2f}" for n, p in
                                     (("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9))) +
          f"  max {lats[-1]:.2f}")
    print(f"(written to {path})")


def main(argv):
    global WORKER_POOL
    WORKER_POOL = _worker_pool()
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd = argv[1]
    if cmd == "build" and len(argv) == 3:
        build(argv[2])
    elif cmd == "figures" and len(argv) == 4:
        figures(argv[2], argv[3])
    elif cmd == "median" and len(argv) >= 4:
        median(argv[2], argv[3:])
    elif cmd == "step" and len(argv) == 3:
        row = step_row(argv[2])
        print(one_line(row))
        return 3 if re.search(r"ERRORS|NO_ANSWERS|NO_RESULTS", row["flags"] or "") else 0
    elif cmd == "hey-summary" and len(argv) == 3:
        hey_summary(argv[2])
    elif cmd == "machine":
        machine(argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
