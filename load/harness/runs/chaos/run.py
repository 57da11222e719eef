"""The fault checks behind load/chaos.sh: overload and recovery, SIGTERM under load, checkout via
delay and DB outages, hostile clients; starts and stops its own MariaDB, delay service and app."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime

from harness.drivers import Vegeta
from harness.drivers.base import Load
from harness.infra import procs
from harness.infra.catalogue import table
from harness.infra.database import Database
from harness.infra.durations import parse_ms
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.settings import ENV
from harness.infra.tools import LOAD_DIR, bash_env, ensure_jar, newer_than
from harness.runs import system
from harness.runs.chaos import chaos
from harness.runs.chaos import params as chaos_params
from harness.runs.chaos.params import PARAM_NAMES, books_line, figure_line, settings, sleep_until
from harness.sampling.yardstick import REFERENCE_US, read, stretch


class Chaos:
    def __init__(self, args, p, out, tmp, ps):
        self.a, self.p, self.out, self.tmp, self.ps = args, p, out, tmp, ps
        self.want = set(args.checks.split(","))
        self.failed = 0
        self.app = self.delay = self.database = None
        self.vegetas = []

    def _path(self, *parts):
        return os.path.join(self.out, *parts)

    def _start_delay(self):
        cmd = [self.java, *self.a.delay_java_opts.split(), "-jar", self.jar]
        self.delay = system.start_delay(self.ps, cmd, self.delay_port,
                                        self._path("logs", "delay.log"), append=True)

    def _start_app(self, label):
        t0 = time.monotonic()
        self.app_log = self._path("logs", f"app-{label}.log")
        cmd = [self.java, *self.a.app_java_opts.split(), "-jar", self.jar]
        env = system.app_env(self.app_port, self.delay_port, self.database.env)
        self.app = system.ready(self.ps.start("app", cmd, log_path=self.app_log, env=env),
                                f"{self.url}/q/health/ready", 120, f"the app ({label})")
        log(f"app ({label}) ready in {time.monotonic() - t0:.0f} s "
            f"(pid {self.app.pid}, {self.url})")

    def _vegeta(self, name, targets, rate, seconds, timeout, *extra):
        """Starts Vegeta on TARGETS at RATE for SECONDS, raw results to raw/NAME.bin."""
        load = Load(rate, int(seconds * 1000), parse_ms(timeout) / 1000, extra)
        return self.vegeta_drv.start(self.ps, None, load, self._path("raw", name),
                                     targets_file=targets, name=name,
                                     log_path=self._path("logs", f"vegeta-{name}.log"))

    def _vegeta_wait(self, v, seconds, drain_s=10):
        """Waits SECONDS, interrupts Vegeta (stops sending, keeps results), lets DRAIN_S s drain."""
        v.wait(seconds)
        self.ps.stop(v, signal.SIGINT, drain_s)

    def _figures(self, name):
        rep = self.vegeta_drv.report(self._path("raw", f"{name}.bin"))
        with open(self._path("raw", f"{name}.report.json"), "w") as f:
            json.dump(rep, f)
        fig = chaos.report_figures(rep)
        with open(self._path("raw", f"{name}.figures.json"), "w") as f:
            json.dump(fig, f)
        return fig

    def _check(self, file, cid, name, passed, **figures):
        rec = chaos.write_check(self._path("checks", file), cid, name, passed, figures)
        self._verdict(rec)

    def _verdict(self, rec):
        if not rec["pass"]:
            self.failed += 1
        log(f"{'PASS' if rec['pass'] else 'FAIL'}: {rec['id']} {rec['name']}")

    def _save(self, name, obj):
        with open(self._path("raw", name), "w") as f:
            json.dump(obj, f)
        return obj

    # --------------------------------------------------------------------------------- setup
    def _prepare(self):
        a, p = self.a, self.p
        vegeta_bin, _, java_home = bash_env("ensure_vegeta && ensure_python && need curl "
                                            "'apt-get install curl' && find_jdk",
                                            "VEGETA", "PYTHON", "JAVA_HOME")
        self.vegeta_drv = Vegeta(vegeta_bin)
        self.java = os.path.join(java_home, "bin", "java")
        self.mariadb = os.path.join(ENV.cache_dir, f"mariadb-{ENV.mariadb_version}", "bin",
                                    "mariadb")
        # a private copy of the app (built when missing): a build may replace target/quarkus-app
        src = os.path.dirname(ensure_jar(self.ps, self._path("logs", "build.log"), sources=()))
        stale = newer_than(os.path.join(src, "quarkus-run.jar"), ["src/main", "pom.xml"])
        if stale:
            log(f"note: {stale} is newer than the jar; testing the jar as built")
        for attempt in (1, 2, 3):
            shutil.rmtree(os.path.join(self.tmp, "app"), ignore_errors=True)
            try:
                shutil.copytree(src, os.path.join(self.tmp, "app"), symlinks=True)
                if os.path.isdir(os.path.join(self.tmp, "app", "lib")):
                    break
            except (OSError, shutil.Error):
                pass
            if attempt == 3:
                raise Fatal(f"could not copy {src} (a build running?)")
            log(f"copying {src} failed (a build running?), retrying in 10 s")
            time.sleep(10)
        self.jar = os.path.join(self.tmp, "app", "quarkus-run.jar")
        # free ports (not the defaults another run on this machine may hold)
        self.app_port, self.delay_port, self.db_port = (procs.free_port(), procs.free_port(),
                                                        procs.free_port())
        while len({self.app_port, self.delay_port, self.db_port}) < 3:
            self.db_port = procs.free_port()
        self.url = f"http://127.0.0.1:{self.app_port}"
        # the machine's speed before anything is started: the timed limits stretch on a slow day
        speed_us = read(self.java)
        chaos_params.stretch_limits(p, factor := stretch(speed_us))
        log(f"the machine's yardstick: {speed_us} us a unit ({REFERENCE_US} where the limits were "
            f"set): recovery limit {p['RECOVERY_LIMIT']} s, SIGTERM's {p['SIGTERM_LIMIT']} s")
        r = subprocess.run([self.java, "-version"], capture_output=True, text=True)
        params = {"started": self.stamp, "quick": int(a.quick), "checks": a.checks,
                  "modes": a.modes, **{PARAM_NAMES.get(k, k.lower()): v for k, v in p.items()},
                  "speed_us": speed_us, "speed_reference_us": REFERENCE_US,
                  "limits_stretched_by": factor, "runid": self.runid, "cores": os.cpu_count() or 0,
                  "java": (r.stderr.splitlines() or [""])[0].replace('"', ""),
                  "vegeta": ENV.vegeta_version}
        with open(self._path("params.json"), "w") as f:
            json.dump(params, f, indent=1)
        log(f"results -> {self.out}; app {self.url}, delay service :{self.delay_port}, "
            f"MariaDB :{self.db_port} (data in {self.tmp}/db)")

    # ---------------------------------------------------------------------------- the checks
    def run(self):
        p = self.p
        self._prepare()
        self.database = Database(self.ps, self.db_port, self._path("logs", "db.log"),
                                 folder=os.path.join(self.tmp, "db"))
        self.database.start()
        self._start_delay()
        self.database.ready()
        sc = table({"DELAY": str(p["DELAY"])})
        self.probe_paths = [sc.request(m, s).path for m in sc.modes for s in ("io", "db")]
        if self.want & {"overload", "hostile", "sigterm"}:
            self._start_app("first")
            base = self._save("baseline.json",
                             chaos.recover(self.url, self.probe_paths, time.time(), 30, 30))
            if not base["pass"]:
                raise Fatal(f"before any load, not every probe answers 200: {json.dumps(base)}")
            targets = os.path.join(self.tmp, "warm.targets")
            with open(targets, "w") as f:
                f.write("".join(f"GET {self.url}{x}\n\n" for x in self.probe_paths))
            log(f"warm-up: io and db of every mode, {p['WARMUP']} s at {p['WARMUP_RATE']} req/s")
            v = self._vegeta("warmup", targets, p["WARMUP_RATE"], p["WARMUP"], "10s")
            self._vegeta_wait(v, p["WARMUP"] + 15)
            log(f"warm-up: {figure_line(self._figures('warmup'))}")
        # hostile first: the overload rounds' backlog (queued delay calls) would blur check 5.2
        if "hostile" in self.want:
            self._hostile()
        if "overload" in self.want:
            self._overload(sc)
        if "sigterm" in self.want:
            self._sigterm(sc)
        if "checkout" in self.want:
            self._checkout()
        print(file=sys.stderr)
        passed, lines = chaos.summary(self.out)
        print("\n".join(lines))
        log(f"summary: {self.out}/summary.md, {self.out}/summary.json")
        return 1 if self.failed else 0

    def _hostile(self):
        log("5 hostile: 2,000 idle connections, a reactive cpu flood for "
            f"{self.p['HOSTILE_FLOOD']} s, admission past bench.max-in-flight")
        hlog = self._path("logs", "hostile.log")
        self.ps.run("hostile", [sys.executable, "-m", "harness.runs.chaos.hostile", "--base",
                                self.url, "--checks", self._path("checks"), "--flood",
                                str(self.p["HOSTILE_FLOOD"])], log_path=hlog)
        sys.stderr.write("".join("  " + line for line in procs.tail(hlog, 10_000).splitlines(True)))
        for f in sorted(os.listdir(self._path("checks"))):
            if re.fullmatch(r"5.-hostile-.*\.json", f):
                with open(self._path("checks", f)) as fh:
                    self._verdict(json.load(fh))
        if not self.app.alive():
            raise Fatal(f"the app died during the hostile-client checks (log: {self.app_log})")

    def _overload(self, sc):
        p = self.p
        for n, m in enumerate(self.a.modes.split(","), 1):
            rate = p[f"RATE_{m.upper()}"]
            path = sc.request(m, "io").path
            log(f"1 overload {m}: GET {path} at {rate} req/s for {p['DURATION']} s "
                f"(timeout {p['OVERLOAD_TIMEOUT']}, max {p['OVERLOAD_WORKERS']} workers)")
            targets = os.path.join(self.tmp, "overload.targets")
            with open(targets, "w") as f:
                f.write(f"GET {self.url}{path}\n")
            v = self._vegeta(f"overload-{m}", targets, rate, p["DURATION"], p["OVERLOAD_TIMEOUT"],
                            "-max-workers", str(p["OVERLOAD_WORKERS"]))
            time.sleep(p["DURATION"])
            rec = self._save(f"recovery-{m}.json",
                            chaos.recover(self.url, self.probe_paths, time.time(),
                                          p["RECOVERY_LIMIT"], p["RECOVERY_GIVE_UP"]))
            self._vegeta_wait(v, 60)
            load = self._figures(f"overload-{m}")
            if not self.app.alive():
                raise Fatal(f"the app died during the {m} overload round (log: {self.app_log})")
            self._check(f"1{n}-overload-{m}.json", f"1.{n}",
                       f"overload {m} at {rate} req/s, recovery without restart",
                       rec["pass"], target_rate=rate, load=load, recovery=rec)
            log(f"  load: {figure_line(load)}")
            log(f"  recovery: {rec['recovery_s']} s to all six 200 (limit {rec['limit_s']} s); "
                f"first 200 per probe {rec['first_200_s']}; still failing {rec['still_failing']}; "
                f"confirmation {rec['confirm']}")

    def _sigterm(self, sc):
        p = self.p
        path = sc.request("virtual", "io").path
        log(f"2 sigterm: GET {path} at {p['SIGTERM_RATE']} req/s, "
            f"SIGTERM after {p['SIGTERM_AFTER']} s, limit {p['SIGTERM_LIMIT']} s")
        targets = os.path.join(self.tmp, "sigterm.targets")
        with open(targets, "w") as f:
            f.write(f"GET {self.url}{path}\n")
        v = self._vegeta("sigterm", targets, p["SIGTERM_RATE"],
                        p["SIGTERM_AFTER"] + p["SIGTERM_LIMIT"] + 20, "20s")
        time.sleep(p["SIGTERM_AFTER"])
        t0 = time.monotonic()
        self.app.popen.send_signal(signal.SIGTERM)
        give_up = p["SIGTERM_LIMIT"] + 20
        app_rc = self.app.wait(give_up)
        exit_ms = round((time.monotonic() - t0) * 1000)
        killed = app_rc is None
        if killed:
            self.ps.stop(self.app, signal.SIGKILL)
            app_rc = self.app.popen.returncode
        self.ps.forget(self.app)
        self._vegeta_wait(v, 0)
        load = self._figures("sigterm")
        exit_s = round(exit_ms / 1000, 2)
        # the app's word on its shutdown: a timed-out graceful phase waited quarkus.shutdown.timeout
        app_log = procs.tail(self.app_log, 100_000)
        timed_out = "Timed out waiting for graceful shutdown" in app_log
        stopped = re.findall(r" stopped in ([0-9.]+)s", app_log)
        ok = not killed and exit_ms <= p["SIGTERM_LIMIT"] * 1000
        log(f"  exit {exit_s} s after SIGTERM (exit code {app_rc}"
            f"{f', still running after {give_up} s: KILLED' if killed else ''}); "
            f"the app logged 'stopped in {stopped[-1] if stopped else '?'}s', "
            f"graceful phase timed out: {str(timed_out).lower()}")
        if timed_out and "All HTTP requests complete" in app_log:
            log("  WARNING: every HTTP request had completed, yet the graceful phase waited out "
                "quarkus.shutdown.timeout: a shutdown listener never reported done "
                "(quarkus-jackson 3.30.5/3.30.6, quarkusio/quarkus#51915, fixed in 3.30.7)")
        log(f"  load: {figure_line(load)}")
        self._check("2-sigterm.json", 2, f"SIGTERM under load, exit within {p['SIGTERM_LIMIT']} s",
                   ok, exit_s=exit_s, limit_s=p["SIGTERM_LIMIT"], exit_code=app_rc,
                   killed_after_s=give_up if killed else None,
                   quarkus_stopped_in_s=float(stopped[-1]) if stopped else None,
                   graceful_phase_timed_out=timed_out, load=load)
        self.app = None

    def _checkout_records(self):
        """The checkout results and the orders in the database, into raw/ -> (results, rows)."""
        results = self._path("raw", "checkout.results.json")
        with open(results, "w") as f:
            f.write(self.vegeta_drv.encode(self._path("raw", "checkout.bin"), "json") or "")
        time.sleep(1)   # a request that got no answer may still commit: a moment before reading
        rows = self._path("raw", "checkout.db-rows.tsv")
        with open(rows, "w") as f:
            r = subprocess.run([self.mariadb, "--no-defaults", "--protocol=tcp", "-h127.0.0.1",
                                f"-P{self.db_port}", "-ubench", "-pbench", "bench", "-N", "-B",
                                "-e", "SELECT customer, mode, id FROM orders "
                                f"WHERE customer LIKE 'chaos-{self.runid}-%'"], stdout=f)
        if r.returncode:
            raise Fatal(f"could not read the orders table with {self.mariadb}")
        return results, rows

    def _db_outage(self, db_paths, t_delay_back):
        """The checkout run's database outage -> (its smoke test, when it was back, its ms)."""
        p = self.p
        sleep_until(t_delay_back, p["CHECKOUT_GAP"])
        t_stop = time.time()
        self.database.stop()
        t_down = time.time()
        log(f"  database stopped (load/db.sh stop took {round((t_down - t_stop) * 1000)} ms)")
        smoke_db = self._save("smoke-db-down.json",
                             chaos.smoke(self.url, db_paths, 503, p["DB_DOWN_LIMIT"]))
        sleep_until(t_down, p["OUTAGE"])
        if self.database.restart():
            raise Fatal(f"load/db.sh start (after the outage) failed; see {self.out}/logs/db.log")
        db_back = time.time()
        db_outage_ms = round((db_back - t_down) * 1000)
        log(f"  database answers again, {db_outage_ms} ms after it stopped")
        return smoke_db, db_back, db_outage_ms

    def _checkout_warmup(self, paths, rate):
        # customers chaoswarm-<runid>-<n>: never matched by LIKE 'chaos-<runid>-%'
        p, targets = self.p, os.path.join(self.tmp, "checkout-warm.targets")
        chaos.write_targets(self.url, paths, self.runid, rate * p["CHECKOUT_WARMUP"], targets,
                            "chaoswarm")
        v = self._vegeta("checkout-warmup", targets, rate, p["CHECKOUT_WARMUP"],
                        p["CHECKOUT_TIMEOUT"], "-format", "json")
        self._vegeta_wait(v, p["CHECKOUT_WARMUP"] + 30)
        log(f"3 checkout warm-up ({p['CHECKOUT_WARMUP']} s, not counted): "
            f"{figure_line(self._figures('checkout-warmup'))}")

    def _checkout(self):
        p = self.p
        if self.app is not None and self.app.alive():
            self.ps.stop(self.app, grace_s=15)
        self._start_app("checkout")
        sc = table({"DELAY": str(p["DELAY"])})
        paths = [f"{m}={sc.request(m, 'checkout').path}" for m in sc.modes]   # MODE=PATH items
        rate = p["CHECKOUT_RATE"]
        if p["CHECKOUT_WARMUP"] > 0:
            self._checkout_warmup(paths, rate)
        # enough distinct targets for the longest possible timeline; Vegeta stops after the tail
        max_s = (p["CHECKOUT_LEAD"] + p["OUTAGE"] + 60 + p["CHECKOUT_GAP"] + 30 + p["OUTAGE"] + 60
                 + p["CHECKOUT_TAIL"])
        targets = os.path.join(self.tmp, "checkout.targets")
        chaos.write_targets(self.url, paths, self.runid, rate * max_s, targets)
        log(f"3 checkout: POST /{{mode}}/orders round-robin at {rate} req/s, "
            f"customers chaos-{self.runid}-<n>; delay service down after {p['CHECKOUT_LEAD']} s, "
            f"database down {p['CHECKOUT_GAP']} s after it is back, {p['OUTAGE']} s each, "
            f"load ends {p['CHECKOUT_TAIL']} s after")
        v = self._vegeta("checkout", targets, rate, max_s, p["CHECKOUT_TIMEOUT"], "-format", "json")
        t_run = time.time()
        sleep_until(t_run, p["CHECKOUT_LEAD"])
        self.ps.stop(self.delay, signal.SIGKILL)
        t_down = time.time()
        log("  delay service killed")
        io_paths = [sc.request(m, "io").path for m in sc.modes]
        db_paths = [sc.request(m, "db").path for m in sc.modes]
        smoke_delay = self._save("smoke-delay-down.json", chaos.smoke(self.url, io_paths, 502, 1))
        sleep_until(t_down, p["OUTAGE"])
        self._start_delay()
        t_delay_back = time.time()
        delay_outage_ms = round((t_delay_back - t_down) * 1000)
        log(f"  delay service answers again, {delay_outage_ms} ms after the kill")
        smoke_db, db_back, db_outage_ms = self._db_outage(db_paths, t_delay_back)
        sleep_until(db_back, p["CHECKOUT_TAIL"])
        self._vegeta_wait(v, 0, 90)   # stop sending; the requests in flight still get their answers
        run_s = round(time.time() - t_run, 1)
        load = self._figures("checkout")
        results, rows = self._checkout_records()
        books = self._save("checkout.verify.json", chaos.verify(
            results, self.url, rows, db_back, self._path("raw", "checkout.timeline.csv")))
        log(f"  load: {figure_line(load)}")
        log(f"  books: {books_line(books)}")
        log(f"  per second: {self.out}/raw/checkout.timeline.csv")
        self._check("3-checkout.json", 3,
                   "nothing lost: checkout through delay and database outages", books["pass"],
                   run_s=run_s, delay_outage_s=round(delay_outage_ms / 1000, 1),
                   db_outage_s=round(db_outage_ms / 1000, 1), books=books, load=load)
        log(f"  delay down: {json.dumps(smoke_delay)}")
        log(f"  database down: {json.dumps(smoke_db)}")
        self._check("4-outage-smoke.json", 4, "outage answers: delay down -> 502 within 1 s, "
                   f"database down -> 503 within {p['DB_DOWN_LIMIT']} s",
                   smoke_delay["pass"] and smoke_db["pass"], delay_down=smoke_delay,
                   db_down=smoke_db)


def run(args):
    p = settings(args)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(args.out or os.path.join(LOAD_DIR, "results", f"chaos-{stamp}"))
    for d in ("checks", "raw", "logs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="vtvr-chaos.", dir=ENV.tmpdir or None)
    try:
        with Procs() as ps:
            checks = Chaos(args, p, out, tmp, ps)
            checks.stamp, checks.runid = stamp, f"{stamp}-{os.getpid()}"
            return checks.run()
    finally:
        db_err = os.path.join(tmp, "db", "mariadbd.err")
        if os.path.exists(db_err):
            shutil.copy(db_err, os.path.join(out, "logs", "mariadbd.err"))
        shutil.rmtree(tmp, ignore_errors=True)
        # a run cut short (error, Ctrl-C) still leaves a summary of its finished checks, incomplete
        if (not os.path.exists(os.path.join(out, "summary.json"))
                and os.path.exists(os.path.join(out, "params.json"))):
            try:
                _, lines = chaos.summary(out, incomplete=True)
                print("\n".join(lines), file=sys.stderr)
            except (OSError, ValueError):
                pass
