"""The bench `calibrate` and `advise --verify` measure on: the database, the delay service and an
app per series (System), warmed until their JIT is quiet, and one trial primitive: a workload
shape at a rate for a few seconds -> a costmodel.Trial (CPU per request, latency, memory)."""
from __future__ import annotations

import os
import time

import psutil

from harness.analysis.advice import SCENARIO
from harness.analysis.costmodel import SHAPE_KEYS, Trial
from harness.drivers.base import Load, Target
from harness.infra import procs
from harness.infra.catalogue import table
from harness.infra.procs import log
from harness.runs import plan
from harness.runs.system import App, System
from harness.sampling import machine
from harness.sampling.sample import thread_cpu
from harness.sampling.yardstick import Yardstick

# /q/info settings of each bound (costmodel.BOUNDS), by the series that have it
BOUND_SETTINGS = {
    "worker threads": ("quarkus.thread-pool.max-threads", ("worker",)),
    "fan-out threads": ("bench.fanout-pool-size", ("worker",)),
    "admission (bench.max-in-flight)": ("bench.max-in-flight", ("virtual", "worker", "reactive")),
}


def settings(series, java_opts="-XX:+UseParallelGC"):
    """A compare Settings for the bench's System: SERIES, Vegeta only, compare's JVM options."""
    return plan.Settings(modes=tuple(series), tools=("vegeta",), app_java_opts=java_opts,
                         design="interleaved", env={"DELAY": "0"})


# the yardstick's reading before each trial: a third of compare's (its median over 240 is the
# calibration's speed), so 240 trials add 25 s to a calibration
SPEED_MS = 100


