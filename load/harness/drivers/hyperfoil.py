"""Hyperfoil, the open-model driver that also runs distributed (docs/distributed.md).

A step is a benchmark file (PREFIX.hf.yaml: a `constantRate` ramp-in, then the measured phase;
`always` with N users for the closed model), run embedded by load/hyperfoil's runner, which
writes PREFIX.hf.json; `finish` turns it into PREFIX.json in Vegeta's report shape, so a
step's row is read the same way. Hyperfoil keeps one histogram of every answer and counts
statuses by class: success latencies are exact only when every answer succeeded."""
from __future__ import annotations

import json

from hdrh.histogram import HdrHistogram

from harness.drivers.base import Result, histogram

RAMP, MAIN = "ramp", "main"
# the connection pool may grow to a second's requests: a 1 s stall still sends on time
CONNECTIONS_PER_RATE_S = 1.0


def benchmark(name, target, load, *, agents=(), model="rate", threads=2):
    """The Hyperfoil benchmark (YAML text) of one step: TARGET at LOAD.level for LOAD.duration_ms,
    the first LOAD.ramp_ms the ramp-in. AGENTS: 'host[:port]' to start an agent on over SSH, or
    '' for a Kubernetes pod; each runs THREADS threads and gets its share of the rate."""
    base, path = _split(target.url)
    level = max(1, int(load.level))
    opts = dict(x.partition("=")[::2] for x in load.extra)   # scale's: connections=, sessions=
    pool = int(opts.get("connections")
               or (max(16, int(level * CONNECTIONS_PER_RATE_S)) if model == "rate" else level))
    sessions = int(opts.get("sessions") or pool)
    lines = [f"name: {json.dumps(name)}", f"threads: {threads}"]
    if agents:
        lines.append("agents:")
        for i, h in enumerate(agents, 1):   # a host over SSH, or "" for a Kubernetes pod
            where = [f"    host: {json.dumps(h.rpartition(':')[0] if ':' in h else h)}",
                     f"    port: {h.rpartition(':')[2] if ':' in h else 22}"] if h else []
            lines += [f"  agent-{i}:", *where, f"    threads: {threads}"]
    lines += ["http:", f"  host: {json.dumps(base)}", "  sharedConnections:",
              f"    core: {min(pool, max(16, level // 10))}", f"    max: {pool}",
              "    buffer: 16", "phases:"]
    ramp_ms = min(load.ramp_ms, load.duration_ms or 0)
    phases = (([(RAMP, 0, ramp_ms)] if ramp_ms else [])
              + [(MAIN, ramp_ms, (load.duration_ms or 0) - ramp_ms)])
    for phase, start_ms, ms in phases:
        if model == "rate":
            # evenly paced, as Vegeta sends (Hyperfoil's default: exponential gaps, a Poisson count)
            shape = ["    constantRate:", f"      usersPerSec: {level}",
                     f"      maxSessions: {sessions}", "      variance: false"]
        else:
            shape = ["    always:", f"      users: {level}"]
        lines += [f"- {phase}:", *shape,
                  f"      startTime: {start_ms}ms", f"      duration: {ms}ms",
                  f"      maxDuration: {ms + int(load.timeout_s * 1000) + 5000}ms",
                  "      scenario:", "      - request:", "        - httpRequest:",
                  f"            {target.method}: {json.dumps(path)}", "            metric: request",
                  f"            timeout: {int(load.timeout_s * 1000)}ms",
                  *(["            headers:", "              content-type: application/json",
                      f"            body: {json.dumps(target.body)}"] if target.body else [])]
    return "\n".join(lines) + "\n"


class Hyperfoil:
    name, model = "hyperfoil", "rate"

    def __init__(self, command):
        """COMMAND: the runner's argv (java, -cp ..., org.vtvr.load.HyperfoilRun)."""
        self.command = list(command)
        self.binary = " ".join(self.command[-1:])

    def start(self, ps, target, load, prefix, *, log_path=None, name=None):
        """Writes PREFIX.hf.yaml for TARGET at LOAD and starts the runner on it -> its Proc; it
        stops by itself after the step plus the request timeout."""
        with open(prefix + ".hf.yaml", "w") as f:
            f.write(benchmark(name or "step", target, load))
        return ps.start(f"hyperfoil {name or ''}".strip(),
                        [*self.command, prefix + ".hf.yaml", prefix + ".hf.json"],
                        log_path=log_path)

    def finish(self, prefix, log_path=None):
        """PREFIX.json: the run's figures as Vegeta's JSON report ({} without results)."""
        rep = report(read(prefix))
        with open(prefix + ".json", "w") as f:
            json.dump(rep, f)
        if log_path and rep:
            with open(log_path, "a") as f:
                f.write(f"Requests [total, rate, throughput] {rep['requests']}, {rep['rate']:.2f}, "
                        f"{rep['throughput']:.2f}\nSuccess [ratio] {100 * rep['success']:.2f}%\n"
                        "Status Codes [code:count] "
                        f"{' '.join(f'{k}:{v}' for k, v in rep['status_codes'].items())}\n")
        return rep

    def result(self, prefix, ramp_in_s=0.0):
        """The Result of PREFIX.hf.json: the measured phase (every phase's answers in every_ms)."""
        return from_run(read(prefix), ramp_in_s)


