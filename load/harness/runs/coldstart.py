"""`load/compare.sh --experiment coldstart` (issue #44): the first minute under load.

First the warm figures: one app per series, warmed until its JIT is quiet, its ceiling found on a
rising io staircase (unless --rates sets the rate), its p99 at the run's rate (half the lowest
ceiling). Then `--set starts=N` times, in random order, every series started fresh in every way
(plain JVM, JVM with a trained AOT cache, native with --native) and loaded from its first ready
second at that rate, its CPU read every second. Records and settling rule: analysis/coldstart.py;
pages: report/coldstart_report.py."""
from __future__ import annotations

import os
import random
import re
import threading
import time
from datetime import UTC, datetime

import psutil

from harness.analysis.coldstart import ColdRun, Start, Warm, seconds_of
from harness.drivers.base import Load
from harness.infra import procs
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.progress import Stages
from harness.report import coldstart_report
from harness.runs.costbench import Bench, _cpu_s, jit_ms
from harness.sampling import machine

STAIRS = (250, 350, 500, 700, 1000, 1400, 2000, 2800, 4000, 5600, 8000)
STEP_S, QUICK_STEP_S = 4.0, 3.0
WARM_MOST_S, TRAIN_S = 120, 20
STARTS, QUICK_STARTS = 5, 2
WARM_UP = "60s"          # the warm way's bench.warm-up: the most it may take before reporting ready
TIMEOUT_S = 30.0          # a request's timeout: a late answer is measured, not cut off at 10 s


class IoBench(Bench):
    """The calibrate bench on the run's settings, sending io (catalogue request, run parameters)."""

    def target(self, series, shape):
        return self.sys.target(self.apps[series].url, series, "io")


def run(s, out, cmdline, starts=None, seconds=60):
    if starts is not None and not str(starts).isdigit() or starts is not None and int(starts) < 1:
        raise Fatal(f"starts takes a whole number >= 1, got '{starts}'")
    n = int(starts) if starts else QUICK_STARTS if s.quick else STARTS
    with Procs() as ps:
        cold = Coldstart(s, out, cmdline, ps, n, seconds)
        if s.dry_run:
            print("\n".join(f"{i}. {name}: about {sec:.0f} s"
                            for i, (name, sec) in enumerate(cold.stages(), 1)))
            print(f"about {sum(sec for _, sec in cold.stages()) / 60:.1f} minutes")
            return 0
        with Stages(cold.stages()) as cold.progress:
            return cold.run()


