"""The sequential design: one mode at a time in a fresh app and delay service (or one app for all
with reuse), warmed up, then the plan's steps (per scenario a rate sweep per rate tool, Vegeta or
Hyperfoil, and a hey concurrency sweep) with the sampler beside them; an app that stops answering
is restarted; the steps go to the report."""
import contextlib
import io
import json
import os
import sys
import time
from datetime import UTC, datetime

from harness.analysis.model import StepMeta
from harness.drivers import is_rate, unit
from harness.drivers.base import Load
from harness.infra import procs
from harness.infra.catalogue import table
from harness.infra.errors import Fatal
from harness.infra.procs import children_cpu_ms, fetch, log, save
from harness.infra.progress import Progress
from harness.infra.settings import ENV
from harness.report import summaries as report
from harness.runs import plan
from harness.runs.system import System, bare, jit_ms, save_metrics, scrape_cost_ms

WARMUP_ROUND_MS = 3000


class Sequential:
    """One sequential run of the plan into one results folder."""

    def __init__(self, s, steps, out, cmdline, ps):
        self.s, self.plan, self.out, self.cmdline, self.ps = s, steps, out, cmdline, ps
        self.sys = System(s, out, ps)
        self.app = self.delay = None
        self.app_pid = int(s.app_pid) if s.app_pid else None
        self.scrape_ms = None
        self.failed = 0
        self.startups, self.warmups, self.overheads = [], [], []

    @property
    def url(self):
        return self.sys.url

    # ---------------------------------------------------------------------------------- the system
    def prepare(self):
        if (os.path.isdir(os.path.join(self.out, "steps"))
                and os.listdir(os.path.join(self.out, "steps"))):
            raise Fatal(f"{self.out} already holds a run (steps/); choose another --out")
        os.makedirs(os.path.join(self.out, "steps"), exist_ok=True)
        self.sys.prepare()
        if not self.sys.external:
            self.app_port = pick("app", ENV.app_port or 8080)
            delay = ENV.delay_port or 8081
            self.delay_port = pick("delay service",
                                   delay if delay != self.app_port else self.app_port + 1)
            self.sys.url = f"http://127.0.0.1:{self.app_port}"

    def start_system(self, label, series, env=None):
        if self.sys.external:
            return
        t0 = time.monotonic()
        self.delay = self.sys.start_delay(self.delay_port,
                                          os.path.join(self.out, "logs", f"delay-{label}.log"),
                                          env=env, append=True)
        t_app = time.monotonic()
        self.app = self.sys.start_app("app", self.app_port, self.delay_port,
                                      os.path.join(self.out, "logs", f"app-{label}.log"),
                                      series, env=env)
        self.sys.wait_app(self.app, self.url, label, series=series)
        self.app_pid = self.app.pid
        client = plan.client_of(series)
        log(f"app ready in {time.monotonic() - t_app:.0f} s (pid {self.app_pid}, {self.url}, "
            f"delay service on {self.delay_port}"
            f"{', bench.blocking-client=' + client if client else ''})")
        self.startups.append(time.monotonic() - t0)
        self.scrape_ms = None   # measured once warm (warm()): the steps' scrapes leave its CPU

    def stop_system(self, grace_s=20):
        if self.sys.external:
            return
        self.ps.stop(self.app, grace_s=grace_s)
        self.ps.stop(self.delay)
        self.app = self.delay = self.app_pid = None

    def _smoke(self, series):
        """One request per scenario: a wrong status is reported now, not found in the tables."""
        m = plan.base_of(series)
        for scen in self.s.scenarios:
            if m not in table(self.s.env).series_for(scen):
                continue
            req = self.sys.request(series, scen)
            code, body = fetch(self.url + req.path, 30, req.method, req.body)
            save(body, os.path.join(self.out, "logs", f"smoke-{m}-{scen}.json"))
            if code != req.status:
                log(f"WARNING: {req.method} {req.path} answered {code:03d}, expected {req.status}: "
                    f"{body[:300].decode(errors='replace')}")
            elif scen == "checkout":
                with contextlib.suppress(ValueError, AttributeError):
                    oid = json.loads(body).get("orderId", "")
                    if oid and (code := procs.http_status(
                            f"{self.url}/{m}/orders/{oid}", 10)) != 200:
                        log(f"WARNING: GET /{m}/orders/{oid} answered {code:03d} "
                            "after the checkout created it")

    def warm(self, series):
        """Every chosen scenario of the series at once, each at its sweep's lowest rate, ramped
        1/4 -> 1/2 -> full over the warmup setting, then in 3 s rounds at full rate while the JIT
        threads use over WARMUP_JIT_PCT % of a core, up to WARMUP_MAX s; results discarded
        (docs/harness.md). True when every warm-up request succeeded."""
        s, m, t0 = self.s, plan.base_of(series), time.monotonic()
        tdir = os.path.join(self.out, "logs", f"warmup-{series}")
        os.makedirs(tdir, exist_ok=True)
        scens = (["io"] if series.endswith("-aa")
                 else [x for x in s.scenarios if m in table(s.env).series_for(x)])
        targets = {scen: self.sys.target(self.url, series, scen) for scen in scens}

        def round_(divisor, ms, label):
            running = []
            for scen, target in targets.items():
                rate = max(1, plan.levels(scen)[0][0] * s.warmup_scale // 100 // divisor)
                running.append(self.sys.vegeta.start(self.ps, target, Load(rate, ms, s.timeout_s),
                                                     os.path.join(tdir, f"{scen}-{label}")))
            for p in running:
                if p.wait(ms / 1000 + s.step_limit_s) is None:
                    self.ps.stop(p, grace_s=5)
                self.ps.forget(p)

        sampler = self.sys.sampler(os.path.join(tdir, "samples.jsonl"), self.app_pid, self.url,
                                   series=series)
        for k in (1, 2, 3):
            round_(4 // k if k < 3 else 1, s.warmup_ms // 3, f"ramp-{k}")
        jit_pct, n = None, 0
        while time.monotonic() - t0 + 3 <= s.warmup_max_s:
            j0, w0 = jit_ms(self.app_pid), time.monotonic()
            n += 1
            round_(1, WARMUP_ROUND_MS, f"more-{n}")
            jit_pct = int((jit_ms(self.app_pid) - j0) * 100
                          / ((time.monotonic() - w0) * 1000))
            if jit_pct <= s.warmup_jit_pct:
                break
        self.ps.stop(sampler, grace_s=5)
        if not self.sys.external:   # one scrape's CPU on the warm app, at idle
            self.scrape_ms = scrape_cost_ms(self.app_pid, self.url, series)
        rep = self.sys.vegeta.report(*sorted(os.path.join(tdir, f) for f in os.listdir(tdir)
                                             if f.endswith(".bin")))
        try:
            summary = (f"{rep['requests']} requests, {100 * rep['success']:.1f}% ok, "
                       f"status {rep['status_codes']}")
            ok = rep["success"] >= 1
        except KeyError:
            summary, ok = "", False
        self.warmups.append(time.monotonic() - t0)
        if not ok:
            log(f"warm-up {m}: {summary or 'no results'}")
            return False
        jit = f" (JIT at {jit_pct} % of a core in the last 3 s)" if jit_pct is not None else ""
        log(f"warm-up {m}: {time.monotonic() - t0:.0f} s{jit}, {summary}")
        return True

    # ---------------------------------------------------------------------------------- steps
    def _run_step(self, i, st):
        s = self.s
        d = os.path.join(self.out, "steps", step_name(i, st))
        os.makedirs(d, exist_ok=True)
        write_meta(d, s, i, st, self.sys.request(st.series, st.scenario, st.extra), self.url,
                   app_pid=self.app_pid, scrape_cpu_ms=self.scrape_ms,
                   cpu_less_scrapes=self.scrape_ms is not None or None,
                   started=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        rc, wall_ms = self._load(st, d, self.sys.target(self.url, st.series, st.scenario, st.extra))
        self.overheads.append(wall_ms / 1000
                              - (s.duration_ms + (s.ramp_ms if is_rate(st.tool) else 0)) / 1000)
        st_rc, line = 0, ""
        if rc:
            self.failed += 1
            log(f"step failed (exit {rc}): "
                f"{' '.join(procs.tail(os.path.join(d, 'stdout.txt'), 3).split())}")
        else:
            st_rc, line = report_cli("step", d)
            line = line.strip()
            log(f"  {line}")
        if (self.app_pid and not os.path.exists(f"/proc/{self.app_pid}")
                or self.app and not self.app.alive()):
            raise Fatal(f"the app (pid {self.app_pid}) died during {st.scenario} {st.series} "
                        f"{st.tool} {st.level}; see {self.out}/logs")
        # a step whose requests all succeeded left a working app; after failures, make sure
        if rc or st_rc:
            self._probe(st, d)
        if s.settle_s:
            time.sleep(s.settle_s)
        return line

    def _load(self, st, d, target):
        """The step's load with the sampler, metrics before/after, generator's CPU -> (exit, ms)."""
        s = self.s
        save_metrics(self.url, st.series, os.path.join(d, "metrics-before.prom"))
        samples = os.path.join(d, "samples.jsonl")
        sampler = self.sys.sampler(samples, self.app_pid, self.url,
                                   self.delay.pid if self.delay else None, st.series)
        # the load starts once the sampler has read the CPU: the step's CPU window starts with it
        procs.wait_for(lambda: os.path.exists(samples) and os.path.getsize(samples), 2.0)
        driver, ramp = self.sys.driver(st.tool), s.ramp_ms if is_rate(st.tool) else 0
        t0, c0 = time.monotonic(), children_cpu_ms()
        log_path = os.path.join(d, "stdout.txt")
        p = driver.start(self.ps, target,
                         Load(st.level, ramp + s.duration_ms, s.timeout_s, ramp_ms=ramp),
                         os.path.join(d, "results"),
                         log_path=log_path, name=f"{st.series}-{st.scenario}-{st.level}")
        rc = p.wait(s.step_limit_s)
        if rc is None:   # both tools stop by themselves after the step plus their request timeout
            self.ps.stop(p, grace_s=5)
            rc = 124
            with open(log_path, "a") as f:
                f.write(f"stopped after {s.step_limit_s} s: the load tool did not end by itself\n")
        self.ps.forget(p)
        if not rc:
            driver.finish(os.path.join(d, "results"), log_path)
        c1, wall_ms = children_cpu_ms(), round((time.monotonic() - t0) * 1000)
        with open(os.path.join(d, "generator.json"), "w") as f:
            json.dump({"cpu_ms": c1 - c0, "wall_ms": wall_ms}, f)
        self.ps.stop(sampler, grace_s=5)
        save_metrics(self.url, st.series, os.path.join(d, "metrics-after.prom"))
        return rc, wall_ms

    def _probe(self, st, d):
        """After a step with failures the app must still answer one request of that scenario
        correctly (3 tries, 1 s apart; one if no answer at all), or it would spoil every later
        step: its thread dump is kept, the step marked APP_UNRESPONSIVE, app and delay restarted."""
        if self.sys.external:
            return
        req = self.sys.request(st.series, st.scenario)
        wait_s, tries, code = max(self.s.timeout_s, 10), 0, 0
        while tries < 3:
            tries += 1
            code = procs.http_status(self.url + req.path, wait_s, req.method, req.body or None)
            if code == req.status:
                return
            if code == 0:
                break
            time.sleep(1)
        what = (f"no answer within {wait_s} s" if code == 0
                else f"status {code} {tries} times (expected {req.status})")
        log(f"WARNING: after this step the app gives {req.method} {req.path} {what}; "
            "keeping a thread dump and restarting it")
        save(f"{req.method} {req.path} after the step: {what}\n".encode(),
             os.path.join(d, "unresponsive.txt"))
        if self.sys.java and not self.sys.runner:
            self.ps.run("jstack",
                        [os.path.join(self.sys.java_home, "bin", "jstack"), str(self.app_pid)],
                        log_path=os.path.join(d, "threads.txt"), timeout=30)
        self.stop_system(5)
        self.start_system(f"{st.series}-restart-{os.path.basename(d)}", st.series)
        self.warm(st.series)

    def _eta(self, index):
        """Seconds left before step INDEX (0-based): the model, with this run's timings once any."""
        mean = lambda xs, d: sum(xs) / len(xs) if xs else d   # noqa: E731
        return plan.estimate_s(self.s, self.plan, index,
                               max(0.3, mean(self.overheads, plan.STEP_OVERHEAD_S)),
                               mean(self.startups, plan.APP_START_S),
                               mean(self.warmups, plan.warmup_s(self.s)), prepared=True)

    # ---------------------------------------------------------------------------------- the run
    def run(self):
        s = self.s
        started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        t_run = time.monotonic()
        self.prepare()
        log(f"plan: {len(self.plan)} steps over modes "
            f"[{' '.join(dict.fromkeys(x.series for x in self.plan))}] "
            f"(order rotated by {s.rotate}), scenarios [{','.join(s.scenarios)}], "
            f"{s.duration} each, warm-up {s.warmup}; "
            f"{'one app for all modes' if s.reuse else 'a fresh app and delay service per mode'}; "
            f"about {plan.estimate_s(s, self.plan) / 60:.0f} min")
        starts = set(plan.app_starts(self.plan, s.reuse))
        current, wrote_machine = None, False
        with Progress(len(self.plan)) as progress:
            for i, st in enumerate(self.plan):
                if st.series != current:
                    if i in starts:
                        if current is not None:
                            self.stop_system()
                        log(f"starting a fresh delay service and app for mode {st.series}")
                        self.start_system(st.series, st.series)
                    # an app's settings, not the bare's
                    if not wrote_machine and not bare(st.series):
                        self.sys.write_facts(self.url, started, self.cmdline,
                                             cpu_less_scrapes=not self.sys.external)
                        wrote_machine = True
                    current = st.series
                    # --quick skips the per-scenario check unless the warm-up (all scenarios) failed
                    if not s.quick:
                        self._smoke(st.series)
                    if not self.warm(st.series) and s.quick:
                        self._smoke(st.series)
                progress.step(i + 1, st, self._eta(i), unit(st.tool))
                progress.headline(self._run_step(i + 1, st))
        if not wrote_machine:
            self.sys.write_facts(self.url, started, self.cmdline,
                                 cpu_less_scrapes=not self.sys.external)
        self.stop_system()
        rc, text = report_cli("build", self.out)
        sys.stderr.write(text)
        log(f"done in {time.monotonic() - t_run:.0f} s: {self.out}/report.html")
        with contextlib.suppress(OSError, ValueError, KeyError):
            with open(os.path.join(self.out, "summary.json")) as f:
                flagged = sum(1 for r in json.load(f)["rows"] if r["flags"])
            if flagged:
                log(f"{flagged} flagged step(s): see 'Flagged steps' in {self.out}/summary.md")
        if self.failed:
            log(f"{self.failed} step(s) produced no results")
            return 1
        return rc


def step_name(i, st):
    return (f"{i:03d}-{st.scenario}-{st.series}-{st.tool}-{st.level}"
            + (f"-{st.extra.split('=')[1]}" if st.extra else ""))


def write_meta(d, s, i, st, req, url, **extra):
    """Step I's meta.json in D: what the report reads of its plan ST, request REQ, settings S."""
    StepMeta(index=i, scenario=st.scenario, mode=plan.base_of(st.series), series=st.series,
             client=plan.client_of(st.series), tool=st.tool,
             load_kind="rate" if is_rate(st.tool) else "concurrency", load=st.level,
             duration=s.duration, duration_s=s.duration_ms / 1000,
             ramp_in_s=s.ramp_ms / 1000 if is_rate(st.tool) else 0, params=req.params,
             method=req.method, url=url + req.path, expected_status=req.status,
             **extra).write(d)


def pick(name, wanted):
    """WANTED when that port is free, else a free one."""
    if procs.port_free(wanted):
        return wanted
    p = procs.free_port()
    log(f"port {wanted} for the {name} is busy, using {p}")
    return p


def report_cli(*argv):
    """`vtvr-harness report ARGV...` in this process: (exit status, what it printed on stdout)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            rc = report.main(list(argv)) or 0
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
            if not isinstance(e.code, int) and e.code:
                print(e.code, file=sys.stderr)
    return rc, buf.getvalue()