class Bench:
    """The running system: apps by series, the delay service, and trials against them."""

    def __init__(self, series, out, ps, seconds=3.0, java_opts="-XX:+UseParallelGC", s=None):
        self.series, self.out, self.ps, self.seconds = tuple(series), out, ps, seconds
        self.s = s or settings(series, java_opts)
        self.sys = System(self.s, out, ps)
        self.apps = {}
        self.n = 0
        self.yard = None   # the machine's speed before each trial (sampling/yardstick.py)

    def start(self):
        self.sys.prepare()
        self.yard = Yardstick(self.sys.java)
        self.delay_port = port = procs.free_port()
        self.delay = self.sys.start_delay(port, os.path.join(self.out, "logs", "delay.log"))
        started = []
        for x in self.series:
            p = procs.free_port()
            proc = self.sys.start_app(f"app {x}", p, port,
                                      os.path.join(self.out, "logs", f"app-{x}.log"), x)
            started.append(App(x, proc, f"http://127.0.0.1:{p}", 0))
        for app in started:
            self.sys.wait_app(app.proc, app.url, app.series, 180, app.series)
            self.apps[app.series] = app
        log(f"apps ready: {', '.join(f'{a.series} (pid {a.pid})' for a in started)}")

    def close(self):
        """The yardstick (the apps, database and delay service stop with the Procs)."""
        if self.yard:
            self.yard.stop()

    def info(self, series):
        """The app's /q/info settings."""
        return machine.app_info(self.apps[series].url)["settings"]

    def bounds(self, series):
        """{bound: size} of SERIES' app (costmodel.BOUNDS), from its /q/info."""
        got, base = self.info(series), plan.base_of(series)
        out = {name: int(got[key]) for name, (key, modes) in BOUND_SETTINGS.items()
               if base in modes and str(got.get(key, "")).isdigit()}
        db = ("quarkus.datasource.reactive.max-size" if base == "reactive"
              else "quarkus.datasource.jdbc.max-size")
        if str(got.get(db, "")).isdigit():
            out["database connections"] = int(got[db])
        pool = got.get("quarkus.rest-client.delay.connection-pool-size")
        if (str(pool).isdigit() and str(got.get("quarkus.rest-client.delay.http2")) != "true"
                and plan.client_of(series) != "socket"):
            out["delay connections"] = int(pool)
        return out

    def target(self, series, shape):
        text = ",".join(f"{k}={v}" for k, v in shape.items())
        req = table({"WORKLOAD": text}).request(plan.base_of(series), SCENARIO)
        return Target(req.method, self.apps[series].url + req.path, req.body)

    def send(self, series, shape, rate, ms, prefix):
        return self.sys.vegeta.start(self.ps, self.target(series, shape),
                                     Load(max(1, int(rate)), ms, 10.0), prefix)

    def warm(self, shapes, most_s=150, jit_pct=10):
        """Every app at every (shape, rate) of SHAPES at once, in 3-s rounds (the first two at 1/3
        and 2/3 of the rate) until no JIT uses over JIT_PCT % of a core, at most MOST_S -> the
        last round's JIT %."""
        t0, k, jit = time.monotonic(), 0, 100.0
        d = os.path.join(self.out, "logs", "warmup")
        os.makedirs(d, exist_ok=True)
        apps = list(self.apps.values())
        share = 1 / len(apps)
        while time.monotonic() - t0 < most_s:
            k += 1
            j0, w0 = [jit_ms(psutil.Process(a.pid)) for a in apps], time.monotonic()
            running = [self.send(a.series, sh, r * share * min(k, 3) / 3, 3000,
                                 os.path.join(d, f"{a.series}-{i}"))
                       for a in apps for i, (sh, r) in enumerate(shapes)]
            for p in running:
                if p.wait(30) is None:
                    self.ps.stop(p, grace_s=5)
                self.ps.forget(p)
            jit = max((jit_ms(psutil.Process(a.pid)) - j) / 10 / (time.monotonic() - w0)
                      for a, j in zip(apps, j0))
            if k >= 3 and jit <= jit_pct:
                break
        log(f"warm-up: {time.monotonic() - t0:.0f} s, the JIT at most {jit:.0f} % of a core in the "
            "last round")
        return jit

    def trial(self, series, shape, rate, kind="cpu", seconds=None):
        """SHAPE on SERIES' app at RATE req/s for SECONDS (Vegeta) -> its Trial."""
        seconds = seconds or self.seconds
        app = self.apps[series]
        self.n += 1
        prefix = os.path.join(self.out, "trials", f"{self.n:04d}-{series}-{kind}-{int(rate)}")
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
        proc = psutil.Process(app.pid)
        speed = self.yard.unit_us(SPEED_MS) if self.yard else None
        j0 = jit_ms(proc)
        c0, m0, w0 = _cpu_s(proc), _busy_s(), time.monotonic()
        p = self.send(series, shape, rate, int(seconds * 1000), prefix)
        p.wait(seconds * 2 / 3)
        rss, threads = proc.memory_info().rss / 2 ** 20, proc.num_threads()
        if p.wait(seconds + 40) is None:
            self.ps.stop(p, grace_s=5)
        self.ps.forget(p)
        c1, m1, w1 = _cpu_s(proc), _busy_s(), time.monotonic()
        jit = (jit_ms(proc) - j0) / 10 / (w1 - w0)
        res = self.sys.vegeta.result(prefix)
        n = max(1, res.requests)
        return Trial(series, dict(shape), float(rate), round(res.send_rate or 0.0, 1), res.ok,
                     res.requests, round((c1 - c0) * 1000 / n, 4), round((m1 - m0) * 1000 / n, 4),
                     _ms(res.percentile_ms(50)), _ms(res.percentile_ms(99)), round(rss, 1), threads,
                     round(jit, 1), kind, speed)

    def settle(self, series, shape, rate, most_s=45, jit_pct=5):
        """SHAPE on SERIES at RATE in 3-s rounds until its app's JIT uses at most JIT_PCT % of a
        core (MOST_S at most) -> those rounds, as Trials of kind warm."""
        t0, done = time.monotonic(), []
        while not done or (done[-1].jit_pct > jit_pct and time.monotonic() - t0 < most_s):
            done.append(self.trial(series, shape, rate, "warm", seconds=3))
        return done

    def idle(self, series, seconds=3.0):
        """SERIES' app unloaded for SECONDS -> a Trial of kind idle, app_ms its CPU ms a second."""
        app = self.apps[series]
        proc = psutil.Process(app.pid)
        c0, m0, w0 = _cpu_s(proc), _busy_s(), time.monotonic()
        procs.wait_for(lambda: False, seconds)
        w = time.monotonic() - w0
        return Trial(series, {k: 0 for k in SHAPE_KEYS}, 0.0, 0.0, 0, 0,
                     round((_cpu_s(proc) - c0) * 1000 / w, 4),
                     round((_busy_s() - m0) * 1000 / w, 4), None, None,
                     round(proc.memory_info().rss / 2 ** 20, 1), proc.num_threads(), 0.0, "idle")


def jit_ms(proc):
    """The JIT threads' CPU ms so far, read here (the sampler's --once costs a Python start)."""
    return thread_cpu(proc)["jit_ms"]


def _cpu_s(proc):
    t = proc.cpu_times()
    return t.user + t.system


def _busy_s():
    """The machine's busy CPU seconds, every core (guest is inside user; steal is not ours)."""
    t = psutil.cpu_times()
    return t.user + t.nice + t.system + t.irq + t.softirq


def _ms(v):
    return None if v is None else round(v, 2)