def read(prefix):
    try:
        with open(prefix + ".hf.json") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def from_run(run, ramp_in_s=0.0):
    """A Result from the runner's output RUN; the ramp-in phase's answers count in every_ms only."""
    res = Result("hyperfoil")
    phases = run.get("phases") or {}
    for name, ph in phases.items():
        measured = name == MAIN or not ramp_in_s
        h = HdrHistogram.decode(ph["histogram_us"]) if ph.get("histogram_us") else histogram()
        res.every_ms.add(h)
        if not measured:
            continue
        res.all_ms.add(h)
        res.requests += ph["requests"]
        for cls, n in ph["status"].items():
            if n:
                res.status[cls] = res.status.get(cls, 0) + n
        unanswered = ph["requests"] - ph["responses"]
        if unanswered > 0:
            res.status["0"] = res.status.get("0", 0) + unanswered
        for key, text in (("request_timeouts", "timeout"),
                          ("connection_errors", "connection error"),
                          ("internal_errors", "internal error")):
            if ph.get(key):
                res.errors[text] = res.errors.get(text, 0) + ph[key]
        if h.get_total_count():
            res.max_ms = max(res.max_ms or 0.0, h.get_max_value() / 1000)
            res.sum_ms += h.get_mean_value() * h.get_total_count() / 1000
    failed = sum(n for c, n in res.status.items() if c not in ("2xx", "3xx", "0"))
    res.ok_ms = res.all_ms if not failed else histogram()
    if failed:
        res.errors[f"success latencies unknown: {failed} answers were not 2xx/3xx "
                   "(Hyperfoil keeps one histogram)"] = 1
    main = phases.get(MAIN) or {}
    if main.get("duration_ms"):
        res.send_rate = main["requests"] / (main["duration_ms"] / 1000)
    return res


def from_controller(doc):
    """A Hyperfoil controller's all.json (merged over its agents) as the runner's output, so a
    distributed step reads like an embedded one. Latencies come from all.json's percentile
    buckets (ns; counted at each bucket's upper end), counts from each phase's summary."""
    phases = {}
    for entry in doc.get("stats") or []:
        if entry.get("isWarmup") or entry.get("metric") not in (None, "request"):
            continue
        total, summary = entry.get("total") or {}, (entry.get("total") or {}).get("summary") or {}
        http = (summary.get("extensions") or {}).get("http") or {}
        h = histogram()
        for bucket in (entry.get("histogram") or {}).get("percentiles") or []:
            if bucket.get("count"):
                h.record_value(max(1, round(bucket["to"] / 1000)), bucket["count"])
        start, end = (total.get("start") or summary.get("startTime") or 0,
                      total.get("end") or summary.get("endTime"))
        phases[entry.get("phase") or entry.get("name")] = {
            "start_ms": start, "duration_ms": max(0, (end or start) - start), "finished_ms": end,
            "terminated_ms": end, "requests": summary.get("requestCount", 0),
            "responses": summary.get("responseCount", 0), "invalid": summary.get("invalid", 0),
            "connection_errors": summary.get("connectionErrors", 0),
            "request_timeouts": summary.get("requestTimeouts", 0),
            "internal_errors": summary.get("internalErrors", 0),
            "blocked_ms": summary.get("blockedTime", 0) // 1_000_000,
            "status": {c: http.get(f"status_{c}", 0)
                       for c in ("2xx", "3xx", "4xx", "5xx", "other")},
            "histogram_us": h.encode().decode()}
    return {"name": (doc.get("info") or {}).get("benchmark", ""), "phases": phases,
            "source": "controller all.json"}


def report(run):
    """RUN (the runner's output) as Vegeta's JSON report of every request (ramp-in's too);
    throughput = successes / (sending time + the wait for the last answers), latencies in ns,
    status counts by class (0: no answer)."""
    phases = list((run.get("phases") or {}).values())
    if not phases:
        return {}
    res = from_run(run)
    n = res.requests
    ok = res.status.get("2xx", 0) + res.status.get("3xx", 0)
    start = min(p["start_ms"] for p in phases)
    sending_ms = max(p.get("finished_ms") or p["start_ms"] + p["duration_ms"]
                     for p in phases) - start
    answered_ms = max(p.get("terminated_ms") or 0 for p in phases) - start
    lat = res.all_ms
    ns = lambda p: (lat.get_value_at_percentile(p) * 1000  # noqa: E731
                    if lat.get_total_count() else 0)
    return {"requests": n, "rate": n / (sending_ms / 1000) if sending_ms else 0.0,
            "throughput": ok / (max(sending_ms, answered_ms) / 1000) if sending_ms else 0.0,
            "success": ok / n if n else 0.0, "duration": sending_ms * 1_000_000,
            "wait": max(0, answered_ms - sending_ms) * 1_000_000,
            "latencies": {"50th": ns(50), "90th": ns(90), "95th": ns(95), "99th": ns(99),
                          "max": lat.get_max_value() * 1000, "mean": lat.get_mean_value() * 1000},
            "status_codes": dict(sorted(res.status.items())), "errors": sorted(res.errors),
            "error": run.get("error", "")}


def _split(url):
    """'http://h:p/path?q' -> ('http://h:p', '/path?q')."""
    scheme, _, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}://{host}", slash + path
