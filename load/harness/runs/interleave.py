"""The runner of the interleaved and duet designs (issue #17, docs/statistics.md)."""
from __future__ import annotations

import json
import math
import os
import time

from harness.analysis import ladder, model, profiles, speed, stats, steps, trials
from harness.analysis.steps import WORKER_THREADS
from harness.analysis.targets import AA_PAIRS, for_series, pairs_of
from harness.drivers import is_rate
from harness.drivers.base import Load
from harness.infra import procs, profiler, tools
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, children_cpu_ms, log
from harness.report import profile_report, verdict_report
from harness.runs import plan
from harness.runs.system import App, System, bare, jit_ms, save_metrics, scrape_cost_ms
from harness.runs.trial_plan import QUICK_BLOCKS, dry_run, planned_looks, serves, trial_plan
from harness.sampling.yardstick import Yardstick


class Interleaved:
    """One interleaved (or duet) run into one results folder; System does the setup."""

    def __init__(self, s, out, cmdline, ps):
        self.s, self.out, self.cmdline, self.ps = s, out, cmdline, ps
        self.sys = System(s, out, ps)
        self.scrape_ms, self.seed, self.apps, self.records, self.warm_log = {}, s.seed, {}, [], []
        self.tplan, self.tools = trial_plan(s, self.seed)
        self.warm_records = []     # the warm blocks' trials: kept, never analysed
        self.last_warm = []        # the last warm block's trials after the latest restart
        self.settling_due = False  # the next measured block is the first after a restart
        self.allocation = {}       # reallocate()'s estimate and choice
        self.settling = []         # per restart: settling() of its warm block
        self.block_s, self.restart_s = [], []
        self.warmups = []          # per restart: [seconds, the JIT's % of a core in its last round]
        self.n = 0
        self.deadline = 0.0        # the budget's end (time.monotonic())
        self.aot = ""              # --aot: the cache every app starts from
        self.profiler = None       # --profile: async-profiler on each app in measured trials
        self.block_dirs, self.measured_dirs = [], []   # trial folders: this block's, measured ones
        self.yard = None           # the machine's speed before each trial (sampling/yardstick.py)

    def _start_delay(self):
        self.delay_port = procs.free_port()  # not 8081: every other run tries it first
        self.delay = self.sys.start_delay(self.delay_port,
                                          os.path.join(self.out, "logs", "delay.log"))

    def _java_opts(self, series):
        attach = ["-XX:+EnableDynamicAgentLoading"] if self.s.profile else []
        aot = ([f"-XX:AOTCache={self.aot}", "-XX:AOTMode=on"]  # on: fail to start without the cache
               if self.aot and not bare(series) else [])
        return [*self.s.app_java_opts.split(), *attach, *aot,
                *self.s.jvm_opts.get(series, "").split()]

    def _start_apps(self, names, invocation):
        """Starts the apps of NAMES at once (fresh processes) and waits until each is ready."""
        started = []
        for series in names:
            port = procs.free_port()
            proc = self.sys.start_app(f"app {series}", port, self.delay_port, os.path.join(
                self.out, "logs", f"app-{series}-{invocation}.log"), series,
                java_opts=self._java_opts(series))
            started.append(App(series, proc, f"http://127.0.0.1:{port}", invocation))
        for app in started:
            self.sys.wait_app(app.proc, app.url, app.series, 180, app.series)
            self.apps[app.series] = app
        log(f"apps ready: {', '.join(f'{a.series} (pid {a.pid})' for a in started)}")
        return started

    def _steps_for(self, series):
        """The plan's steps whose scenario SERIES serves."""
        return [(sc, rate) for sc, rate in self.tplan.steps if serves(series, sc)]

    def _restart(self, names, block):
        """Fresh apps of NAMES before BLOCK, warmed, then its warm trials; settle() judges them."""
        t0 = time.monotonic()
        for series in names:
            old, _ = self.apps.pop(series, None), self.scrape_ms.pop(series, None)
            if old:
                self.ps.stop(old.proc, grace_s=10)
        started = self._start_apps(names, trials.invocation(self.tplan, block))
        self._warm(started)
        self.settling_due = True
        warm = self.last_warm = [r for t in trials.warm_trials(self.tplan, block) if all(
            serves(x, t.scenario) for x in t.series) for r in self._trial(t, kind="w")]
        self.warm_records += warm
        for app in started:   # one scrape's CPU on the warm app: the trials' scrapes leave its CPU
            self.scrape_ms[app.series] = scrape_cost_ms(app.pid, app.url, app.series)
        for app in started:
            mine = [r for r in warm if r["series"] == app.series]
            entry = {"series": app.series, "invocation": app.invocation,
                     "warm_blocks": self.tplan.warm_blocks, "settled": None, "change": None,
                     "cpu_ms_per_req": {f"{r['scenario']} {r['rate']:g}": r["cpu_ms_per_req"]
                                        for r in mine}, "ok_pct": min((round(100 * r["ok"] / max(
                                            r["requests"], 1), 1) for r in mine), default=None)}
            self.warm_log.append(entry)
            if entry["ok_pct"] is not None and entry["ok_pct"] < 99:
                log(f"warm block {app.series} #{app.invocation}: only {entry['ok_pct']} % of one "
                    "trial's requests succeeded (WARNING: its app may not be ready for the "
                    "measured blocks)")
        self.restart_s.append(time.monotonic() - t0)

    def _reallocate(self, blocks):
        """Once, after two invocations: the noise and restart cost set the blocks per invocation."""
        tp = self.tplan
        if tp.later or self.s.quick or tp.restart_every >= 10**6 or blocks != 2 * tp.restart_every:
            return
        comp = trials.components_of(self.records, pairs_of(tp.series), tp.steps)
        if comp is None:
            return
        inv_s, block_s = self._mean(self.restart_s), self._mean(self.block_s)
        left = self.deadline - time.monotonic()
        self.tplan = trials.allocate(tp, blocks, comp, inv_s, block_s, left_s=left,
                                     done=(trials.invocation(tp, blocks - 1) + 1, blocks))
        self.allocation = {"after_blocks": blocks, "between_sd": round(math.sqrt(comp.between), 4),
                           "within_sd": round(math.sqrt(comp.within), 4),
                           "invocation_s": round(inv_s, 1), "block_s": round(block_s, 1),
                           "left_s": round(left), "restart_every": self.tplan.later[1]}
        log(f"noise after {blocks} blocks (log ratios of CPU per request): between invocations sd "
            f"{math.sqrt(comp.between):.3f}, between blocks of one sd {math.sqrt(comp.within):.3f}"
            f"; a restart costs {inv_s:.0f} s, a block {block_s:.0f} s: "
            + (f"restarting every {self.tplan.later[1]} blocks from here narrows the intervals "
               f"most for the {left / 60:.1f} min left (Kalibera and Jones, with t's degrees of "
               "freedom: one per invocation)" if self.tplan.later[1]
               else f"no restart fits the {left / 60:.1f} min left: the running apps go on"))

    def _settle(self, recs):
        """After a warm block: True when settled or at Plan.max_warm_blocks, else RECS warm more."""
        check = trials.check_warm(self.last_warm, recs)
        entries = {e["series"]: e for e in self.warm_log[-len(self.tplan.series):]}
        done = check.settled or (max(e["warm_blocks"] for e in entries.values())
                                 >= self.tplan.max_warm_blocks)
        for series, change in check.changes.items():
            if series in entries:
                entries[series].update(change=None if change is None else round(change, 3),
                                       jit=check.jit.get(series) and round(check.jit[series], 1),
                                       settled=check.series_settled(series))
        log(check.text() + ("" if done else ": this block counts as one more warm block"))
        if not done:
            for e in entries.values():
                e["warm_blocks"] += 1
            self.warm_records += recs
            self.last_warm = recs
        elif not check.settled:
            log("warm-up: NOT SETTLED at the most warm blocks; still getting cheaper or compiling: "
                + (", ".join(x for x, e in entries.items() if e["settled"] is False)
                   or "no one series alone") + " (flagged)")
        return done

    def _send(self, app, scenario, rate, ms, prefix):
        """SCENARIO on APP at RATE for MS (Vegeta), raw results to PREFIX.bin; -> its Proc."""
        return self.sys.vegeta.start(self.ps, self.sys.target(app.url, app.series, scenario),
                                     Load(max(1, int(rate)), ms, self.s.timeout_s), prefix)

    def _warm(self, apps):
        """Warms APPS together at each step, ramped, then until the JIT calms (docs/harness.md)."""
        s, t0 = self.s, time.monotonic()
        tdir = os.path.join(self.out, "logs", f"warmup-{apps[0].invocation}")
        os.makedirs(tdir, exist_ok=True)
        share, jit, k = 1 / max(1, len(apps)), None, 0
        while k < 3 or time.monotonic() - t0 + 3 <= s.warmup_max_s:
            k += 1         # ramped: a cold JVM hit at once with a high rate stays congested
            j0, w0, ms = ([jit_ms(a.pid) for a in apps], time.monotonic(),
                          s.warmup_ms // 3 if k <= 3 else 3000)
            running = [self._send(app, sc, (plan.levels(sc)[0][0] if self.tools[(sc, rate)] == "hey"
                                           else rate) * share * min(k, 3) / 3, ms,  # hey: low rate
                                 os.path.join(tdir, f"{app.series}-{sc}-together-{k}"))
                       for app in apps for sc, rate in self._steps_for(app.series)]
            for p in running:
                if p.wait(ms / 1000 + s.step_limit_s) is None:
                    self.ps.stop(p, grace_s=5)
                self.ps.forget(p)
            if k >= 3:
                jit = max((jit_ms(a.pid) - j) / 10 / (time.monotonic() - w0)
                          for a, j in zip(apps, j0))
                if jit <= s.warmup_jit_pct:
                    break
        self.warmups.append([round(time.monotonic() - t0), None if jit is None else round(jit, 1)])
        log(f"warm-up of {', '.join(a.series for a in apps)}: {time.monotonic() - t0:.0f} s"
            + ("" if jit is None else f" (JIT at most {jit:.0f} % of a core in the last round)"))

    def _trial(self, t, kind="b"):
        """Runs one trial (one series, or a duet's two at once) -> its records; KIND "w": warm."""
        s = self.s
        tool = self.tools[(t.scenario, t.rate)]
        level, speed_us = int(t.rate), self.yard.unit_us() if self.yard else None  # before load
        each = level if len(t.series) == 1 or tool == "hey" else max(1, level // 2)  # duet: split
        run = [self._open_trial(t, kind, rec, series, tool, each)
               for rec, series in zip(t.records(), t.series, strict=True)]
        for *_, samples, _, _ in run:
            procs.wait_for(lambda samples=samples: os.path.exists(samples)
                           and os.path.getsize(samples), 2.0)
        driver, ramp = self.sys.driver(tool), s.ramp_ms if is_rate(tool) else 0
        load = Load(each, ramp + s.duration_ms, s.timeout_s, ramp_ms=ramp)
        profiled = [app for app, *_ in run] if self.profiler and kind == "b" else []
        for app in profiled:
            self.profiler.start(app.pid)
        c0, t0 = children_cpu_ms(), time.monotonic()
        loads = [driver.start(self.ps, self.sys.target(app.url, app.series, t.scenario), load,
                              os.path.join(d, "results"), log_path=os.path.join(d, "stdout.txt"))
                 for app, d, *_ in run]
        rcs = []
        for p, (_, d, *_) in zip(loads, run, strict=True):
            rc = p.wait(s.step_limit_s)
            if rc is None:
                self.ps.stop(p, grace_s=5)
                rc = 124
            self.ps.forget(p)
            if not rc:
                driver.finish(os.path.join(d, "results"), os.path.join(d, "stdout.txt"))
            rcs.append(rc)
        for app, (_, d, *_) in zip(profiled, run):
            self.profiler.stop(app.pid, os.path.join(d, profiles.TRIAL_FILE))
        self.block_dirs += [d for _, d, *_ in run]
        gen = {"cpu_ms": (children_cpu_ms() - c0) // len(run),
               "wall_ms": round((time.monotonic() - t0) * 1000)}
        out = []
        for (app, d, _, rec, sampler), rc in zip(run, rcs, strict=True):
            self.ps.stop(sampler, grace_s=5)
            save_metrics(app.url, app.series, os.path.join(d, "metrics-after.prom"))
            with open(os.path.join(d, "generator.json"), "w") as f:
                json.dump(gen, f)
            if not app.proc.alive():
                raise Fatal(f"the app of {app.series} (pid {app.pid}) died during trial "
                            f"{os.path.basename(d)}; see {self.out}/logs")
            row = steps.measure(d, WORKER_THREADS)
            window_s = (s.duration_ms + ramp) / 1000
            out.append(model.TrialRecord.of_step(rec, row, rc, window_s, speed_us))
            if rc:
                log(f"trial {os.path.basename(d)}: load tool exit {rc}")
        if s.settle_s:
            time.sleep(s.settle_s)
        return out

    def _open_trial(self, t, kind, rec, series, tool, each):
        """SERIES' part of trial T made ready -> (app, folder, samples file, REC, sampler)."""
        s, app = self.s, self.apps[series]
        self.n += 1
        d = os.path.join(self.out, "trials",
                         f"{self.n:04d}-{kind}{t.block:02d}-{t.scenario}-{int(t.rate)}-{series}")
        os.makedirs(d, exist_ok=True)
        req = self.sys.request(series, t.scenario)
        model.StepMeta(**{
            "index": self.n, "mode": plan.base_of(series), "client": plan.client_of(series),
            "tool": tool, "load_kind": "rate" if is_rate(tool) else "concurrency", "load": each,
            "duration": s.duration, "duration_s": s.duration_ms / 1000,
            "ramp_in_s": s.ramp_ms / 1000 if is_rate(tool) else 0, "params": req.params,
            "method": req.method, "url": app.url + req.path, "expected_status": req.status,
            "app_pid": app.pid, "java_opts": " ".join(self._java_opts(series)),
            "scrape_cpu_ms": self.scrape_ms.get(series),
            "cpu_less_scrapes": self.scrape_ms.get(series) is not None or None, **rec}).write(d)
        save_metrics(app.url, series, os.path.join(d, "metrics-before.prom"))
        samples = os.path.join(d, "samples.jsonl")
        return app, d, samples, rec, self.sys.sampler(samples, app.pid, app.url,
                                                      self.delay.pid, series)

    def run(self):
        s, tp = self.s, self.tplan
        if os.path.isdir(os.path.join(self.out, "trials")):
            raise Fatal(f"{self.out} already holds a run (trials/); choose another --out")
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        t_run = time.monotonic()
        deadline = self.deadline = t_run + s.budget_s
        self._setup()
        plan_looks = planned_looks(s, tp, self.tools, s.budget_s - (time.monotonic() - t_run) - 20)
        blocks, level, warming = 0, None, False
        while True:
            names = [] if warming else trials.restarts(tp, blocks)
            if names:
                log(f"block {blocks + 1}: starting fresh apps ({', '.join(names)}), invocation "
                    f"{trials.invocation(tp, blocks)}")
                self._restart(names, blocks)
                if not os.path.exists(os.path.join(self.out, "machine.json")):
                    first = min(names, key=bare)  # an app's settings, not the bare's
                    self.sys.write_facts(self.apps[first].url, started, self.cmdline,
                                         cpu_less_scrapes=True)
            t_block, self.block_dirs = time.monotonic(), []
            recs = [r for t in trials.block_trials(tp, blocks)  # floor: no db; rung: no fanout
                    if all(serves(x, t.scenario) for x in t.series) for r in self._trial(t)]
            warming = (bool(names or warming) and tp.max_warm_blocks > tp.warm_blocks
                       and not self._settle(recs))
            if warming:      # a restart costs its extra warm blocks too (reallocate weighs it)
                self.restart_s[-1] += time.monotonic() - t_block
                if deadline - time.monotonic() < self._mean(self.block_s or [0]):
                    log("the budget ends during the warm-up: no measured block")
                    break
                continue
            self.records += recs
            self.measured_dirs += self.block_dirs
            if self.settling_due and tp.warm_blocks:
                self.settling_due = False
                self.settling.append(
                    round(trials.settling(self.last_warm, self.records, blocks), 3))
                log(f"warm block / first measured block after the start, CPU per request: median "
                    f"{self.settling[-1]:.2f}x over every series and step")
            blocks += 1
            self.block_s.append(time.monotonic() - t_block)
            self._reallocate(blocks)
            tp = self.tplan
            left = deadline - time.monotonic()
            need = self._mean(self.block_s) + (self._mean(self.restart_s)
                                              if trials.restarts(tp, blocks) else 0)
            budget_left = left >= need or (s.quick and blocks < QUICK_BLOCKS)
            if not s.quick:
                plan_looks = trials.moved_look(plan_looks, blocks, budget_left)
            level = trials.look_at(plan_looks, blocks, budget_left)
            if self._stops(tp, blocks, left, level, plan_looks, budget_left):
                break
        return self._finish(tp, blocks, plan_looks, level, t_run)

    def _setup(self):
        """The database, the profiler, the delay service, the yardstick and the AOT cache."""
        self.sys.prepare()
        if self.s.profile:
            self.profiler = profiler.Profiler(self.sys.java_home, profiler.library(
                self.ps, os.path.join(self.out, "logs", "build.log")))
        self._start_delay()
        self.yard = Yardstick(self.sys.java or os.path.join(tools.java_home(), "bin", "java"))
        if self.s.aot:
            self.aot = self.sys.train_aot(
                [x for x in self.tplan.series if not bare(x)], self.delay_port,
                lambda proc, url, names: self._warm([App(x, proc, url, "aot") for x in names]))

    def _stops(self, tp, blocks, left, level, plan_looks, budget_left):
        """Logs block BLOCKS (and the look at LEVEL, if any) -> True when the run stops after it."""
        status = f"block {blocks} done in {self.block_s[-1]:.0f} s, " + (f"{left / 60:.1f} min of "
            "the budget left" if left > 0 else f"{-left / 60:.1f} min past the budget")
        if level is not None:
            result = stats.analyse(self.records, for_series(tp.series), AA_PAIRS, level,
                                   seed=self.seed)
            und = len(stats.undecided(result))
            status += f"; look at {100 * level:.1f} %: {und} target entries undecided"
            if result["design_broken"]:
                status += "; A/A: design broken"
            log(status)
            return trials.should_stop(plan_looks, blocks, und, budget_left)
        log(status)
        return not budget_left

    def _finish(self, tp, blocks, plan_looks, level, t_run):
        """Stops the apps, analyses the trials at LEVEL, writes the report -> the exit code."""
        s = self.s
        if level is None:      # the budget ended before the first planned look: the only look
            level = 1 - trials.ALPHA
        for app in list(self.apps.values()):
            self.ps.stop(app.proc, grace_s=10)
        self.ps.stop(self.delay)
        result = stats.analyse(self.records, for_series(tp.series), AA_PAIRS, level, seed=self.seed)
        result["ladder"] = ladder.analyse(self.records, level, self.seed,
                                          result["design_broken"] or result["cannot_decide"])
        model.TrialRecord.write_lines(os.path.join(self.out, "warm-trials.jsonl"),
                                      self.warm_records)
        design = {"design": s.design, "series": list(tp.series),
                  "steps": [[*st, self.tools[st]] for st in tp.steps],
                  "pairs": [list(p) for p in tp.pairs], "seed": self.seed,
                  "restart_every": tp.restart_every, "warm_blocks": tp.warm_blocks,
                  "warmups": self.warmups, "warmup_jit_pct": s.warmup_jit_pct,
                  "warmup_max_s": s.warmup_max_s, **speed.reading(self.records), "blocks": blocks,
                  "looks": plan_looks, "level": level, "budget_s": s.budget_s, "trial": s.duration,
                  "ramp_in": f"{s.ramp_ms}ms", "jvm_opts": s.jvm_opts, "warmup": self.warm_log,
                  "settling": self.settling, "allocation": self.allocation,
                  "seconds": round(time.monotonic() - t_run)}
        verdict_report.write(self.out, self.records, result, design)
        if self.profiler:
            profile_report.write(self.out, self.records, self.measured_dirs)
        rc = verdict_report.publish(self.out)
        log(f"done in {time.monotonic() - t_run:.0f} s: {self.out}/report.html")
        for line in verdict_report.headline(result, design):
            log(line)
        return rc

    @staticmethod
    def _mean(xs):
        return sum(xs) / len(xs) if xs else 0.0


def run(s, out, cmdline):
    """`compare --design interleaved|duet`: one run into its folder."""
    if s.dry_run:
        return dry_run(s)
    if s.app_url:
        raise Fatal("--app-url: the interleaved and duet designs start their own apps "
                    "(use --design sequential)")
    if s.runs != 1:
        raise Fatal("runs: an interleaved run already repeats its trials; use --budget for more")
    with Procs() as ps:
        run_ = Interleaved(s, out, cmdline, ps)
        try:
            return run_.run()
        finally:
            run_.yard and run_.yard.stop()
