"""`--experiment scale`: io with a long delay held at 1,000 .. 100,000 requests in flight per mode and transport
(HTTP/1.1 end to end, or h2c from Vegeta to the app and from the app to the delay service), what each waiting request
costs (RSS, heap after a full GC, native memory by category, threads) and whether the app still answers meanwhile."""
import contextlib
import json
import math
import os
import re
import resource
import subprocess
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import psutil
from scipy import stats as sps

from harness.analysis.steps import fmt, percentile, read_json, rnd, step_row
from harness.infra import procs
from harness.infra.catalogue import LOAD_DIR
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.report import scale_report
from harness.report import summaries as report
from harness.report.charts import mode_color, svg_chart
from harness.runs import burst, plan
from harness.runs.compare import Run, default_out, fetch
from harness.sampling.prom import metric_sum, parse
from harness.sampling.sample import proc_sample

LEVELS = (1_000, 5_000, 10_000, 25_000, 50_000, 100_000)
QUICK_LEVELS = (1_000, 5_000)
TRANSPORTS = ("http1", "h2c")
# The arrival rate never passes MAX_RATE (the app, the delay service and Vegeta share 2 cores): a higher level waits
# longer instead (in flight = rate x delay); no delay is shorter than MIN_DELAY_MS
MAX_RATE = 2_000
MIN_DELAY_MS, QUICK_MIN_DELAY_MS = 5_000, 2_000
HOLD_S, QUICK_HOLD_S = 15.0, 3.0
# Open sockets a process keeps for other things than waiting requests (jars, pools, the database, the metrics)
FILE_RESERVE = 500
# The loopback ports one source address has towards one destination (net.ipv4.ip_local_port_range 32768-60999)
PORTS_PER_PAIR = 28_232
PROBE_READY_MS, PROBE_IO_P99_MS = 1_000, 100
APP_START_S, JCMD_S = 12.0, 3.0
# The request deadline past the longest delay (a level's requests wait in queues on two cores before their call)
DEADLINE_SLACK_S, QUICK_DEADLINE_SLACK_S = 30, 10


@dataclass(frozen=True)
class Level:
    """One step of the staircase: RATE req/s of io?delay=DELAY_MS, so IN_FLIGHT wait at once once DELAY_MS has
    passed, held for HOLD_S more seconds."""
    in_flight: int
    rate: int
    delay_ms: int
    hold_s: float

    @property
    def send_s(self):
        return self.delay_ms / 1000 + self.hold_s


def plan_levels(levels, max_rate=MAX_RATE, min_delay_ms=MIN_DELAY_MS, hold_s=HOLD_S):
    """The staircase for LEVELS (requests in flight): the delay grows with the level where the rate would pass
    MAX_RATE, in 100 ms steps, so a level's delay is never shorter than the one before (the last level's answers
    have all come back when the next level's hold begins)."""
    out = []
    for n in sorted(levels):
        delay = max(min_delay_ms, math.ceil(n * 1000 / max_rate / 100) * 100)
        out.append(Level(n, max(1, round(n * 1000 / delay)), delay, hold_s))
    return out


def sockets_per_request(transport, client=""):
    """Sockets the app holds per waiting request: the caller's connection over HTTP/1.1 (h2c multiplexes it), and
    the delay call's own over HTTP/1.1 or with the socket client (HTTP/1.1 only)."""
    front = 1 if transport == "http1" else 0
    back = 1 if transport == "http1" or client == "socket" else 0
    return front + back


def ceiling(transport, client, nofile):
    """The most requests one app can hold waiting with NOFILE open files (None: the transport needs no socket per
    request), and the limit that sets it."""
    per = sockets_per_request(transport, client)
    if not per:
        return None, "none of this machine's: h2c multiplexes every request on a few connections"
    return (nofile - FILE_RESERVE) // per, (
        f"open files: {per} socket(s) per waiting request in the app, {nofile:,} files per process "
        f"(loopback ports, {PORTS_PER_PAIR:,} per source/destination pair, would stop it later)")


def levels_for(levels, transport, client, nofile):
    """LEVELS that one app can hold with this transport and client, and the first one past its open-files ceiling
    (measured, not assumed: its row shows how the app fails there)."""
    top, _ = ceiling(transport, client, nofile)
    below = tuple(n for n in levels if top is None or n <= top)
    return below + tuple(n for n in levels if top is not None and n > top)[:1]


def slope_fit(points):
    """Least-squares slope of [(x, y)], its standard error (None below three points) and the points' count; (None,
    None, n) below two distinct x: memory per request from (in flight, memory)."""
    pts = [(x, y) for x, y in points if x is not None and y is not None]
    if len({x for x, _ in pts}) < 2:
        return None, None, len(pts)
    n = len(pts)
    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    b = sum((x - mx) * (y - my) for x, y in pts) / sxx
    if n < 3:
        return b, None, n
    residual = sum((y - my - b * (x - mx)) ** 2 for x, y in pts)
    return b, math.sqrt(residual / (n - 2) / sxx), n


def slope(points):
    return slope_fit(points)[0]


