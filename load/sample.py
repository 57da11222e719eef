#!/usr/bin/env python3
"""Samples one server process while a load step runs; started and stopped by compare.sh.

Usage: load/sample.py --pid PID --out FILE [--interval 0.25] [--metrics URL] [--metrics-interval 0.5]
       load/sample.py --pid PID --once       (one sample with the JIT/GC split, to stdout)

Every INTERVAL seconds it appends a JSON line to FILE with the process's CPU time (utime+stime from
/proc/PID/stat, in ms), resident memory (VmRSS) and live OS threads (Threads, from /proc/PID/status; for a
JVM these are platform threads: carriers, event loops, workers, GC, JIT). Every METRICS_INTERVAL seconds it
also reads METRICS_URL (Prometheus text) and records the JVM heap in use and the connection-pool and worker
pool gauges. The first and the last sample also split out the CPU of the JIT compiler threads and of the
garbage-collector threads (jit_ms, gc_ms, from /proc/PID/task/*/stat). The CPU the server spent answering
the scrapes is summed in scrape_cpu_ms so that the CPU per request can leave it out. It writes a last sample
and exits on SIGTERM/SIGINT, or when the process is gone.
Standard library only; Linux only (/proc).
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
import urllib.request

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_sample(pid):
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    # the command name may contain spaces: fields start after the last ')'
    fields = stat[stat.rindex(")") + 2:].split()
    cpu_ms = (int(fields[11]) + int(fields[12])) * 1000.0 / CLK_TCK  # utime, stime (fields 14, 15)
    rss_kb = threads = None
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return {"cpu_ms": cpu_ms, "rss_kb": rss_kb, "threads": threads}


# HotSpot thread names (/proc/PID/task/TID/comm, cut at 15 characters) of the JIT compilers and of the collectors
JIT_THREADS = ("C1 CompilerThre", "C2 CompilerThre")
GC_THREADS = ("GC Thread", "G1 ", "ZWorker", "ZDriver", "ZDirector", "Shenandoah", "VM Periodic")


def thread_cpu(pid):
    """CPU ms of the process's JIT compiler threads and garbage-collector threads (utime+stime per task)."""
    jit = gc = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended meanwhile
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ms = (int(fields[11]) + int(fields[12])) * 1000.0 / CLK_TCK
        if name.startswith(JIT_THREADS):
            jit += ms
        elif name.startswith(GC_THREADS):
            gc += ms
    return {"jit_ms": jit, "gc_ms": gc}


def parse_prometheus(text):
    """-> {metric name: [(labels dict, value)]} from the Prometheus text format."""
    out = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        try:
            if "{" in line:
                name, rest = line.split("{", 1)
                labels_s, value_s = rest.rsplit("}", 1)
                labels = {}
                for part in _split_labels(labels_s):
                    k, v = part.split("=", 1)
                    labels[k.strip()] = v.strip().strip('"')
            else:
                name, value_s = line.split(None, 1)
                labels = {}
            value = float(value_s.split()[0])
        except (ValueError, IndexError):
            continue
        out.setdefault(name.strip(), []).append((labels, value))
    return out


def _split_labels(s):
    parts, cur, quoted, esc = [], "", False, False
    for ch in s:
        if esc:
            cur += ch
            esc = False
        elif ch == "\\":
            cur += ch
            esc = True
        elif ch == '"':
            cur += ch
            quoted = not quoted
        elif ch == "," and not quoted:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def metric_sum(m, name, **match):
    """Sum of a series over the label sets that match; None when the series is absent."""
    if name not in m:
        return None
    return sum(v for labels, v in m[name] if all(labels.get(k) == want for k, want in match.items()))


