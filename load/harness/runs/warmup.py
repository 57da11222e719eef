"""The warm-up of the interleaved and duet designs after every start (docs/harness.md, "The default design"): the
apps ramped together, then loaded one at a time as a trial loads them until their JIT is done; the warm blocks
after it (interleave.py) do the rest."""
from __future__ import annotations

import os
import threading
from time import monotonic

from harness.drivers.base import Load
from harness.infra import procs
from harness.infra.procs import log
from harness.runs import plan

TURN_MS = 3000   # one app at one step's rate, as long as a trial's measured part


class Warmup:
    """Warms the apps of one run: RUN is its Interleaved (settings, System, delay service, steps and tools)."""

    def __init__(self, run):
        self.run, self.s, self.sys = run, run.s, run.sys
        self.done = []   # per warm-up: [seconds, the JIT's largest % of a core in its last round of turns]
        self.turns = 0   # turns in a round: every app at every step it serves

    def rate(self, scenario, rate):
        """What the warm-up sends for a step: its rate; a hey step (requests in flight) its scenario's lowest rate."""
        return plan.levels(scenario)[0][0] if self.run.tools[(scenario, rate)] == "hey" else rate

    def send(self, loads, ms, tdir, tag, scraped=None):
        """LOADS ([(app, scenario, rate)]) for MS at once (Vegeta, raw results under TDIR), the /q/metrics of app
        SCRAPED fetched every --metrics-interval s meanwhile as a trial's sampler does; returns when all ended."""
        running = [self.sys.vegeta.start(self.run.ps, self.sys.target(app.url, app.series, sc),
                                         Load(max(1, int(rate)), ms, self.s.timeout_s),
                                         os.path.join(tdir, f"{app.series}-{sc}-{tag}"))
                   for app, sc, rate in loads]
        stop = threading.Event()
        url = self.sys.metrics_url(scraped.url, scraped.series) if scraped else ""
        every = float(self.s.metrics_interval or 0)

        def scrape():
            while not stop.wait(every):
                procs.fetch(url, 5)
        scraper = threading.Thread(target=scrape, daemon=True) if url and every > 0 else None
        if scraper:
            scraper.start()
        for p in running:
            if p.wait(ms / 1000 + self.s.step_limit_s) is None:
                self.run.ps.stop(p, grace_s=5)
            self.run.ps.forget(p)
        stop.set()
        if scraper:
            scraper.join()

    def warm(self, apps):
        """Warms APPS: together, each at its share of every step's rate ramped 1/3 -> 2/3 -> all over --warmup (a cold
        JVM hit at once with a high rate stays congested); then in rounds of turns, each turn one app alone at one
        step's full rate for 3 s with its /q/metrics scraped, as a measured trial loads it (the load the JIT must
        compile for: 2026-11-27, apps warmed only together at a share of the rate compiled 1.3-2.0 s in the first
        trial after it), while any app's JIT threads used more than --warmup-jit-pct % of a core over the last round,
        up to --warmup-max s in all, at least one round."""
        s, t0 = self.s, monotonic()
        tdir = os.path.join(self.run.out, "logs", f"warmup-{apps[0].invocation}")
        os.makedirs(tdir, exist_ok=True)
        share = 1 / max(1, len(apps))
        for k in (1, 2, 3):
            self.send([(app, sc, self.rate(sc, rate) * share * k / 3) for app in apps
                       for sc, rate in self.run.steps_for(app.series)], s.warmup_ms // 3, tdir, f"together-{k}")
        turns = [(app, sc, self.rate(sc, rate)) for app in apps for sc, rate in self.run.steps_for(app.series)]
        self.turns = len(turns)
        jit, k = None, 0
        while True:
            k += 1
            j0, w0 = [self.sys.jit_ms(a.pid) for a in apps], monotonic()
            for app, sc, rate in turns:
                self.send([(app, sc, rate)], TURN_MS, tdir, f"alone-{k}", scraped=app)
            round_s = monotonic() - w0
            jit = max((self.sys.jit_ms(a.pid) - j) / 10 / round_s for a, j in zip(apps, j0))
            if jit <= s.warmup_jit_pct or monotonic() - t0 + round_s > s.warmup_max_s:
                break
        self.done.append([round(monotonic() - t0), round(jit, 1)])
        log(f"warm-up of {', '.join(a.series for a in apps)}: {monotonic() - t0:.0f} s, {k} round(s) of "
            f"{len(turns)} turn(s) (JIT at most {jit:.0f} % of a core in the last round)")