def ratio_interval(a, se_a, n_a, b, se_b, n_b, level=0.95):
    """A 95 % interval of the ratio A / B of two fitted slopes (delta method on the log ratio, t with the smaller
    fit's degrees of freedom), or None when a slope or its error is missing."""
    if None in (a, se_a, b, se_b) or a <= 0 or b <= 0 or min(n_a, n_b) < 3:
        return None
    se = math.sqrt((se_a / a) ** 2 + (se_b / b) ** 2)
    t = float(sps.t.ppf(0.5 + level / 2, min(n_a, n_b) - 2))
    return a / b * math.exp(-t * se), a / b * math.exp(t * se)


def with_slopes(rows, idle):
    """Each level row gets mem_kib_per_request and heap_kib_per_request: the slopes of RSS and of the heap after a
    full GC against the achieved in-flight, over the idle app (IDLE: {series, transport} -> row of in_flight 0) and
    every level of its series and transport up to this one."""
    for r in rows:
        base = idle.get((r["mode"], r["transport"]), {})
        below = [base] + [o for o in rows if (o["mode"], o["transport"]) == (r["mode"], r["transport"])
                          and o["level"] <= r["level"]]
        for key, value in (("mem_kib_per_request", "rss_kib"), ("heap_kib_per_request", "heap_after_gc_kib")):
            b, se, n = slope_fit([(o.get("in_flight"), o.get(value)) for o in below])
            r[key], r[key + "_se"], r[key + "_n"] = rnd(b, 2), rnd(se, 3), n
    return rows


NMT_TOTAL = re.compile(r"^Total: reserved=(\d+)KB, committed=(\d+)KB", re.M)
NMT_CATEGORY = re.compile(r"^-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB\)", re.M)


def parse_nmt(text):
    """`jcmd PID VM.native_memory summary` -> {category: committed KiB, ..., 'Total': committed KiB}."""
    out = {name.strip(): int(committed) for name, _, committed in NMT_CATEGORY.findall(text)}
    total = NMT_TOTAL.search(text)
    if total:
        out["Total"] = int(total.group(2))
    return out


def estimate_s(groups, warm_s=0.0, bursts=(), slack_s=DEADLINE_SLACK_S):
    """Seconds a run of GROUPS ([(series, transport, [Level])], one app each) and BURSTS (burst.bursts_of, one app
    each) takes: app start and warm-up (WARM_S), the levels, the last level's drain and a full GC with native memory
    and a class histogram before and at every level and after; a burst's request."""
    return sum(APP_START_S + warm_s + 6 * JCMD_S + sum(lv.send_s + JCMD_S for lv in lvs) + slack_s +
               (lvs[-1].delay_ms / 1000 if lvs else 0) for _, _, lvs in groups if lvs) + \
        sum(APP_START_S + warm_s + JCMD_S + burst.estimate_s(calls) for _, _, calls, skip in bursts if not skip) + 10


def estimate_run_s(s, nofile):
    """Seconds the run that settings S ask for takes (estimate_s of its groups and bursts)."""
    return estimate_s(groups_of(s, nofile), plan.warmup_s(s), burst.bursts_of(s.modes, s.quick),
                      QUICK_DEADLINE_SLACK_S if s.quick else DEADLINE_SLACK_S)


def groups_of(s, nofile):
    """[(series, transport, [Level])]: every chosen series over both transports, each with the levels it can hold."""
    lv = QUICK_LEVELS if s.quick else LEVELS
    stairs = plan_levels(lv, min_delay_ms=QUICK_MIN_DELAY_MS if s.quick else MIN_DELAY_MS,
                         hold_s=QUICK_HOLD_S if s.quick else HOLD_S)
    out = []
    for series in s.modes:
        for transport in TRANSPORTS:
            keep = levels_for(lv, transport, plan.client_of(series), nofile)
            out.append((series, transport, [x for x in stairs if x.in_flight in keep]))
    return out


def raised(levels, transport, client="", slack_s=DEADLINE_SLACK_S):
    """What this experiment raises for its apps and delay service, as environment variables (the defaults of a
    normal run stay as they are): admission, the longest delay, the request deadline and read timeout past the
    longest delay, idle timeouts an HTTP/1.1 connection waiting that long needs, the connection limits, the pool."""
    top = max(x.in_flight for x in levels)
    longest_s = max(x.delay_ms for x in levels) // 1000 + 1
    env = {"BENCH_MAX_IN_FLIGHT": str(2 * top), "BENCH_MAX_DELAY": str(longest_s * 1000),
           "BENCH_REQUEST_DEADLINE": f"{longest_s + slack_s}s",
           "QUARKUS_REST_CLIENT_DELAY_READ_TIMEOUT": str((longest_s + slack_s) * 1000),
           # thousands of connections opened at once wait in the accept queue longer than the default 1 s
           "QUARKUS_REST_CLIENT_DELAY_CONNECT_TIMEOUT": "10000",
           "QUARKUS_HTTP_IDLE_TIMEOUT": f"{longest_s + 60}s",
           "QUARKUS_HTTP_LIMITS_MAX_CONNECTIONS": str(4 * top),
           "BENCH_DELAY_HTTP2": str(transport == "h2c").lower()}
    if sockets_per_request(transport, client):   # a connection per waiting call: the pool must not stop it
        env["QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE"] = str(2 * top)
    return env


