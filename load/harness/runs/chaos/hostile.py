"""Check 5 of load/chaos.sh: one hostile client must not take the service down (issue 12;
docs/hostile-clients.md). One check record per sub-check in the checks folder (chaos.write_check).

  5.1 idle        one client opens IDLE_CONNECTIONS TCP connections and sends nothing; a new
                  client's GET /virtual/io?delay=0 must answer 200 within 1 s (every 0.5 s while
                  they stay open)
  5.2 cpu flood   four clients loop on GET /reactive/cpu?n=<the largest n reactive accepts, from
                  its 400 answer to n=10,000,000>; meanwhile GET /virtual/io?delay=0 and
                  /worker/io?delay=0 must all answer 200 with p99 under 250 ms (their p50/p99
                  without the flood, 3 s before, are printed too)
  5.3 admission   one client fills the reactive mode's bench.max-in-flight (admission_limit in
                  /q/metrics) with POSTs whose bodies never come; the next reactive request must
                  get a 503 problem within 1 s, the other modes 200; once the client hangs up,
                  admission_in_flight must be 0 within 5 s and reactive answer 200 again

run() is what runs/chaos/run.py calls; `python -m harness.runs.chaos.hostile --base URL
--checks DIR [--flood S] [--idle N]` runs it by hand.
"""
import argparse
import json
import pathlib
import re
import resource
import socket
import sys
import threading
import time
from urllib.parse import urlparse

from harness.infra.numbers import percentile
from harness.infra.procs import fetch
from harness.sampling import prom


def get(url, timeout=5.0):
    """-> (status, body text, seconds); status 0 when no HTTP answer came."""
    t0 = time.monotonic()
    status, body = fetch(url, timeout)
    return status, body.decode("utf-8", "replace"), time.monotonic() - t0


def pct(seconds, p):
    """The P-th percentile of SECONDS in ms (HdrHistogram, as every latency here), None for none."""
    ms = percentile([x * 1000 for x in seconds], p)
    return None if ms is None else round(ms, 1)


def record(checks, file, cid, name, passed, **figures):
    rec = {"id": cid, "name": name, "pass": bool(passed), "figures": figures}
    (checks / file).write_text(json.dumps(rec, indent=1) + "\n")
    print(f"{'PASS' if passed else 'FAIL'}  {cid} {name}: {json.dumps(figures)}", flush=True)
    return passed


def metric(base, name, mode):
    """The MODE's value of the series NAME in the app's /q/metrics; None if absent or unanswered."""
    status, body, _ = get(base + "/q/metrics")
    return prom.metric_sum(prom.parse(body), name, mode=mode) if status == 200 else None


def open_sockets(host, port, count):
    socks = []
    for _ in range(count):
        s = socket.create_connection((host, port), timeout=5)
        socks.append(s)
    return socks


def close_all(socks):
    for s in socks:
        try:
            s.close()
        except OSError:
            pass


def check_idle(base, host, port, checks, idle):
    socks, probes, error = [], [], None
    get(base + "/virtual/io?delay=0")   # not the first request of a cold path
    try:
        socks = open_sockets(host, port, idle)
        for _ in range(4):
            status, _, secs = get(base + "/virtual/io?delay=0", timeout=5)
            probes.append({"status": status, "ms": round(secs * 1000, 1)})
            time.sleep(0.5)
    except OSError as e:
        error = str(e)
    finally:
        close_all(socks)
    ok = (error is None and len(socks) == idle
          and all(p["status"] == 200 and p["ms"] <= 1000 for p in probes))
    return record(checks, "5a-hostile-idle.json", "5.1",
                  f"{idle} idle connections, a new client served within 1 s", ok,
                  idle_connections=len(socks),
                  slowest_probe_ms=max((p["ms"] for p in probes), default=None), probes=probes,
                  error=error)


