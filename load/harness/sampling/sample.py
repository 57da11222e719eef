"""Samples the server while a load step runs; the runner starts and stops it.

Usage: vtvr-harness sample --pid PID --out FILE [--interval 0.25] [--metrics URL]
                           [--metrics-interval 0.5] [--also NAME=PID ...]
       vtvr-harness sample --metrics URL --out FILE     (a remote app: no pid, all from /q/metrics)
       vtvr-harness sample --pid PID --once             (one sample with the JIT/GC split)
       vtvr-harness sample --pid PID --scrape-cost URL  (CPU ms of one warm /q/metrics scrape)

Every INTERVAL seconds a JSON line to FILE: the process's CPU ms (user+system, psutil), RSS and OS
threads (for a JVM: platform threads). The first and last lines add the JIT and GC threads' CPU
(jit_ms, gc_ms) and each --also process's (e.g. the delay service): a step's CPU is the difference
of its ends. Every METRICS_INTERVAL seconds (0: never) METRICS_URL gives the pool gauges and heap;
the runner measures one scrape's CPU on the warm app at idle (--scrape-cost) and the report takes
the step's scrapes out of the app's CPU. Writes a last sample and exits on SIGTERM/SIGINT, or when
the process is gone.
"""
import argparse
import json
import signal
import sys
import threading
import time

import psutil

from harness.infra import procs
from harness.sampling.prom import metric_sum, parse


