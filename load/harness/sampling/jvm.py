"""What the scale experiment reads from a running JVM app: a monitor of CPU, RSS and threads, the
quick-request probe, heap after a full GC, NMT, the class histogram, the delay service's calls."""
import contextlib
import json
import os
import re
import subprocess
import threading
import time

import psutil

from harness.infra import procs
from harness.infra.numbers import percentile, rnd
from harness.infra.procs import fetch, log
from harness.sampling.prom import metric_sum, parse
from harness.sampling.sample import proc_sample

# the probe's bounds while a level is held: ready within 1 s, quick io requests' p99 within 100 ms
PROBE_READY_MS, PROBE_IO_P99_MS = 1_000, 100
NMT_TOTAL = re.compile(r"^Total: reserved=(\d+)KB, committed=(\d+)KB", re.M)
NMT_CATEGORY = re.compile(r"^-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB\)", re.M)


def parse_nmt(text):
    """`jcmd PID VM.native_memory summary` -> {category: committed KiB, ..., 'Total': KiB}."""
    out = {name.strip(): int(committed) for name, _, committed in NMT_CATEGORY.findall(text)}
    total = NMT_TOTAL.search(text)
    if total:
        out["Total"] = int(total.group(2))
    return out


# ---------------------------------------------------------------------------------------- measuring
class Monitor(threading.Thread):
    """Samples the app every second while a group runs: CPU, RSS, OS threads (psutil), open files,
    and from /q/metrics the mode's admission_in_flight, live JVM threads and heap; each sample goes
    to the level folders open at that moment."""

    def __init__(self, pid, url, mode, every_s=1.0):
        super().__init__(daemon=True)
        self.proc, self.url, self.mode, self.every_s = psutil.Process(pid), url, mode, every_s
        self.sinks, self.lock, self.stop = {}, threading.Lock(), threading.Event()
        self.latest = {}

    def sample(self):
        cpu = psutil.cpu_times()
        row = {"t": time.time(),
               "machine_busy_s": sum(cpu) - cpu.idle - getattr(cpu, "iowait", 0),
               "machine_total_s": sum(cpu)}
        with contextlib.suppress(psutil.Error):
            row.update(proc_sample(self.proc))
            row["open_files"] = self.proc.num_fds()
        code, body = fetch(self.url + "/q/metrics", 5)
        if code == 200:
            m = parse(body.decode("utf-8", "replace"))
            row["metrics"] = {
                "in_flight": metric_sum(m, "admission_in_flight", mode=self.mode),
                "jvm_live_threads": metric_sum(m, "jvm_threads_live_threads"),
                "heap_bytes": metric_sum(m, "jvm_memory_used_bytes", area="heap"),
                # collector pauses so far (the probe's delays set against them)
                "gc_pause_s": metric_sum(m, "jvm_gc_pause_seconds_sum"),
                # the longest in the last two minutes but our own full GCs (jcmd GC.run)
                "gc_pause_max_s": max((v for labels, v in m.get("jvm_gc_pause_seconds_max", [])
                                       if labels.get("cause") != "System.gc()"), default=None),
                # a concurrent collector's cycles (ZGC) so far, as each ends, but our own full GCs:
                # the work beside the app that pauses do not show
                "gc_cycles_s": sum(
                    v for labels, v in m.get("jvm_gc_concurrent_phase_time_seconds_sum", [])
                    if labels.get("cause") not in ("System.gc()", "Diagnostic Command"))}
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


READY_PATH, IO_PATH = "/q/health/ready", "/virtual/io?delay=0"


def probe(url, seconds, every_s=0.1, record=None, paths=(READY_PATH, IO_PATH)):
    """For SECONDS: the readiness check (200 within PROBE_READY_MS?) and a quick io request (PATHS;
    None first: no readiness check), each every EVERY_S s, one at a time -> {ready_max_ms,
    ready_failed, io_p99_ms, io_failed, probe_ok}; each answer a JSON line in RECORD too."""
    ready, io, bad_ready, bad_io = [], [], 0, 0
    rec = open(record, "w", buffering=1) if record else None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for path, out in ((paths[0], ready), (paths[1], io)):
            if path is None:
                continue
            t0 = time.monotonic()
            code = procs.http_status(url + path, timeout=2.0)
            out.append((time.monotonic() - t0) * 1000)
            if rec:
                rec.write(json.dumps({"t": round(time.time(), 3), "path": path,
                                      "ms": rnd(out[-1], 1), "status": code}) + "\n")
            if code != 200:
                if out is ready:
                    bad_ready += 1
                else:
                    bad_io += 1
        time.sleep(every_s)
    if rec:
        rec.close()
    res = {"probe_ready_max_ms": rnd(max(ready, default=0), 1) if paths[0] else None,
           "probe_ready_failed": bad_ready, "probe_io_p99_ms": rnd(percentile(io, 99), 1),
           "probe_io_failed": bad_io, "probe_io_slow": sum(ms > PROBE_IO_P99_MS for ms in io),
           "probe_io_n": len(io)}
    res["probe_ok"] = (bool(io) and (paths[0] is None or bool(ready)) and not bad_ready
                       and not bad_io and (res["probe_ready_max_ms"] or 0) <= PROBE_READY_MS
                       and (res["probe_io_p99_ms"] or 0) <= PROBE_IO_P99_MS)
    return res


