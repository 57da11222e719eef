"""The interleaved design's warm-up (runs/warmup.py) without starting a process: the apps ramped together at their
share, then one at a time at each step's full rate with its /q/metrics scraped, round after round while the JIT
works, never past --warmup-max."""
import os
import threading
from types import SimpleNamespace

from harness.runs import warmup
from harness.runs.system import App


class Clock:
    """The monotonic clock of the module under test: it moves only by the loads run (a turn 3 s, as TURN_MS)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class FakeRun:
    """What Warmup reads of an Interleaved: settings, System (Vegeta, targets, scrape URLs, JIT readings), Procs."""

    def __init__(self, tmp_path, jit_per_round, steps=(("io", 2500.0),), warmup_max_s=45):
        self.clock, self.loads, self.scrapes = Clock(), [], []
        self.scraped = threading.Event()
        self.jit_per_round = list(jit_per_round)   # ms each app's JIT threads add per round of turns
        self.jit = {}
        self.out, self.steps = str(tmp_path), list(steps)
        self.tools = {st: "vegeta" for st in steps}
        self.s = SimpleNamespace(warmup_ms=9000, timeout_s=30, step_limit_s=60, metrics_interval="0.01",
                                 warmup_jit_pct=5, warmup_max_s=warmup_max_s)
        self.ps = SimpleNamespace(stop=lambda *a, **k: None, forget=lambda p: None)
        self.sys = SimpleNamespace(vegeta=SimpleNamespace(start=self.start), target=lambda url, series, sc: (url, sc),
                                   metrics_url=lambda url, series: f"{url}/q/metrics", jit_ms=self.jit_ms)

    def steps_for(self, series):
        return self.steps

    def start(self, ps, target, load, prefix):
        self.loads.append((target, load.level, load.duration_ms, "together" in os.path.basename(prefix)))
        run, end = self, self.clock.now + load.duration_ms / 1000   # loads started together end together

        class Proc:
            def wait(self, timeout):
                # a turn lasts until its app has been scraped (a trial's sampler would)
                if "alone" in os.path.basename(prefix):
                    run.scraped.wait(5)
                    run.scraped.clear()
                run.clock.now = max(run.clock.now, end)
                return 0
        return Proc()

    def jit_ms(self, pid):
        turns = sum(1 for *_, together in self.loads if not together)
        per_round = len(self.steps) * 2
        done_rounds = turns // per_round if turns else 0
        return sum(self.jit_per_round[:done_rounds]) if done_rounds else 0

    def fetch(self, url, timeout):
        self.scrapes.append(url)
        self.scraped.set()
        return 200, b""


def apps():
    proc = SimpleNamespace(pid=1)
    return [App("reactive", proc, "http://a", 0), App("reactive-aa", proc, "http://b", 0)]


def run_warmup(monkeypatch, run):
    monkeypatch.setattr(warmup, "monotonic", run.clock)
    monkeypatch.setattr(warmup.procs, "fetch", run.fetch)
    w = warmup.Warmup(run)
    w.warm(apps())
    return w


def test_ramped_together_at_their_share_then_each_app_alone_at_the_full_rate_and_scraped(tmp_path, monkeypatch):
    run = FakeRun(tmp_path, jit_per_round=[1000])   # 1 s of JIT over a 6 s round: 17 % of a core, then none
    run.jit_per_round += [0]
    w = run_warmup(monkeypatch, run)
    together = [(t, level) for t, level, _, tog in run.loads if tog]
    assert together == [(("http://a", "io"), 416), (("http://b", "io"), 416), (("http://a", "io"), 833),
                        (("http://b", "io"), 833), (("http://a", "io"), 1250), (("http://b", "io"), 1250)]
    alone = [(t, level, ms) for t, level, ms, tog in run.loads if not tog]
    # two rounds: the first left the JIT at 17 % of a core, the second at 0
    assert alone == [(("http://a", "io"), 2500, 3000), (("http://b", "io"), 2500, 3000)] * 2
    assert {"http://a/q/metrics", "http://b/q/metrics"} <= set(run.scrapes)
    assert w.done == [[21, 0.0]]


def test_a_jit_still_busy_stops_at_warmup_max_after_at_least_one_round(tmp_path, monkeypatch):
    run = FakeRun(tmp_path, jit_per_round=[3000] * 20, warmup_max_s=20)
    w = run_warmup(monkeypatch, run)
    rounds = sum(1 for *_, tog in run.loads if not tog) // 2
    # 9 s of ramp, then 6 s rounds: the second ends at 21 s, and a third would end past 20 s already
    assert rounds == 1 and w.done == [[15, 50.0]]
    run = FakeRun(tmp_path, jit_per_round=[3000] * 20, warmup_max_s=0)
    w = run_warmup(monkeypatch, run)
    assert sum(1 for *_, tog in run.loads if not tog) == 2 and w.done[0][0] == 15