def proc_sample(proc):
    with proc.oneshot():
        t = proc.cpu_times()
        return {"cpu_ms": (t.user + t.system) * 1000.0,
                "rss_kb": proc.memory_info().rss // 1024, "threads": proc.num_threads()}


# HotSpot's JIT and GC thread names (/proc/PID/task/TID/comm, 15 characters): psutil gives
# per-thread times but no names
JIT_THREADS = ("C1 CompilerThre", "C2 CompilerThre")
GC_THREADS = ("GC Thread", "G1 ", "ZWorker", "ZDriver", "ZDirector", "Shenandoah", "VM Periodic")


def thread_cpu(proc):
    """CPU ms of the process's JIT compiler threads and garbage-collector threads."""
    jit = gc = 0.0
    for t in proc.threads():
        try:
            with open(f"/proc/{proc.pid}/task/{t.id}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue  # the thread ended meanwhile
        ms = (t.user_time + t.system_time) * 1000.0
        if name.startswith(JIT_THREADS):
            jit += ms
        elif name.startswith(GC_THREADS):
            gc += ms
    return {"jit_ms": jit, "gc_ms": gc}


def _add(a, b):
    return b if a is None else a if b is None else a + b


def jvm_metrics(text):
    """The few figures the report uses, None for each series the server does not expose."""
    m = parse(text)
    worker = {"pool_name": "vert.x-worker-thread"}
    cpu_ns = metric_sum(m, "process_cpu_time_ns_total")
    return {
        "heap_bytes": metric_sum(m, "jvm_memory_used_bytes", area="heap"),
        "pinned": metric_sum(m, "jvm_threads_virtual_pinned_seconds_count"),
        "jvm_live_threads": metric_sum(m, "jvm_threads_live_threads"),
        # a remote app's CPU and memory (Micrometer's process.cpu.time; RSS where exported)
        "process_cpu_ms": None if cpu_ns is None else cpu_ns / 1e6,
        "process_rss_bytes": metric_sum(m, "process_resident_memory_bytes"),
        # DB connections in use / requests waiting: Agroal (JDBC: virtual, worker) plus the Vert.x
        # SQL pool (reactive); in any one mode only one of them is busy
        "pool_active": _add(metric_sum(m, "agroal_active_count"),
                            metric_sum(m, "sql_pool_active", pool_type="sql")),
        "pool_awaiting": _add(metric_sum(m, "agroal_awaiting_count"),
                              metric_sum(m, "sql_pool_queue_size", pool_type="sql")),
        "worker_active": metric_sum(m, "worker_pool_active", **worker),
        "worker_queued": metric_sum(m, "worker_pool_queue_size", **worker),
    }


def fetch(url, timeout=2.0):
    code, body = procs.fetch(url, timeout)
    if code != 200:
        raise OSError(f"{url}: status {code}")
    return body.decode("utf-8", "replace")


def scrape(url, timeout=2.0):
    try:
        return jvm_metrics(fetch(url, timeout))
    except Exception:  # a busy or stopping server must not end the sampling
        return None


def scrape_cost(proc, url, n=20, warm=100):
    """CPU ms the server spends on one metrics scrape once that code is compiled: WARM scrapes,
    then N at idle, the JIT compiler threads' CPU left out (a cold app's first 20 cost 22-24 ms
    each, a warm one's 7: docs/harness.md)."""
    for _ in range(warm):
        fetch(url)
    cpu, jit = proc_sample(proc)["cpu_ms"], thread_cpu(proc)["jit_ms"]
    for _ in range(n):
        fetch(url)
    return (proc_sample(proc)["cpu_ms"] - cpu - (thread_cpu(proc)["jit_ms"] - jit)) / n


class Scraper(threading.Thread):
    """Reads the metrics URL every INTERVAL seconds off the sampling loop: a server too busy to
    answer it (a starved worker pool) does not stop the process samples."""

    def __init__(self, url, interval):
        super().__init__(daemon=True)
        self.url, self.interval = url, interval
        self.lock = threading.Lock()
        self.latest = None          # metrics of the last scrape not yet written out
        self.count = 0              # scrapes answered, for the report's scrape-cost statement
        self.stop = threading.Event()

    def run(self):
        # compare.sh scrapes just before the step, so the first scrape here waits one interval
        while not self.stop.wait(self.interval):
            m = scrape(self.url)
            with self.lock:
                if m is not None:
                    self.latest = m
                    self.count += 1

    def take(self):
        with self.lock:
            m, self.latest = self.latest, None
            return m, self.count


def parser():
    """The command line of `sample` (the module's docstring)."""
    ap = argparse.ArgumentParser(prog="vtvr-harness sample", description=__doc__.splitlines()[0])
    ap.add_argument("--pid", type=int)
    ap.add_argument("--out")
    ap.add_argument("--interval", type=float, default=0.25)
    ap.add_argument("--metrics", default=None,
                    help="Prometheus URL, e.g. http://127.0.0.1:8080/q/metrics")
    ap.add_argument("--metrics-interval", type=float, default=0.5)
    ap.add_argument("--also", action="append", default=[], metavar="NAME=PID",
                    help="another process whose CPU is read at both ends (delay, db)")
    ap.add_argument("--once", action="store_true",
                    help="print one JSON sample (with jit_ms, gc_ms) and exit")
    ap.add_argument("--scrape-cost", metavar="URL",
                    help="print the CPU ms of one scrape of URL at idle and exit")
    return ap


def others_of(also):
    """{name: psutil.Process} of the --also NAME=PID items ALSO, a pid of no process left out."""
    others = {}
    for a in also:
        name, _, pid = a.partition("=")
        try:
            others[name] = psutil.Process(int(pid))
        except (ValueError, psutil.Error):
            pass
    return others


def end_reading(proc, others):
    """The step ends' readings: each core's busy ms, PROC's JIT and GC threads, OTHERS' CPU."""
    # each core's busy time, for what limited a step (all but idle and iowait; guest is in user)
    row = {"host_busy_ms": [(sum(c) - c.idle - sum(getattr(c, k, 0.0)
                                                   for k in ("iowait", "guest", "guest_nice")))
                            * 1000.0 for c in psutil.cpu_times(percpu=True)]}
    if proc:
        row.update(thread_cpu(proc))
    for name, p in others.items():
        try:
            row[f"{name}_cpu_ms"] = proc_sample(p)["cpu_ms"]
        except psutil.Error:
            pass
    return row


def main(argv=None):
    ap = parser()
    args = ap.parse_args(argv)
    proc = psutil.Process(args.pid) if args.pid else None
    if args.once or args.scrape_cost:
        if proc is None:
            ap.error("--pid is needed")
        if args.scrape_cost:
            print(json.dumps({"scrape_cpu_ms": round(scrape_cost(proc, args.scrape_cost), 3)}))
        else:
            print(json.dumps({**proc_sample(proc), **thread_cpu(proc)}))
        return 0
    if not args.out or not (proc or args.metrics):
        ap.error("--out and --pid or --metrics are needed (or --once)")
    others = others_of(args.also)
    # The handler only flips a flag: taking a lock (Event.set) can deadlock if the signal lands
    # while the main thread holds it (CI once hung here for 80 minutes)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
    scraper = None
    if args.metrics and proc and args.metrics_interval > 0:
        scraper = Scraper(args.metrics, args.metrics_interval)
        scraper.start()
    first = True
    with open(args.out, "a", buffering=1) as out:
        while True:
            row = {"t": time.time()}
            try:
                if proc:
                    # ended, not yet reaped by its parent
                    if proc.status() == psutil.STATUS_ZOMBIE:
                        break
                    row.update(proc_sample(proc))
                else:   # remote: the scrape is the only source, every interval
                    m = scrape(args.metrics)
                    if m is not None:
                        row["metrics"] = m
                # the per-thread split at both ends only: it reads every thread
                if first or stopping:
                    row.update(end_reading(proc, others))
            except psutil.Error:
                break
            first = False
            if scraper:
                m, row["scrapes"] = scraper.take()
                if m is not None:
                    row["metrics"] = m
            out.write(json.dumps(row) + "\n")
            if stopping:
                break
            # short naps: a stop is seen within 50 ms
            for _ in range(max(1, round(args.interval / 0.05))):
                if stopping:
                    break
                time.sleep(min(0.05, args.interval))
    return 0


if __name__ == "__main__":
    sys.exit(main())
