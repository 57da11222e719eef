"""`load/compare.sh --quick` (issue #45): in about three minutes what a short run can decide,
nothing it cannot.

A platform against a virtual thread (JMH, runs/threadfacts.py) while nothing else runs; then one
app per mode at once (calibrate's bench, runs/costbench.py), warmed until their JIT is quiet, and
(a) io below and above the worker pool's bound, each trial twice in random order, (b) requests
held waiting at two levels, every app at once, read after a full GC. Findings and their rules:
analysis/quick.py; pages: report/quick_report.py."""
from __future__ import annotations

import os
import random
import time
from dataclasses import asdict
from datetime import UTC, datetime

import psutil

from harness.analysis import quick
from harness.analysis.quick import (
    CEIL_DELAY_MS,
    WAIT_DELAY_MS,
    WAIT_LEVELS,
    Held,
    QuickRun,
    Reading,
)
from harness.analysis.steps import worker_pool_of
from harness.infra import tools
from harness.infra.procs import Procs, log
from harness.infra.progress import Stages
from harness.report import quick_report
from harness.runs import threadfacts
from harness.runs.costbench import Bench, jit_ms
from harness.runs.plan import base_of
from harness.sampling import machine
from harness.sampling.jvm import memory

SERIES = ("virtual", "worker", "reactive")
# C1 only: with C2, three apps on 2 cores still compiled after 61 s of warm-up (37 % of a core, 46 %
# in measured steps; 2026-11-28), longer than the whole run; nothing it decides rests on the last
# tens of per cent of CPU per request that C2 would save
JAVA_OPTS = "-XX:+UseParallelGC -XX:TieredStopAtLevel=1"
TRIAL_S, REPS = 3.0, 2
HOLD_S = 4.0   # each waiting level: filled in WAIT_DELAY_MS, then held this long while it is read
# the stages and what each took here (2 vCPUs, 2026-11-28): the progress bar's time left
STAGES = (("thread costs (JMH)", 40), ("starting the apps", 25),
          ("warming until the JIT is quiet", 40),
          ("the ceiling", len(SERIES) * 2 * REPS * (TRIAL_S + 1.5)),
          ("waiting requests", len(WAIT_LEVELS) * (2 * WAIT_DELAY_MS / 1000 + HOLD_S)),
          ("the report", 3))


def io(delay_ms):
    """The workload shape of io: one call of DELAY_MS."""
    return {"delay": delay_ms, "calls": 1, "fanout": 0, "queries": 0, "cpu": 0, "insert": 0}


def run(s, out, cmdline):
    series = tuple(s.modes) if s.modes_given else SERIES
    with Procs() as ps, Stages(STAGES) as stages:
        return Quick(series, out, cmdline, ps, stages, s.seed).run()


