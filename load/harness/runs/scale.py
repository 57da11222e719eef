"""`--experiment scale`: io with a long delay held at 1,000 .. 100,000 requests in flight per mode
and transport (HTTP/1.1 end to end, or h2c from Vegeta to the app and from the app to the delay
service), what each waiting request costs (RSS, heap after a full GC, native memory by category,
threads) and whether the app still answers meanwhile."""
import json
import os
import resource
import time
from datetime import UTC, datetime

from harness.analysis import burst
from harness.analysis.model import StepMeta
from harness.analysis.scale import (
    DEADLINE_SLACK_S,
    HOLD_S,
    JCMD_S,
    LEAK_CHECK_S,
    LEVELS,
    MIN_DELAY_MS,
    QUICK_DEADLINE_SLACK_S,
    QUICK_HOLD_S,
    QUICK_LEVELS,
    QUICK_MIN_DELAY_MS,
    TRANSPORTS,
    ceiling,
    estimate_s,
    heap_growth,
    levels_for,
    plan_levels,
    raised,
    tool_args,
    with_slopes,
)
from harness.analysis.steps import WORKER_THREADS, measure, read_json
from harness.drivers.base import Load
from harness.infra.errors import Fatal
from harness.infra.numbers import rnd
from harness.infra.procs import Procs, fetch, log
from harness.report.scale_report import write_report
from harness.runs import plan
from harness.runs.sequential import Sequential
from harness.runs.system import bare
from harness.sampling.jvm import (
    IO_PATH,
    READY_PATH,
    Monitor,
    class_histogram,
    delay_calls,
    gc_pause_s,
    memory,
    peak_in_flight,
    probe,
    window,
)


def estimate_run_s(s, nofile):
    """Seconds the run that settings S ask for takes (estimate_s of its groups and bursts)."""
    return estimate_s(groups_of(s, nofile), plan.warmup_s(s), burst.bursts_of(s.modes, s.quick))


# Hyperfoil 0.25.2 speaks HTTP/2 only over TLS: its HttpBuilder answers directHttp2 (h2c with
# prior knowledge) with "Direct HTTP/2 not implemented", so --tools hyperfoil drives HTTP/1.1 only
NO_H2C = {"hyperfoil": "Hyperfoil 0.25.2 has no cleartext HTTP/2 "
                       "(directHttp2: \"Direct HTTP/2 not implemented\")"}


def groups_of(s, nofile):
    """[(series, transport, [Level])]: every chosen series over both transports (HTTP/1.1 only
    with a tool in NO_H2C), each with the levels it can hold."""
    lv = QUICK_LEVELS if s.quick else LEVELS
    stairs = plan_levels(lv, min_delay_ms=QUICK_MIN_DELAY_MS if s.quick else MIN_DELAY_MS,
                         hold_s=QUICK_HOLD_S if s.quick else HOLD_S)
    out = []
    for series in s.modes:
        for transport in TRANSPORTS:
            if transport == "h2c" and s.tools[0] in NO_H2C:
                continue
            keep = levels_for(lv, transport, plan.client_of(series), nofile)
            out.append((series, transport, [x for x in stairs if x.in_flight in keep]))
    return out