def vegeta_args(level, transport):
    """Vegeta's flags for LEVEL: h2c or not, idle connections kept for reuse, enough workers from the start."""
    return [*(["-h2c"] if transport == "h2c" else []), "-connections", str(level.in_flight + 100),
            "-workers", str(min(level.in_flight, 1000)), "-max-workers", str(2 * level.in_flight)]


# ---------------------------------------------------------------------------------------------- measuring
class Monitor(threading.Thread):
    """Samples the app every second while a group runs: its CPU, RSS and OS threads (psutil, as harness.sample),
    open files, and from /q/metrics the mode's requests in progress (admission_in_flight), live JVM threads and the
    heap; each sample goes to the level folders that are open at that moment."""

    def __init__(self, pid, url, mode, every_s=1.0):
        super().__init__(daemon=True)
        self.proc, self.url, self.mode, self.every_s = psutil.Process(pid), url, mode, every_s
        self.sinks, self.lock, self.stop = {}, threading.Lock(), threading.Event()
        self.latest = {}

    def sample(self):
        cpu = psutil.cpu_times()
        row = {"t": time.time(), "machine_busy_s": sum(cpu) - cpu.idle - getattr(cpu, "iowait", 0),
               "machine_total_s": sum(cpu)}
        with contextlib.suppress(psutil.Error):
            row.update(proc_sample(self.proc))
            row["open_files"] = self.proc.num_fds()
        code, body = fetch(self.url + "/q/metrics", 5)
        if code == 200:
            m = parse(body.decode("utf-8", "replace"))
            row["metrics"] = {"in_flight": metric_sum(m, "admission_in_flight", mode=self.mode),
                              "jvm_live_threads": metric_sum(m, "jvm_threads_live_threads"),
                              "heap_bytes": metric_sum(m, "jvm_memory_used_bytes", area="heap"),
                              # collector pauses so far (the probe's delays set against them)
                              "gc_pause_s": metric_sum(m, "jvm_gc_pause_seconds_sum"),
                              # the longest in the last two minutes but the experiment's own full GCs (jcmd GC.run)
                              "gc_pause_max_s": max((v for labels, v in m.get("jvm_gc_pause_seconds_max", [])
                                                     if labels.get("cause") != "System.gc()"), default=None)}
        return row

    def run(self):
        while not self.stop.wait(self.every_s):
            row = self.sample()
            with self.lock:
                self.latest = row
                for f in self.sinks.values():
                    f.write(json.dumps(row) + "\n")

    def open(self, name, path):
        with self.lock:
            self.sinks[name] = open(path, "a", buffering=1)
            self.sinks[name].write(json.dumps(self.sample()) + "\n")

    def close(self, name):
        with self.lock:
            f = self.sinks.pop(name, None)
        if f:
            f.write(json.dumps(self.sample()) + "\n")
            f.close()


def probe(url, seconds, every_s=0.1):
    """For SECONDS: /q/health/ready (answered 200 within PROBE_READY_MS?) and virtual/io?delay=0, each every
    EVERY_S s, one at a time -> {ready_max_ms, ready_failed, io_p99_ms, io_failed, probe_ok}."""
    ready, io, bad_ready, bad_io = [], [], 0, 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for path, out in (("/q/health/ready", ready), ("/virtual/io?delay=0", io)):
            t0 = time.monotonic()
            code = procs.http_status(url + path, timeout=2.0)
            out.append((time.monotonic() - t0) * 1000)
            if code != 200:
                if out is ready:
                    bad_ready += 1
                else:
                    bad_io += 1
        time.sleep(every_s)
    res = {"probe_ready_max_ms": rnd(max(ready, default=0), 1), "probe_ready_failed": bad_ready,
           "probe_io_p99_ms": rnd(percentile(io, 99), 1), "probe_io_failed": bad_io}
    res["probe_ok"] = bool(ready) and not bad_ready and not bad_io and res["probe_ready_max_ms"] <= PROBE_READY_MS \
        and (res["probe_io_p99_ms"] or 0) <= PROBE_IO_P99_MS
    return res


def window(a, b):
    """What went on between two Monitor samples (the probe's window): the share of the machine's CPU busy, the app's
    cores used, and the time its collector paused the app (the probe's delays set against them)."""
    dt = b["t"] - a["t"]
    if dt <= 0:
        return {}
    out = {"probe_machine_cpu_pct": rnd(100 * (b["machine_busy_s"] - a["machine_busy_s"]) /
                                        max(1e-9, b["machine_total_s"] - a["machine_total_s"]), 0)}
    if "cpu_ms" in a and "cpu_ms" in b:
        out["probe_app_cores"] = rnd((b["cpu_ms"] - a["cpu_ms"]) / 1000 / dt, 2)
    ga, gb = (x.get("metrics", {}).get("gc_pause_s") for x in (a, b))
    if ga is not None and gb is not None:
        out["probe_gc_pause_ms"] = rnd((gb - ga) * 1000, 0)
        out["probe_gc_pause_max_ms"] = rnd(1000 * (b["metrics"].get("gc_pause_max_s") or 0), 0)
    return out