class Quick:
    def __init__(self, series, out, cmdline, ps, stages, seed):
        self.series, self.out, self.cmdline, self.ps, self.stages = series, out, cmdline, ps, stages
        self.rng = random.Random(seed)
        self.seed = seed
        self.bench = Bench(series, out, ps, TRIAL_S, JAVA_OPTS)

    def run(self):
        t0 = time.monotonic()
        started = datetime.now(UTC).isoformat(timespec="seconds")
        os.makedirs(os.path.join(self.out, "logs"), exist_ok=True)
        self.stages.start("thread costs (JMH)")
        java = os.path.join(tools.java_home(), "bin", "java")
        facts = threadfacts.measure(java, self.ps, self.out,
                                    os.path.join(self.out, "logs", "build-jmh.log"))
        threadfacts.write(facts, self.out)
        self.stages.start("starting the apps")
        b = self.bench
        b.start()
        threads = worker_pool_of({"settings": b.info(self.series[0])})
        run = QuickRun({}, threads, order=list(self.series),
                       thread_facts=[{**asdict(f), "sentence": f.sentence()} for f in facts])
        self.stages.start("warming until the JIT is quiet")
        w0 = time.monotonic()
        jit = b.warm([(io(CEIL_DELAY_MS), 0.75 * run.bound * len(self.series))], most_s=60,
                     jit_pct=quick.JIT_MAX_PCT)
        run.warm = {"seconds": round(time.monotonic() - w0), "jit_pct": round(jit, 1)}
        self.stages.start("the ceiling")
        run.readings = self.ceiling(run)
        self.stages.start("waiting requests")
        run.held = [h for level in WAIT_LEVELS for h in self.hold(level)]
        self.stages.start("the report")
        b.sys.write_facts(b.apps[self.series[0]].url, started, self.cmdline, seed=self.seed)
        run.facts = {**machine.facts(java=b.sys.java,
                                     app=machine.app_info(b.apps[self.series[0]].url)),
                     "command": self.cmdline, "started": started, "seed": self.seed,
                     "java_opts": JAVA_OPTS, "took_s": None}
        run.facts["took_s"] = round(time.monotonic() - t0)
        return quick_report.publish(run, self.out)

    def ceiling(self, run):
        """Every series at half and twice the worker pool's bound, TRIAL_S each, REPS times in
        random order."""
        low, high = run.rates
        out = []
        for rep in range(1, REPS + 1):
            todo = [(x, r) for x in self.series for r in (low, high)]
            self.rng.shuffle(todo)
            for x, r in todo:
                t = self.bench.trial(x, io(CEIL_DELAY_MS), r, "ceiling")
                out.append(Reading(x, float(r), rep, round(t.ok_rate, 4), t.p50_ms, t.p99_ms,
                                   t.app_ms, t.threads, t.rss_mib, t.jit_pct))
                log(f"{x} at {r:,} req/s: {100 * t.ok_rate:.0f} % answered, p99 {t.p99_ms} ms, "
                    f"CPU {t.app_ms:.3f} ms/req, {t.threads} threads, "
                    f"JIT {t.jit_pct:.0f} % of a core")
        return out

    def hold(self, level):
        """LEVEL requests of WAIT_DELAY_MS waiting in every app at once (rate = level / delay); each
        app read once, after a full GC, while they wait -> [Held]."""
        b, delay_s = self.bench, WAIT_DELAY_MS / 1000
        rate = level / delay_s
        apps = [b.apps[x] for x in self.series]
        j0 = {a.series: jit_ms(psutil.Process(a.pid)) for a in apps}
        w0 = time.monotonic()
        prefix = os.path.join(self.out, "trials", f"hold-{level}")
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
        running = {a.series: b.send(a.series, io(WAIT_DELAY_MS), rate,
                                    int((delay_s + HOLD_S) * 1000), f"{prefix}-{a.series}")
                   for a in apps}
        time.sleep(max(0.0, w0 + delay_s + 0.5 - time.monotonic()))   # filled by then: Little's law
        readings = {a.series: memory(b.sys.java_home, a.pid, a.url, base_of(a.series), nmt=False)
                    for a in apps}
        for p in running.values():
            if p.wait(delay_s + HOLD_S + 30) is None:
                self.ps.stop(p, grace_s=5)
            self.ps.forget(p)
        out = []
        for a in apps:
            res = b.sys.vegeta.result(f"{prefix}-{a.series}")
            jit = (jit_ms(psutil.Process(a.pid)) - j0[a.series]) / 10 / (time.monotonic() - w0)
            r = readings[a.series]
            heap, rss = (None if r[k] is None else round(r[k] / 1024, 2)
                         for k in ("heap_after_gc_kib", "rss_kib"))
            out.append(Held(a.series, level, r["in_flight"],
                            round(res.ok / max(1, res.requests), 4), heap, rss,
                            r["platform_threads"], round(jit, 1)))
            log(f"{a.series} asked to hold {level:,}: held {r['in_flight']}, "
                f"{r['platform_threads']} threads, heap after GC {heap} MiB, "
                f"{100 * out[-1].ok_rate:.0f} % answered")
        return out