class Coldstart:
    def __init__(self, s, out, cmdline, ps, starts, seconds):
        self.s, self.out, self.cmdline, self.ps, self.starts, self.seconds = (
            s, out, cmdline, ps, starts, seconds)
        self.series = tuple(s.modes)
        self.rng = random.Random(s.seed)
        self.step_s = QUICK_STEP_S if s.quick else STEP_S
        self.bench = IoBench(self.series, out, ps, self.step_s, s=s)
        self.sys = self.bench.sys
        self.native, self.aot = "", ""

    def ways(self):
        return ("jvm", "warm", "aot", *(("native",) if self.s.native else ()))

    def stages(self):
        # the warm way warms first
        per_start = self.seconds + 12 + 15 * ("warm" in self.ways()) / len(self.ways())
        return (("starting the apps", 25), ("warming until the JIT is quiet", WARM_MOST_S * 0.7),
                ("the warm figures",
                 0 if self.s.rates else len(self.series) * 7 * (self.step_s + 1.5)),
                ("the AOT training run", TRAIN_S * len(self.series) + 30),
                ("cold starts", self.starts * len(self.series) * len(self.ways()) * per_start),
                ("the report", 2))

    def run(self):
        started, t0 = datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic()
        pr, b = self.progress, self.bench
        pr.start("starting the apps")
        b.start()
        # --native: the cold starts' third way only
        self.native, self.sys.runner = self.sys.runner, ""
        pr.start("warming until the JIT is quiet")
        guess = min(self.s.rates[0], 500) if self.s.rates else 500   # each app's, all at once
        jit = b.warm([({}, guess * len(self.series))], most_s=WARM_MOST_S)
        pr.start("the warm figures")
        ceilings = ({x: None for x in self.series} if self.s.rates
                    else {x: self.ceiling(x) for x in self.series})
        rate = self.s.rates[0] if self.s.rates else max(STAIRS[0], min(ceilings.values()) // 2)
        cold = ColdRun(rate, self.seconds,
                       [Warm(x, ceilings[x], self.warm_p99(x, rate), round(jit, 1))
                        for x in self.series])
        log(f"the run's rate: {rate:,} req/s of io"
            + ("" if self.s.rates
               else f" (half the lowest warm ceiling, {min(ceilings.values()):,})"))
        url = b.apps[self.series[0]].url
        self.sys.write_facts(url, started, self.cmdline, seed=self.s.seed)
        cold.facts = {**machine.facts(java=self.sys.java, app=machine.app_info(url)),
                      "command": self.cmdline, "started": started, "seed": self.s.seed,
                      "java_opts": self.s.app_java_opts}
        for app in b.apps.values():
            self.ps.stop(app.proc)
        pr.start("the AOT training run")
        cold.missing = self.train(rate)
        pr.start("cold starts")
        ways = [w for w in self.ways() if w not in cold.missing]
        for k in range(1, self.starts + 1):
            todo = [(x, w) for x in self.series for w in ways]
            self.rng.shuffle(todo)
            for x, w in todo:
                cold.starts.append(self.cold(x, w, k, rate))
        pr.start("the report")
        cold.facts["took_s"] = round(time.monotonic() - t0)
        return coldstart_report.publish(cold, self.out)

    def ceiling(self, series):
        """The highest rate of STAIRS at which SERIES' warm app answered every request, sent what
        was asked, and kept its p99 within 1.5x of the first stair's."""
        best, base = None, None
        for rate in STAIRS:
            t = self.bench.trial(series, {}, rate, "ceiling")
            base = base or t.p99_ms
            held = (t.requests and t.ok_rate >= 0.99 and t.sent_rps >= 0.95 * rate
                    and t.p99_ms is not None and t.p99_ms <= 1.5 * base)
            log(f"{series} warm at {rate:,} req/s: {100 * t.ok_rate:.1f} % answered, "
                f"p99 {t.p99_ms} ms, JIT {t.jit_pct:.0f} % of a core"
                f"{'' if held else ' - past its ceiling'}")
            if not held:
                break
            best = rate
        if best is None:
            raise Fatal(f"{series} did not hold {STAIRS[0]} req/s of io even warm "
                        f"(see {self.out}/trials)")
        return best

    def warm_p99(self, series, rate):
        """The warm app's p99 at RATE: the median of two trials."""
        ps = sorted(self.bench.trial(series, {}, rate, "warm-p99").p99_ms or 0.0 for _ in range(2))
        log(f"{series} warm at {rate:,} req/s: p99 {ps[0]:.1f} and {ps[1]:.1f} ms")
        return round(sum(ps) / 2, 1)

    def train(self, rate):
        """The AOT cache from one app serving every series' io at RATE for TRAIN_S each
        -> {way: why it cannot run}."""
        missing = {} if self.native else {
            "native": "no native executable: this machine cannot build one (no GraalVM or "
                      "Mandrel); the GitHub workflow builds it and runs this experiment with "
                      "--native"}
        major = re.search(r'version "(\d+)', machine.java_version(self.sys.java) or "")
        if not major or int(major.group(1)) < 25:
            return {**missing, "aot": "the one-step AOT cache (-XX:AOTCacheOutput) needs JDK 25"}

        def serve(proc, url, series):
            for x in series:
                p = self.sys.vegeta.start(self.ps, self.sys.target(url, x, "io"),
                                          Load(rate, TRAIN_S * 1000, 10.0),
                                          os.path.join(self.out, "logs", f"aot-train-{x}"))
                p.wait(TRAIN_S + 40)
                self.ps.forget(p)
        self.aot = self.sys.train_aot(self.series, self.bench.delay_port, serve)
        return missing

    def cold(self, series, way, k, rate):
        """SERIES started fresh the WAY given, loaded at RATE from its first ready second for the
        run's seconds."""
        port, name = procs.free_port(), f"{series}-{way}-{k}"
        log_path = os.path.join(self.out, "logs", f"cold-{name}.log")
        opts = [*self.s.app_java_opts.split(),
                *(["-XX:AOTCache=" + self.aot, "-XX:AOTMode=on"] if way == "aot" else [])]
        self.sys.runner = self.native if way == "native" else ""
        t0 = time.monotonic()
        proc = self.sys.start_app(f"app {name}", port, self.bench.delay_port, log_path, series,
                                  java_opts=opts,
                                  env={"BENCH_WARM_UP": WARM_UP} if way == "warm" else None)
        self.sys.runner = ""
        url = f"http://127.0.0.1:{port}"
        self.sys.wait_app(proc, url, name, 120, series)
        ready = time.monotonic()
        p = psutil.Process(proc.pid)
        marks, stop = [(_cpu_s(p) * 1000, jit_ms(p))], threading.Event()
        prefix = os.path.join(self.out, "cold", name)
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
        load = self.sys.vegeta.start(self.ps, self.sys.target(url, series, "io"),
                                     Load(rate, self.seconds * 1000, TIMEOUT_S), prefix)

        def every_second():
            while not stop.wait(max(0.0, ready + len(marks) - time.monotonic())):
                marks.append((_cpu_s(p) * 1000, jit_ms(p)))
        reader = threading.Thread(target=every_second, daemon=True)
        reader.start()
        if load.wait(self.seconds + TIMEOUT_S + 30) is None:
            self.ps.stop(load, grace_s=5)
        stop.set()
        reader.join()
        self.ps.forget(load)
        self.ps.stop(proc)
        cpu = [(t, b[0] - a[0], b[1] - a[1]) for t, (a, b) in enumerate(zip(marks, marks[1:]))]
        start = Start(series, way, k, round((ready - t0) * 1000), round(marks[0][0], 1),
                      seconds_of(self.sys.vegeta.encode(prefix + ".bin") or "", cpu, self.seconds))
        worst = max((s.p99_ms or 0 for s in start.seconds), default=0)
        log(f"{name}: ready after {start.ready_ms:,} ms; {start.sent:,} sent, {start.late:,} late, "
            f"{start.refused:,} refused, worst second's p99 {worst:,.0f} ms")
        return start