class ScaleRun:
    """One scale run into one results folder: per series and transport a fresh app (and delay
    service) with the limits raised, the staircase of levels, and the report."""

    def __init__(self, s, out, cmdline, ps):
        self.s, self.out, self.cmdline, self.ps = s, out, cmdline, ps
        self.base = Sequential(s, [], out, cmdline, ps)
        self.nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        self.groups = groups_of(s, self.nofile)
        self.rows, self.idle, self.limits, self.ends = [], {}, {}, []
        self.bursts, self.skipped = [], []
        self.slack_s = QUICK_DEADLINE_SLACK_S if s.quick else DEADLINE_SLACK_S

    def run(self):
        t0 = time.monotonic()
        self.started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
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
        """A fresh delay service and app of SERIES with ENV raised (the previous app's settings
        taken back), warmed up: the JIT's first compiles are not what a waiting request costs."""
        s, b = self.s, self.base
        s.app_java_opts = " ".join(dict.fromkeys([*s.app_java_opts.split(),
                                                  "-XX:NativeMemoryTracking=summary"]))
        log(f"{label}: a fresh delay service and app "
            f"({', '.join(f'{k}={v}' for k, v in env.items())})")
        b.start_system(label.replace(" ", "-"), series, env)   # ENV: this group's only
        b.warm(series)

    def group(self, series, transport, levels, index):
        b = self.base
        env = raised(levels, transport, plan.client_of(series), self.slack_s)
        self.fresh_app(f"{series} over {transport}", series, env)
        java_home, pid, mode = b.sys.java_home, b.app_pid, plan.base_of(series)
        delay_url = f"http://127.0.0.1:{b.delay_port}"
        if not self.limits:
            b.sys.write_facts(b.url, self.started, self.cmdline)
        tool = self.s.tools[0]
        self.limits[f"{series} {transport}"] = {
            **env, "tool": " ".join([tool, *tool_args(tool, levels[-1], transport)]),
            "http1_ceiling": ceiling(transport, plan.client_of(series), self.nofile)}
        start = memory(java_home, pid, b.url)
        start_classes = class_histogram(java_home, pid)
        self.idle[(series, transport)] = {**start, "in_flight": 0}
        monitor = Monitor(pid, b.url, mode)
        monitor.start()
        # a process of its own has no readiness check: its own quick io request alone
        paths = (None, f"/{mode}/io?delay=0") if bare(series) else (READY_PATH, IO_PATH)
        tools = []
        try:
            for lv in levels:
                index += 1
                t, d = self.start_level(index, lv, series, transport, tool, env, monitor, pid)
                tools.append((t, d))
                self.hold(lv, d, monitor, paths, delay_url, java_home, pid)
            for t, d in tools:   # the last levels' answers
                if t.wait(max(x.delay_ms for x in levels) / 1000 + 60) == 0:
                    b.sys.driver(tool).finish(os.path.join(d, "results"),
                                              os.path.join(d, "stdout.txt"))
            last_answer = time.monotonic()
            time.sleep(2)
            answered = memory(java_home, pid, b.url)
            answered_classes = class_histogram(java_home, pid)
            # the leak check: LEAK_CHECK_S after the last answer, the delay clients' idle
            # connections closed (IDLE_CLOSE_MS), answered requests' timers dropped (DeadlineTimers)
            time.sleep(max(0.0, LEAK_CHECK_S - (time.monotonic() - last_answer)))
            end = memory(java_home, pid, b.url)
            self.ends.append({"series": series, "transport": transport, "start": start,
                              "answered": answered, "end": end,
                              "delay_calls": delay_calls(delay_url),
                              "heap_growth_answered": heap_growth(start_classes, answered_classes),
                              "heap_growth": heap_growth(start_classes,
                                                         class_histogram(java_home, pid))})
        finally:
            monitor.stop.set()
            for t, _ in tools:
                self.ps.stop(t, grace_s=5)
            b.stop_system()
        return index

    def start_level(self, index, lv, series, transport, tool, env, monitor, pid):
        """Starts level LV: folder, meta.json, samples, load tool -> (the tool's Proc, folder)."""
        b, mode = self.base, plan.base_of(series)
        d = os.path.join(self.out, "steps",
                         f"{index:03d}-io-{series}-{transport}-{lv.in_flight}")
        os.makedirs(d, exist_ok=True)
        StepMeta(index=index, scenario="io", mode=mode, series=series,
                 client=plan.client_of(series), tool=tool, load_kind="rate", load=lv.rate,
                 duration_s=lv.send_s, ramp_in_s=0, params=f"delay={lv.delay_ms}&calls=1",
                 app_pid=pid, level=lv.in_flight, transport=transport, delay_ms=lv.delay_ms,
                 past_ceiling=(ceiling(transport, plan.client_of(series), self.nofile)[0]
                               or lv.in_flight) < lv.in_flight).write(d)
        monitor.open(d, os.path.join(d, "samples.jsonl"))
        log(f"  {series} {transport}: {lv.in_flight:,} in flight = {lv.rate:,} req/s "
            f"x {lv.delay_ms} ms, held {lv.hold_s:g} s")
        # the client waits past the app's deadline (from arrival): a queued request's 504 reaches it
        load = Load(lv.rate, int(lv.send_s * 1000),
                    int(env["BENCH_REQUEST_DEADLINE"].rstrip("s")) + 10,
                    tuple(tool_args(tool, lv, transport)))
        target = b.sys.target(b.url, series, "io", f"DELAY={lv.delay_ms}")
        return (b.sys.driver(tool).start(self.ps, target, load, os.path.join(d, "results"),
                                         log_path=os.path.join(d, "stdout.txt"),
                                         name=f"{mode}-io-{lv.rate}"), d)

    def hold(self, lv, d, monitor, paths, delay_url, java_home, pid):
        """Holds level LV, probing the app (PATHS); its figures into D/scale.json."""
        b = self.base
        t_level = time.monotonic()
        # the hold: every request of this level is in flight from DELAY_MS on
        time.sleep(max(0.0, lv.delay_ms / 1000 + 0.5 - (time.monotonic() - t_level)))
        before, delay_gc = monitor.sample(), gc_pause_s(delay_url)
        extra = probe(b.url, max(1.0, lv.hold_s - JCMD_S - 1.5),
                      record=os.path.join(d, "probe.jsonl"), paths=paths)
        extra.update(window(before, monitor.sample()))
        delay_gc_after = gc_pause_s(delay_url)   # the probe's io call waits on the delay too
        if delay_gc is not None and delay_gc_after is not None:
            extra["probe_delay_gc_pause_ms"] = rnd((delay_gc_after - delay_gc) * 1000, 0)
        extra.update(memory(java_home, pid, b.url))
        extra["in_flight"] = peak_in_flight(os.path.join(d, "samples.jsonl"))
        time.sleep(max(0.0, lv.send_s - (time.monotonic() - t_level)))
        monitor.close(d)
        with open(os.path.join(d, "scale.json"), "w") as f:
            json.dump(extra, f)

    def burst(self, series, transport, calls):
        """One request of SERIES fanning out CALLS calls over TRANSPORT, from a fresh app, sampled
        every burst.SAMPLE_S s while it runs (the request comes over HTTP/1.1; TRANSPORT is the
        delay calls')."""
        b = self.base
        env = burst.raised(transport, calls, plan.client_of(series))
        self.limits[f"{series} {transport} fan-out"] = env
        self.fresh_app(f"{series} fan-out over {transport}", series, env)
        java_home, pid, delay_url = b.sys.java_home, b.app_pid, f"http://127.0.0.1:{b.delay_port}"
        d = os.path.join(self.out, "bursts", f"{series}-{transport}")
        os.makedirs(d, exist_ok=True)
        monitor = Monitor(pid, b.url, plan.base_of(series), every_s=burst.SAMPLE_S)
        try:
            idle = memory(java_home, pid, b.url)
            served = sum(delay_calls(delay_url).values())
            log(f"  {series} {transport}: one request fanning out {calls:,} calls "
                f"of {burst.DELAY_MS} ms")
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
                               cpu[-1] - cpu[0] if cpu else 0,
                               sum(delay_calls(delay_url).values()) - served)
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
            meta, extra = (StepMeta.read(step) or StepMeta(),
                           read_json(os.path.join(step, "scale.json")))
            if extra is None:
                continue
            row = measure(step, WORKER_THREADS).as_dict()
            row.update({k: meta[k] for k in ("level", "transport", "delay_ms", "past_ceiling")},
                       **extra)
            for key in ("p50_ok_ms", "p99_ok_ms"):
                row[key.replace("_ok_ms", "_over_delay_ms")] = (
                    None if row[key] is None else rnd(row[key] - meta.delay_ms, 1))
            rows.append(row)
        self.rows = with_slopes(rows, self.idle)
        write_report(self.out, self.rows, read_json(os.path.join(self.out, "machine.json"), {}),
                     self.limits, self.ends, self.nofile, self.bursts, self.skipped)