def jvm_metrics(text):
    """The few figures the report uses, None for each series the server does not expose."""
    m = parse_prometheus(text)
    worker = {"pool_name": "vert.x-worker-thread"}
    return {
        "heap_bytes": metric_sum(m, "jvm_memory_used_bytes", area="heap"),
        "pinned": metric_sum(m, "jvm_threads_virtual_pinned_seconds_count"),
        "jvm_live_threads": metric_sum(m, "jvm_threads_live_threads"),
        # DB connections in use / requests waiting for one: Agroal (JDBC: virtual, worker) plus the Vert.x
        # SQL pool (reactive); in any one mode only one of them is busy
        "pool_active": _add(metric_sum(m, "agroal_active_count"), metric_sum(m, "sql_pool_active", pool_type="sql")),
        "pool_awaiting": _add(metric_sum(m, "agroal_awaiting_count"),
                              metric_sum(m, "sql_pool_queue_size", pool_type="sql")),
        "worker_active": metric_sum(m, "worker_pool_active", **worker),
        "worker_queued": metric_sum(m, "worker_pool_queue_size", **worker),
    }


def _add(a, b):
    return b if a is None else a if b is None else a + b


def scrape(url, timeout=2.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return jvm_metrics(r.read().decode("utf-8", "replace"))
    except Exception:  # a busy or stopping server must not end the sampling
        return None


class Scraper(threading.Thread):
    """Reads the metrics URL every INTERVAL seconds off the sampling loop, so that a server too busy to answer
    its metrics endpoint (a starved worker pool) does not stop the /proc samples."""

    def __init__(self, pid, url, interval):
        super().__init__(daemon=True)
        self.pid, self.url, self.interval = pid, url, interval
        self.lock = threading.Lock()
        self.latest = None          # metrics of the last scrape not yet written out
        self.scrape_cpu_ms = 0.0    # CPU the server spent answering our scrapes
        self.stop = threading.Event()

    def run(self):
        # compare.sh scrapes just before the step, so the first scrape here waits one interval
        while not self.stop.wait(self.interval):
            try:
                before = proc_sample(self.pid)["cpu_ms"]
                m = scrape(self.url)
                after = proc_sample(self.pid)["cpu_ms"]
            except (FileNotFoundError, ProcessLookupError, ValueError):
                return
            with self.lock:
                if m is not None:
                    self.latest = m
                    self.scrape_cpu_ms += after - before

    def take(self):
        with self.lock:
            m, self.latest = self.latest, None
            return m, self.scrape_cpu_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--out")
    ap.add_argument("--interval", type=float, default=0.25)
    ap.add_argument("--metrics", default=None, help="Prometheus URL, e.g. http://127.0.0.1:8080/q/metrics")
    ap.add_argument("--metrics-interval", type=float, default=0.5)
    ap.add_argument("--once", action="store_true", help="print one JSON sample (with jit_ms, gc_ms) and exit")
    args = ap.parse_args()
    if args.once:
        print(json.dumps({**proc_sample(args.pid), **thread_cpu(args.pid)}))
        return 0
    if not args.out:
        ap.error("--out is needed (or --once)")

    # The handler only flips a flag: anything that takes a lock (Event.set) can deadlock when the signal lands
    # while the main thread holds that very lock (CI once hung here for 80 minutes)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
    scraper = None
    if args.metrics:
        scraper = Scraper(args.pid, args.metrics, args.metrics_interval)
        scraper.start()
    first = True
    with open(args.out, "a", buffering=1) as out:
        while True:
            try:
                row = {"t": time.time(), **proc_sample(args.pid)}
            except (FileNotFoundError, ProcessLookupError, ValueError):
                break
            if first or stopping:   # the per-thread split is read at both ends only: it reads every thread
                row.update(thread_cpu(args.pid))
                first = False
            if scraper:
                m, row["scrape_cpu_ms"] = scraper.take()
                if m is not None:
                    row["metrics"] = m
            out.write(json.dumps(row) + "\n")
            if stopping:
                break
            for _ in range(max(1, round(args.interval / 0.05))):   # short naps: a stop is seen within 50 ms
                if stopping:
                    break
                time.sleep(min(0.05, args.interval))
    return 0


if __name__ == "__main__":
    sys.exit(main())