def gc_pause_s(url):
    """Seconds the JVM at URL was paused by its collector (jvm_gc_pause_seconds_sum), or None."""
    code, body = fetch(url + "/q/metrics", 5)
    return (metric_sum(parse(body.decode("utf-8", "replace")), "jvm_gc_pause_seconds_sum")
            if code == 200 else None)


def window(a, b):
    """What went on between two Monitor samples (the probe's window): machine CPU busy %, the app's
    cores used, and its collector's pauses (the probe's delays set against them)."""
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
    ca, cb = (x.get("metrics", {}).get("gc_cycles_s") for x in (a, b))
    if ca is not None and cb is not None:
        out["probe_gc_cycles_ms"] = rnd((cb - ca) * 1000, 0)
    return out


def jcmd(java_home, pid, *command, timeout=60):
    r = subprocess.run([os.path.join(java_home, "bin", "jcmd"), str(pid), *command],
                       capture_output=True, text=True, timeout=timeout)
    return r.stdout if r.returncode == 0 else ""


def memory(java_home, pid, url, mode=None, nmt=True):
    """A full GC, then the heap left (what waiting requests hold), RSS, NMT by category (NMT False:
    an app started without it), OS threads and open files; with MODE, its admission's in_flight."""
    out = dict.fromkeys(("heap_after_gc_kib", "rss_kib", "platform_threads", "open_files"))
    if mode:
        out["in_flight"] = None
    try:   # an app that fell over past a ceiling leaves its figures empty, not the run broken
        jcmd(java_home, pid, "GC.run")
        _, body = fetch(url + "/q/metrics", 10)
        m = parse(body.decode("utf-8", "replace"))
        heap = metric_sum(m, "jvm_memory_used_bytes", area="heap")
        flight = metric_sum(m, "admission_in_flight", mode=mode) if mode else None
        p = psutil.Process(pid)
        out.update(heap_after_gc_kib=None if heap is None else round(heap / 1024),
                   rss_kib=p.memory_info().rss // 1024, platform_threads=p.num_threads(),
                   open_files=p.num_fds(), thread_names=thread_names(pid))
        if mode and flight is not None:
            out["in_flight"] = int(flight)
        out["nmt_committed_kib"] = (parse_nmt(jcmd(java_home, pid, "VM.native_memory", "summary"))
                                    if nmt else {})
    except (psutil.Error, subprocess.SubprocessError, OSError) as e:
        log(f"WARNING: no memory figures from the app (pid {pid}): {e}")
        out.setdefault("nmt_committed_kib", {})
    return out


NUMBERED = re.compile(r"[-#]?\d+$")


def thread_names(pid):
    """The app's OS threads by name, numbers dropped ({"vert.x-eventloop-thread": 2, ...};
    /proc/PID/task/*/comm, 15 characters): which threads a reading that grew holds."""
    names = {}
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = NUMBERED.sub("", f.read().strip()) or "?"
                names[name] = names.get(name, 0) + 1
    return dict(sorted(names.items()))


HISTO_LINE = re.compile(r"^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", re.M)


def class_histogram(java_home, pid):
    """`jcmd PID GC.class_histogram` (live objects, after a full GC) -> {class: KiB}."""
    try:
        text = jcmd(java_home, pid, "GC.class_histogram")
    except (subprocess.SubprocessError, OSError):
        return {}
    return {name: int(size) // 1024 for _, size, name in HISTO_LINE.findall(text)}


def delay_calls(delay_url):
    """The delay service's calls per protocol (delay_service_calls_total): the transport used."""
    code, body = fetch(delay_url + "/q/metrics", 5)
    parsed = parse(body.decode("utf-8", "replace")) if code == 200 else {}
    return {labels.get("protocol", "?"): int(v)
            for labels, v in parsed.get("delay_service_calls_total", [])}


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