# ------------------------------------------------------------------------------------------ entry
def run(s, out, cmdline):
    """`compare --experiment scale`: the plan (--dry-run) or the run."""
    if len(s.tools) != 1 or s.tools[0] not in ("vegeta", "hyperfoil"):
        raise Fatal(f"--tools {','.join(s.tools)}: the scale experiment's levels take one rate "
                    "tool, vegeta or hyperfoil")
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    groups = groups_of(s, nofile)
    if s.tools[0] in NO_H2C:
        log(f"--tools {s.tools[0]}: HTTP/1.1 levels only; {NO_H2C[s.tools[0]]}")
    if s.dry_run:
        for series, transport, levels in groups:
            print(f"{series} {transport}: "
                  + (", ".join(f"{x.in_flight:,} ({x.rate:,} req/s x {x.delay_ms} ms)"
                               for x in levels) or "no level fits")
                  + f"  [{ceiling(transport, plan.client_of(series), nofile)[1]}]")
        bursts = burst.bursts_of(s.modes, s.quick)
        for series, transport, calls, skipped in bursts:
            print(f"{series} {transport}: one request fanning out {calls:,} calls"
                  + (f" not run: {skipped}" if skipped else ""))
        print(f"about {estimate_run_s(s, nofile):.0f} s")
        return 0
    if os.path.isdir(os.path.join(out, "steps")) and os.listdir(os.path.join(out, "steps")):
        raise Fatal(f"{out} already holds a run (steps/); choose another --out")
    with Procs() as ps:
        return ScaleRun(s, out, cmdline, ps).run()