def check_cpu_flood(base, checks, flood_s):
    status, body, _ = get(base + "/reactive/cpu?n=10000000", timeout=30)
    m = re.search(r"1\.\.(\d+) in reactive mode", body)
    n = int(m.group(1)) if status == 400 and m else 10_000_000
    stop = threading.Event()
    flood = {"requests": 0, "codes": {}}
    lock = threading.Lock()

    def flooder():
        while not stop.is_set():
            code, _, _ = get(f"{base}/reactive/cpu?n={n}", timeout=30)
            with lock:
                flood["requests"] += 1
                flood["codes"][str(code)] = flood["codes"].get(str(code), 0) + 1

    latencies = {"virtual": [], "worker": []}
    codes = {"virtual": {}, "worker": {}}

    def prober(mode):
        while not stop.is_set():
            code, _, secs = get(f"{base}/{mode}/io?delay=0", timeout=10)
            latencies[mode].append(secs)
            codes[mode][str(code)] = codes[mode].get(str(code), 0) + 1
            time.sleep(0.02)

    # the same probes without the flood first: on a busy machine their own p99 is the yardstick
    probes = [threading.Thread(target=prober, args=(m,), daemon=True) for m in latencies]
    for t in probes:
        t.start()
    time.sleep(3)
    stop.set()
    for t in probes:
        t.join(15)
    baseline = {mode: {"requests": len(lat), "p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99)}
                for mode, lat in latencies.items()}
    latencies = {"virtual": [], "worker": []}
    codes = {"virtual": {}, "worker": {}}
    stop.clear()

    floods = [threading.Thread(target=flooder, daemon=True) for _ in range(4)]
    for t in floods:
        t.start()
    time.sleep(1)   # the flood is on before the first probe
    probes = [threading.Thread(target=prober, args=(m,), daemon=True) for m in latencies]
    for t in probes:
        t.start()
    time.sleep(flood_s)
    stop.set()
    for t in probes + floods:
        t.join(35)
    figures, ok = flood_figures(n, flood, baseline, latencies, codes)
    return record(checks, "5b-hostile-cpu.json", "5.2", "four clients loop on the heaviest "
                  "reactive cpu: virtual and worker io p99 < 250 ms", ok, **figures)


def flood_figures(n, flood, baseline, latencies, codes):
    """(figures, pass) of check 5.2 from each probed mode's LATENCIES and CODES under the flood."""
    figures = {"reactive_n": n, "flood": flood, "baseline_without_flood": baseline}
    ok = True
    for mode, lat in latencies.items():
        p99 = pct(lat, 99)
        figures[mode] = {"requests": len(lat), "codes": codes[mode], "p50_ms": pct(lat, 50),
                         "p99_ms": p99, "max_ms": pct(lat, 100)}
        figures[f"{mode}_io_p99_ms"] = p99   # the summary table prints scalars
        figures[f"{mode}_io_p99_ms_without_flood"] = baseline[mode]["p99_ms"]
        ok = ok and bool(lat) and p99 is not None and p99 < 250 and set(codes[mode]) == {"200"}
    return figures, ok


def check_admission(base, host, port, checks):
    limit = metric(base, "admission_limit", "reactive")
    if limit is None:
        return record(checks, "5c-hostile-admission.json", "5.3",
                      "admission: 503 past bench.max-in-flight", False,
                      error="admission_limit{mode=reactive} not in /q/metrics")
    limit = int(limit)
    head = (f"POST /reactive/orders?delay=0 HTTP/1.1\r\nHost: {host}\r\n"
            f"Content-Type: application/json\r\nContent-Length: 64\r\n\r\n").encode()
    socks, figures, ok = [], {"limit": limit}, False
    try:
        t0 = time.monotonic()
        for _ in range(limit):
            s = socket.create_connection((host, port), timeout=5)
            s.sendall(head)   # the body never comes: each request stays in progress
            socks.append(s)
        deadline = time.monotonic() + 10
        while ((metric(base, "admission_in_flight", "reactive") or 0) < limit
               and time.monotonic() < deadline):
            time.sleep(0.2)
        figures["filled_s"] = round(time.monotonic() - t0, 1)
        figures["in_flight"] = metric(base, "admission_in_flight", "reactive")
        status, body, secs = get(base + "/reactive/io?delay=0", timeout=5)
        figures["next_reactive"] = {"status": status, "ms": round(secs * 1000, 1),
                                    "problem": "problem" in body}
        figures["next_reactive_status"], figures["next_reactive_ms"] = status, round(secs * 1000, 1)
        others = {}
        for mode in ("virtual", "worker"):
            code, _, s2 = get(f"{base}/{mode}/io?delay=0", timeout=5)
            others[mode] = {"status": code, "ms": round(s2 * 1000, 1)}
        figures["other_modes"] = others
        ok = (figures["in_flight"] == limit and status == 503 and secs <= 1
              and figures["next_reactive"]["problem"]
              and all(o["status"] == 200 and o["ms"] <= 1000 for o in others.values()))
    except OSError as e:
        figures["error"] = str(e)
    finally:
        close_all(socks)
    t0 = time.monotonic()
    while (metric(base, "admission_in_flight", "reactive") or 0) > 0 and time.monotonic() - t0 < 5:
        time.sleep(0.1)
    figures["released_s"] = round(time.monotonic() - t0, 2)
    figures["in_flight_after"] = metric(base, "admission_in_flight", "reactive")
    status, _, _ = get(base + "/reactive/io?delay=0", timeout=5)
    figures["reactive_after"] = status
    figures["rejected_total"] = metric(base, "admission_rejected_total", "reactive")
    ok = ok and figures["in_flight_after"] == 0 and status == 200
    return record(checks, "5c-hostile-admission.json", "5.3", "admission: 503 past "
                  "bench.max-in-flight, slots back when the client hangs up", ok, **figures)


def run(base, checks, flood_s=8.0, idle=2000):
    """Checks 5.1-5.3 on the app at BASE, one record each in folder CHECKS; True if all pass."""
    url = urlparse(base)
    host, port = url.hostname, url.port or 80
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 12000 if hard == resource.RLIM_INFINITY else min(hard, 12000)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    checks = pathlib.Path(checks)
    checks.mkdir(parents=True, exist_ok=True)
    results = [check_idle(base, host, port, checks, idle), check_cpu_flood(base, checks, flood_s),
               check_admission(base, host, port, checks)]
    return all(results)


def main(argv=None):
    p = argparse.ArgumentParser(prog="vtvr-harness hostile", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True)
    p.add_argument("--checks", required=True)
    p.add_argument("--flood", type=float, default=8, help="seconds of the cpu flood")
    p.add_argument("--idle", type=int, default=2000, help="idle connections of check 5.1")
    a = p.parse_args(argv)
    return 0 if run(a.base, a.checks, a.flood, a.idle) else 1


if __name__ == "__main__":
    sys.exit(main())