def jcmd(java_home, pid, *command, timeout=60):
    r = subprocess.run([os.path.join(java_home, "bin", "jcmd"), str(pid), *command], capture_output=True, text=True,
                       timeout=timeout)
    return r.stdout if r.returncode == 0 else ""


def memory(java_home, pid, url):
    """A full GC, then the heap left (the live set: what the waiting requests hold), RSS, native memory by category
    (NMT summary), OS threads and open files."""
    out = dict.fromkeys(("heap_after_gc_kib", "rss_kib", "platform_threads", "open_files"))
    try:   # an app that fell over past a ceiling leaves its figures empty, not the run broken
        jcmd(java_home, pid, "GC.run")
        _, body = fetch(url + "/q/metrics", 10)
        heap = metric_sum(parse(body.decode("utf-8", "replace")), "jvm_memory_used_bytes", area="heap")
        p = psutil.Process(pid)
        out.update(heap_after_gc_kib=None if heap is None else round(heap / 1024), rss_kib=p.memory_info().rss // 1024,
                   platform_threads=p.num_threads(), open_files=p.num_fds())
        out["nmt_committed_kib"] = parse_nmt(jcmd(java_home, pid, "VM.native_memory", "summary"))
    except (psutil.Error, subprocess.SubprocessError, OSError) as e:
        log(f"WARNING: no memory figures from the app (pid {pid}): {e}")
        out.setdefault("nmt_committed_kib", {})
    return out


HISTO_LINE = re.compile(r"^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", re.M)


def class_histogram(java_home, pid):
    """`jcmd PID GC.class_histogram` (live objects, after a full GC) -> {class: KiB}."""
    try:
        text = jcmd(java_home, pid, "GC.class_histogram")
    except (subprocess.SubprocessError, OSError):
        return {}
    return {name: int(size) // 1024 for _, size, name in HISTO_LINE.findall(text)}


def heap_growth(start, end, top=8):
    """The classes whose live objects grew most between two histograms: [[class, start KiB, end KiB]]."""
    grown = sorted(end, key=lambda c: end[c] - start.get(c, 0), reverse=True)[:top]
    return [[c, start.get(c, 0), end[c]] for c in grown if end[c] > start.get(c, 0)]


class ScaleRun:
    """One scale run into one results folder: per series and transport a fresh app (and delay service) with the
    limits raised, the staircase of levels, and the report."""

    def __init__(self, s, out, cmdline, ps):
        self.s, self.out, self.cmdline, self.ps = s, out, cmdline, ps
        self.base = Run(s, [], out, cmdline, ps)
        self.nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        self.groups = groups_of(s, self.nofile)
        self.rows, self.idle, self.limits, self.ends = [], {}, {}, []
        self.bursts, self.skipped = [], []
        self.slack_s = QUICK_DEADLINE_SLACK_S if s.quick else DEADLINE_SLACK_S
        self.env_set = set()

    def run(self):
        t0 = time.monotonic()
        self.base.started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.base.prepare()
        log(f"scale: {len(self.groups)} series x transport, about "
            f"{estimate_run_s(self.s, self.nofile) / 60:.0f} min")
        index = 0
        for series, transport, levels in self.groups:
            if not levels:
                continue
            index = self.group(series, transport, levels, index)
        for series, transport, calls, skipped in burst.bursts_of(self.s.modes, self.s.quick):
            if skipped:
                self.skipped.append((series, transport, calls, skipped))
            else:
                self.burst(series, transport, calls)
        self.write()
        log(f"done in {time.monotonic() - t0:.0f} s: {self.out}/report.html")
        return 0

    def fresh_app(self, label, series, env):
        """A fresh delay service and app of SERIES with ENV raised (the previous app's settings taken back), warmed
        up: the JIT's first compilations are not what a waiting request costs."""
        s, b = self.s, self.base
        for k in self.env_set:   # the previous group's, so none leaks into this one
            os.environ.pop(k, None)
        self.env_set = set(env)
        os.environ.update(env)   # the app and the delay service this group starts (procs merge os.environ)
        s.app_java_opts = " ".join(dict.fromkeys([*s.app_java_opts.split(), "-XX:NativeMemoryTracking=summary"]))
        log(f"{label}: a fresh delay service and app ({', '.join(f'{k}={v}' for k, v in env.items())})")
        b.start_system(label.replace(" ", "-"), plan.client_of(series))
        b.warm(series)

    def group(self, series, transport, levels, index):
        b = self.base
        env = raised(levels, transport, plan.client_of(series), self.slack_s)
        self.fresh_app(f"{series} over {transport}", series, env)
        java_home, pid, mode = os.environ["JAVA_HOME"], b.app_pid, plan.base_of(series)
        meta_client = plan.client_of(series)
        if not self.limits:
            with open(os.path.join(self.out, "machine.json"), "w") as f:
                json.dump(b._facts(*b._app_desc()), f, indent=2)
        self.limits[f"{series} {transport}"] = {**env, "vegeta": " ".join(vegeta_args(levels[-1], transport)),
                                                "http1_ceiling": ceiling(transport, plan.client_of(series),
                                                                         self.nofile)}
        start = memory(java_home, pid, b.url)
        start_classes = class_histogram(java_home, pid)
        self.idle[(series, transport)] = {**start, "in_flight": 0}
        monitor = Monitor(pid, b.url, mode)
        monitor.start()
        tools = []
        try:
            for lv in levels:
                index += 1
                d = os.path.join(self.out, "steps", f"{index:03d}-io-{series}-{transport}-{lv.in_flight}")
                os.makedirs(d, exist_ok=True)
                meta = {"index": index, "scenario": "io", "mode": mode, "series": series,
                        "client": plan.client_of(series), "tool": "vegeta", "load_kind": "rate", "load": lv.rate,
                        "duration_s": lv.send_s, "ramp_in_s": 0, "params": f"delay={lv.delay_ms}&calls=1",
                        "app_pid": pid, "level": lv.in_flight, "transport": transport, "delay_ms": lv.delay_ms,
                        "past_ceiling": (ceiling(transport, meta_client, self.nofile)[0] or lv.in_flight)
                        < lv.in_flight}
                with open(os.path.join(d, "meta.json"), "w") as f:
                    json.dump(meta, f)
                monitor.open(d, os.path.join(d, "samples.jsonl"))
                log(f"  {series} {transport}: {lv.in_flight:,} in flight = {lv.rate:,} req/s x {lv.delay_ms} ms, "
                    f"held {lv.hold_s:g} s")
                tools.append(self.ps.start("vegeta", [os.path.join(LOAD_DIR, "vegeta.sh"), mode, "io",
                                                      str(lv.rate), f"{int(lv.send_s * 1000)}ms"],
                                           log_path=os.path.join(d, "stdout.txt"),
                                           env={"OUT": os.path.join(d, "results"), "DELAY": str(lv.delay_ms),
                                                "TIMEOUT": f"{lv.delay_ms // 1000 + 30}s",
                                                "VEGETA_ARGS": " ".join(vegeta_args(lv, transport))}))
                t_level = time.monotonic()
                # the hold: every request of this level is in flight from DELAY_MS on
                time.sleep(max(0.0, lv.delay_ms / 1000 + 0.5 - (time.monotonic() - t_level)))
                before = monitor.sample()
                extra = probe(b.url, max(1.0, lv.hold_s - JCMD_S - 1.5))
                extra.update(window(before, monitor.sample()))
                extra.update(memory(java_home, pid, b.url))
                extra["in_flight"] = peak_in_flight(os.path.join(d, "samples.jsonl"))
                time.sleep(max(0.0, lv.send_s - (time.monotonic() - t_level)))
                monitor.close(d)
                with open(os.path.join(d, "scale.json"), "w") as f:
                    json.dump(extra, f)
            for t in tools:   # the last levels' answers
                t.wait(max(x.delay_ms for x in levels) / 1000 + 60)
            time.sleep(2)
            answered = memory(java_home, pid, b.url)
            answered_classes = class_histogram(java_home, pid)
            # every request's deadline timer (bench.request-deadline, the longest delay + DEADLINE_SLACK_S) is
            # cancelled when its answer comes, but a cancelled timer can stay scheduled until its time: the leak check
            # reads the app again once every deadline has passed
            time.sleep(self.slack_s + 1)
            end = memory(java_home, pid, b.url)
            self.ends.append({"series": series, "transport": transport, "start": start, "answered": answered,
                              "end": end, "delay_calls": delay_calls(f"http://127.0.0.1:{b.delay_port}"),
                              "heap_growth_answered": heap_growth(start_classes, answered_classes),
                              "heap_growth": heap_growth(start_classes, class_histogram(java_home, pid))})
        finally:
            monitor.stop.set()
            for t in tools:
                self.ps.stop(t, grace_s=5)
            b.stop_system()
        return index

    def burst(self, series, transport, calls):
        """One request of SERIES fanning out CALLS calls over TRANSPORT, from a fresh app, sampled every
        burst.SAMPLE_S s while it runs (the request itself comes over HTTP/1.1: the transport is the delay calls')."""
        b = self.base
        env = burst.raised(transport, calls, plan.client_of(series))
        self.limits[f"{series} {transport} fan-out"] = env
        self.fresh_app(f"{series} fan-out over {transport}", series, env)
        java_home, pid, delay_url = os.environ["JAVA_HOME"], b.app_pid, f"http://127.0.0.1:{b.delay_port}"
        d = os.path.join(self.out, "bursts", f"{series}-{transport}")
        os.makedirs(d, exist_ok=True)
        monitor = Monitor(pid, b.url, plan.base_of(series), every_s=burst.SAMPLE_S)
        try:
            idle = memory(java_home, pid, b.url)
            served = sum(delay_calls(delay_url).values())
            log(f"  {series} {transport}: one request fanning out {calls:,} calls of {burst.DELAY_MS} ms")
            monitor.open(d, os.path.join(d, "samples.jsonl"))
            monitor.start()
            t0 = time.monotonic()
            status, body = fetch(b.url + burst.path(series, calls), burst.DEADLINE_S + 30)
            wall_s = time.monotonic() - t0
            monitor.stop.set()
            monitor.join()
            monitor.close(d)
            with open(os.path.join(d, "samples.jsonl")) as f:
                samples = [json.loads(line) for line in f if line.strip()]
            cpu = [x["cpu_ms"] for x in samples if "cpu_ms" in x]
            row = burst.row_of(series, transport, calls, status, body, wall_s, idle, samples,
                               cpu[-1] - cpu[0] if cpu else 0, sum(delay_calls(delay_url).values()) - served)
            with open(os.path.join(d, "burst.json"), "w") as f:
                json.dump(row, f)
            log(f"    {status} in {wall_s:.1f} s")
            self.bursts.append(row)
        finally:
            monitor.stop.set()
            b.stop_system()

    def write(self):
        rows = []
        for d in sorted(os.listdir(os.path.join(self.out, "steps"))):
            step = os.path.join(self.out, "steps", d)
            meta, extra = read_json(os.path.join(step, "meta.json"), {}), read_json(os.path.join(step, "scale.json"))
            if extra is None:
                continue
            row = step_row(step, 200)
            row.update({k: meta.get(k) for k in ("level", "transport", "delay_ms", "past_ceiling")}, **extra)
            for key in ("p50_ok_ms", "p99_ok_ms"):
                row[key.replace("_ok_ms", "_over_delay_ms")] = None if row[key] is None else \
                    rnd(row[key] - meta["delay_ms"], 1)
            rows.append(row)
        self.rows = with_slopes(rows, self.idle)
        write_report(self.out, self.rows, read_json(os.path.join(self.out, "machine.json"), {}), self.limits,
                     self.ends, self.nofile, self.bursts, self.skipped)


def delay_calls(delay_url):
    """The calls the delay service served per protocol (delay_service_calls_total{protocol}): proof of the transport
    the app really used."""
    code, body = fetch(delay_url + "/q/metrics", 5)
    parsed = parse(body.decode("utf-8", "replace")) if code == 200 else {}
    return {labels.get("protocol", "?"): int(v) for labels, v in parsed.get("delay_service_calls_total", [])}


def peak_in_flight(samples_path):
    """The largest admission_in_flight the app reported while the level ran (its own gauge)."""
    vals = []
    with contextlib.suppress(OSError):
        with open(samples_path) as f:
            for line in f:
                with contextlib.suppress(ValueError, AttributeError):
                    v = (json.loads(line).get("metrics") or {}).get("in_flight")
                    if v is not None:
                        vals.append(int(v))
    return max(vals, default=None)


# ---------------------------------------------------------------------------------------------- report
COLS = [("mode", "series"), ("transport", "transport"), ("level", "level"), ("past_ceiling", "past the files ceiling"),
        ("in_flight", "in flight"),
        ("load", "req/s"), ("delay_ms", "delay ms"), ("success_pct", "ok %"), ("p50_over_delay_ms", "p50 over delay"),
        ("p99_over_delay_ms", "p99 over delay"), ("cpu_ms_per_req", "CPU ms/req"), ("rss_kib", "RSS KiB"),
        ("heap_after_gc_kib", "heap after GC KiB"), ("mem_kib_per_request", "KiB/req (RSS)"),
        ("heap_kib_per_request", "KiB/req (heap)"), ("platform_threads", "OS threads"),
        ("open_files", "open files"), ("probe_ready_max_ms", "ready max ms"), ("probe_io_p99_ms", "probe p99 ms"),
        ("probe_ok", "probe ok"), ("probe_machine_cpu_pct", "machine CPU % (probe)"),
        ("probe_app_cores", "app cores (probe)"), ("probe_gc_pause_ms", "GC paused ms (probe)"),
        ("probe_gc_pause_max_ms", "longest GC pause ms"), ("flags", "flags")]


def targets(rows, leaks=()):
    """The issue's targets from the rows and the leak check: [(target, PASS | FAIL | n/a, what was measured)]."""
    out = []
    h2c = [r for r in rows if r["transport"] == "h2c"]
    for mode in ("virtual", "reactive"):
        top = max((r for r in h2c if r["mode"] == mode), key=lambda r: r["level"], default=None)
        name = f"{mode} holds 100,000 in flight over h2c with 100 % ok"
        if top is None:
            out.append((name, "n/a", "not measured"))
            continue
        ok = top["level"] >= 100_000 and top.get("success_pct") == 100.0 and \
            (top.get("in_flight") or 0) >= 0.95 * top["level"]
        out.append((name, "PASS" if ok else "FAIL",
                    f"level {top['level']:,}: {fmt(top.get('in_flight'))} in flight, "
                    f"{fmt(top.get('success_pct'))} % ok"))
    common = sorted({r["level"] for r in h2c if r["mode"] == "virtual"} & {r["level"] for r in h2c
                                                                            if r["mode"] == "reactive"})
    name = "memory per waiting request (RSS slope): virtual <= 2 x reactive"
    if common:
        v, x = (next(r for r in h2c if r["mode"] == m and r["level"] == common[-1]) for m in ("virtual", "reactive"))
        a, b = v.get("mem_kib_per_request"), x.get("mem_kib_per_request")
        ratio = a / b if a is not None and b else None
        ci = ratio_interval(*(r.get(k) for r in (v, x) for k in ("mem_kib_per_request", "mem_kib_per_request_se",
                                                                  "mem_kib_per_request_n")))
        # judged on the interval of the fits where there is one (PASS: all of it within 2x; FAIL: all of it past)
        verdict = "n/a" if ratio is None else ("PASS" if ratio <= 2 else "FAIL") if ci is None else \
            "PASS" if ci[1] <= 2 else "FAIL" if ci[0] > 2 else "INCONCLUSIVE"
        out.append((name, verdict, f"up to {common[-1]:,} over h2c: {fmt(a)} vs {fmt(b)} KiB/req"
                    + ("" if ratio is None else f" ({ratio:.2f}x" + ("" if ci is None else
                                                                    f", 95 % interval [{ci[0]:.2f}, {ci[1]:.2f}]")
                       + ")")))
    else:
        out.append((name, "n/a", "virtual and reactive not both measured over h2c"))
    worker = [r for r in rows if r["mode"] == "worker"]
    name = "worker refused cleanly above its bound (503 problems, no timeouts)"
    if worker:
        codes = {c.split(":")[0] for r in worker for c in (r.get("status_codes") or "").split()}
        clean = codes <= {"200", "503"} and not any(r.get("errors") and "503" not in r["errors"] for r in worker)
        out.append((name, "PASS" if clean else "FAIL", f"status codes seen: {' '.join(sorted(codes)) or 'none'}"))
    else:
        out.append((name, "n/a", "worker not measured"))
    bad = [f"{r['mode']} {r['transport']} {r['level']:,}" for r in rows if not r.get("probe_ok")]
    out.append(("the app answers at every level (ready within 1 s, probe p99 within 100 ms)",
                "PASS" if rows and not bad else "FAIL" if bad else "n/a", "not at: " + ", ".join(bad) if bad else
                "every level"))
    grown = [f"{x['series']} {x['transport']} {x['what']} {fmt(x['start'])} -> {fmt(x['end'])}" for x in leaks
             if not x["within_10_pct"]]
    out.append(("threads, heap after GC and open files back within 10 % of the start (once every deadline passed)",
                "FAIL" if grown else "PASS" if leaks else "n/a", "not: " + ", ".join(grown) if grown else
                "all back" if leaks else "not measured"))
    return out


def table_md(rows):
    out = ["| " + " | ".join(h for _, h in COLS) + " |", "|" + "---|" * len(COLS)]
    out += ["| " + " | ".join(fmt(r.get(k)) for k, _ in COLS) + " |" for r in rows]
    return out


def memory_charts(rows, idle_rows):
    """RSS and heap after a full GC against the achieved in-flight, a line per series and transport."""
    charts = []
    names = sorted({r["mode"] for r in rows})
    for key, title in (("rss_kib", "RSS"), ("heap_after_gc_kib", "heap after a full GC")):
        series = []
        for (mode, transport) in sorted({(r["mode"], r["transport"]) for r in rows}):
            pts = [x for x in idle_rows + rows if x["mode"] == mode and x["transport"] == transport]
            series.append({"name": f"{mode} {transport}", "color": mode_color(mode, names),
                           "dash": transport == "http1",
                           "points": [(r.get("level") or 0, None if r.get(key) is None else r[key] / 1024,
                                       not r.get("probe_ok", True),
                                       f"{mode} {transport}: {fmt(r['in_flight'])} in flight, "
                                       f"{fmt(r.get(key))} KiB")
                                      for r in sorted(pts, key=lambda x: x.get("level") or 0)]})
        charts.append(svg_chart(title, "at each level (tooltip: the achieved peak from the app's own gauge)",
                                series, "requests in flight (level)", "MiB", logy=False, w=520, h=320))
    return charts


CHART_FILES = ("memory.svg", "heap.svg")   # RSS, heap after a full GC


def write_report(out, rows, meta, limits, ends, nofile, bursts=(), skipped=()):
    """summary.json (a row per level and series: the usual fields, in_flight, transport, mem_kib_per_request, ...;
    `fanout_bursts` a row per fan-out burst), summary.md and report.html (the memory charts, the table, the bursts,
    pools and limits, the leak check), and its two charts as memory.svg and heap.svg."""
    idle_rows = [{"mode": e["series"], "transport": e["transport"], "in_flight": 0, "level": 0, **e["start"]}
                 for e in ends]
    leaks = []
    for e in ends:
        for key in ("platform_threads", "heap_after_gc_kib", "open_files"):
            a, b = e["start"].get(key), e["end"].get(key)
            if a and b is not None:
                leaks.append({"series": e["series"], "transport": e["transport"], "what": key, "start": a,
                              "answered": (e.get("answered") or {}).get(key), "end": b,
                              "within_10_pct": abs(b - a) <= 0.1 * a})
    with open(os.path.join(out, "summary.json"), "w") as f:   # one row a line, as compare's summary.json
        head = json.dumps({"experiment": "scale", "machine": meta, "limits": limits, "leak_check": leaks,
                           "targets": [dict(zip(("target", "verdict", "measured"), t)) for t in targets(rows, leaks)],
                           "delay_calls": {f"{e['series']} {e['transport']}": e.get("delay_calls") for e in ends},
                           "heap_growth": {f"{e['series']} {e['transport']}": {
                               "answers_back": e.get("heap_growth_answered"), "deadlines_passed": e.get("heap_growth")}
                               for e in ends},
                           "fanout_bursts": list(bursts),
                           "fanout_not_run": [dict(zip(("series", "transport", "calls", "why"), x)) for x in skipped]},
                          indent=1)
        f.write(head[:-2] + ',\n"rows": [\n' + ",\n".join(json.dumps(r, default=str) for r in rows) + "\n]}\n")
    app_settings = report.settings_text(meta)
    lines = ["# vt-vs-reactive: requests in flight (scale)", "",
             f"- **machine**: {meta.get('cores')} cores ({meta.get('cpu', '?')}), {meta.get('memory_mib', '?')} MiB, "
             f"JDK {meta.get('jdk', '?')}, run {meta.get('started', '?')}, `{meta.get('command', '')}`",
             f"- **pools and limits** (as the first app told them at /q/info): {app_settings}",
             "- **raised for this experiment** (per series and transport; a normal run keeps the defaults): ",
             *[f"  - {k}: " + ", ".join(f"{n}={v}" for n, v in lim.items() if n != "http1_ceiling")
               for k, lim in limits.items()],
             f"- **what stops HTTP/1.1 here**: {ceiling('http1', '', nofile)[1]}: at most "
             f"{ceiling('http1', '', nofile)[0]:,} waiting requests per app (the socket client with h2c in front: "
             f"{ceiling('h2c', 'socket', nofile)[0]:,})",
             "- **method**: io?delay=D at R req/s holds R x D requests once D has passed; each level is held, probed "
             "(/q/health/ready within 1 s, virtual/io?delay=0 p99 within 100 ms), then a full GC (jcmd GC.run) "
             "gives the heap the waiting requests keep alive and NMT (jcmd VM.native_memory summary) the native "
             "memory. Memory per waiting request: the least-squares slope of RSS (and of the heap after GC) "
             "against the achieved in-flight, from the idle app up to that level.", "",
             "## Targets", "", "| target | verdict | measured |", "|---|---|---|",
             *[f"| {t} | {v} | {m} |" for t, v, m in targets(rows, leaks)], "",
             "## Levels", "", *table_md(rows), "",
             "## Leak check (the idle app before the first level; once the last level's answers are back; once "
             "every request's deadline has passed too)", "",
             "| series | transport | what | start | answers back | deadlines passed | within 10 % |",
             "|---|---|---|---|---|---|---|",
             *[f"| {x['series']} | {x['transport']} | {x['what']} | {fmt(x['start'])} | {fmt(x.get('answered'))} | "
               f"{fmt(x['end'])} | {x['within_10_pct']} |" for x in leaks], "",
             "What the heap after GC kept that it did not at the start (the classes that grew most, live KiB start "
             "-> then, jcmd GC.class_histogram):", "",
             *[f"- {e['series']} {e['transport']}, {when}: " + (", ".join(f"{c} {a:,} -> {b:,}" for c, a, b in
                                                                         e.get(key) or []) or "nothing grew")
               for e in ends for key, when in (("heap_growth_answered", "answers back"),
                                               ("heap_growth", "deadlines passed"))], "",
             f"## One request fanning out (calls of {burst.DELAY_MS} ms each, from a fresh app)", "",
             *burst.table_md(bursts, skipped), "",
             "## Delay calls per protocol (the delay service's own count, warm-up included)", "",
             *[f"- {e['series']} {e['transport']}: " + (", ".join(f"{p} {n:,}" for p, n in
                                                               sorted(e.get("delay_calls", {}).items())) or "n/a")
               for e in ends], ""]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines))
    charts = memory_charts(rows, idle_rows)
    for name, chart in zip(CHART_FILES, charts):   # on their own too, for pages that show one
        with open(os.path.join(out, name), "w") as f:
            f.write(report.standalone(chart))
    scale_report.write_html(out, charts, lines)
    print(f"{len(rows)} levels -> {out}/summary.json, summary.md, report.html")


# ---------------------------------------------------------------------------------------------- entry
def run(s, argv):
    """`compare --experiment scale`: the plan (--dry-run) or the run."""
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    groups = groups_of(s, nofile)
    if s.dry_run:
        for series, transport, levels in groups:
            print(f"{series} {transport}: " + (", ".join(f"{x.in_flight:,} ({x.rate:,} req/s x {x.delay_ms} ms)"
                                                         for x in levels) or "no level fits")
                  + f"  [{ceiling(transport, plan.client_of(series), nofile)[1]}]")
        bursts = burst.bursts_of(s.modes, s.quick)
        for series, transport, calls, skipped in bursts:
            print(f"{series} {transport}: one request fanning out {calls:,} calls" + (f" not run: {skipped}"
                                                                                     if skipped else ""))
        print(f"about {estimate_run_s(s, nofile):.0f} s")
        return 0
    out = os.path.abspath(s.out or default_out())
    if os.path.isdir(os.path.join(out, "steps")) and os.listdir(os.path.join(out, "steps")):
        raise Fatal(f"{out} already holds a run (steps/); choose another --out")
    with Procs() as ps:
        return ScaleRun(s, out, "load/compare.sh" + "".join(" " + a for a in argv), ps).run()

