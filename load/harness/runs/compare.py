"""The comparison runner behind load/compare.sh: builds, starts the database, delay service and app, warms up,
runs the plan's steps with the sampler beside them, restarts what broke, and hands the steps to the report."""
import contextlib
import copy
import io
import json
import os
import re
import resource
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime

from harness.infra import procs
from harness.infra.catalogue import LOAD_DIR, table
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.progress import Progress
from harness.report import summaries as report
from harness.runs import plan
from harness.sampling import machine

ROOT = os.path.dirname(LOAD_DIR)
JAR = os.path.join(ROOT, "target", "quarkus-app", "quarkus-run.jar")
WARMUP_ROUND_MS = 3000


def bash_env(snippet, *names):
    """Runs SNIPPET after sourcing load/tools.sh (the one home of tool and JDK discovery); the values of NAMES."""
    code = f'. "{LOAD_DIR}/tools.sh" && {snippet} && printf "%s\\0" ' + " ".join(f'"${n}"' for n in names)
    r = subprocess.run(["bash", "-c", code], stdout=subprocess.PIPE, text=True)
    if r.returncode:
        raise Fatal(f"{snippet} failed (see above)")
    return r.stdout.split("\0")[:len(names)]


def unit(tool):
    return " req/s" if tool == "vegeta" else " in flight"


def report_cli(*argv):
    """`vtvr-harness report ARGV...` in this process: (exit status, what it printed)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            rc = report.main(list(argv)) or 0
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
            if not isinstance(e.code, int) and e.code:
                print(e.code, file=sys.stderr)
    return rc, buf.getvalue()


class Run:
    """One run of the plan into one results folder."""

    def __init__(self, s, steps, out, cmdline, ps):
        self.s, self.plan, self.out, self.cmdline, self.ps = s, steps, out, cmdline, ps
        self.external = bool(s.app_url)
        self.app = self.delay = self.db_start = None
        self.app_pid = int(s.app_pid) if s.app_pid else None
        self.app_client = ""
        self.scrape_ms = None
        self.failed = 0
        self.java = self.runner = ""
        self.taskset = []
        self.placement = self.app_cores = ""
        self.db_started = False
        self.db_env = {}
        self.startups, self.warmups, self.overheads = [], [], []
        self.wrote_machine = False

    # ------------------------------------------------------------------------------------------ setup
    def prepare(self):
        s = self.s
        if self.external:
            if self.app_pid and not os.path.exists(f"/proc/{self.app_pid}"):
                raise Fatal(f"--app-pid {self.app_pid}: no such process here")
            if s.native:
                raise Fatal("--native and --app-url exclude each other")
            if s.cpus:
                raise Fatal("--cpus places the processes this script starts; with --app-url place them yourself")
            s.reuse = True
        if os.path.isdir(os.path.join(self.out, "steps")) and os.listdir(os.path.join(self.out, "steps")):
            raise Fatal(f"{self.out} already holds a run (steps/); choose another --out")
        os.makedirs(os.path.join(self.out, "steps"), exist_ok=True)
        os.makedirs(os.path.join(self.out, "logs"), exist_ok=True)
        log(f"results -> {self.out}")
        if s.cpus:
            self.place(s.cpus)
        if not self.external:
            (java_home,) = bash_env("find_jdk", "JAVA_HOME")
            os.environ["JAVA_HOME"] = java_home
            self.java = os.path.join(java_home, "bin", "java")
            self.build()
            self.ports()
            self.start_db()
            self.url = f"http://127.0.0.1:{self.app_port}"
        else:
            self.url = s.app_url.rstrip("/")
            if not is_loopback(self.url):
                os.environ["VTVR_REMOTE"] = "1"   # the user named another host: vegeta.sh and hey.sh may load it
        os.environ["APP_URL"] = self.url
        # after the database start, which runs meanwhile (a first run builds Vegeta)
        vegeta, hey, python = bash_env("ensure_vegeta && ensure_hey && ensure_python", "VEGETA", "HEY", "PYTHON")
        os.environ.update(VEGETA=vegeta, HEY=hey, PYTHON=python)
        self.vegeta = vegeta

    def place(self, cpus):
        """--cpus app=N: the app on the last N cores, this runner and all it starts on the others."""
        m = re.fullmatch(r"app=([1-9][0-9]*)", cpus)
        if not m:
            raise Fatal(f"--cpus takes app=N (N cores for the app), got '{cpus}'")
        ncpu, n = os.cpu_count(), int(m.group(1))
        if n >= ncpu:
            raise Fatal(f"--cpus app={n} leaves no core for the rest ({ncpu} cores)")
        app_set, rest = range(ncpu - n, ncpu), range(0, ncpu - n)
        os.sched_setaffinity(0, set(rest))
        fmt = lambda r: str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}"   # noqa: E731
        self.taskset = ["taskset", "-c", fmt(app_set)]
        self.app_cores = str(n)
        self.placement = f"app on cpu {fmt(app_set)}; Vegeta, hey, delay service, database, sampler on cpu {fmt(rest)}"
        log(f"placement: {self.placement}")

    def build(self):
        s = self.s
        if s.native:
            runners = sorted(f for f in os.listdir(os.path.join(ROOT, "target")) if f.endswith("-runner")) \
                if os.path.isdir(os.path.join(ROOT, "target")) else []
            self.runner = os.path.join(ROOT, "target", runners[0]) if runners else ""
            if not self.runner or not os.access(self.runner, os.X_OK):
                raise Fatal("--native: no target/*-runner. Build it with './mvnw package -Dnative' (GraalVM or "
                            "Mandrel 21+ on PATH, or add -Dquarkus.native.container-build=true where Docker runs)")
        stale = newer_than(JAR, ["src", "pom.xml"]) if os.path.isfile(JAR) else ""
        if not s.no_build and (s.rebuild or not os.path.isfile(JAR) or stale):
            log(f"building the app ({stale + ' is newer than the jar; ' if stale else ''}"
                "./mvnw -B -q package -DskipTests)")
            build_log = os.path.join(self.out, "logs", "build.log")
            if self.ps.run("build", ["./mvnw", "-B", "-q", "package", "-DskipTests"], cwd=ROOT, log_path=build_log):
                sys.stderr.write(procs.tail(build_log, 30))
                raise Fatal(f"build failed, see {build_log}")
        if not os.path.isfile(JAR) and not self.runner:
            raise Fatal(f"no {JAR} (build with ./mvnw package -DskipTests)")

    def ports(self):
        def pick(name, wanted):
            if procs.port_free(wanted):
                return wanted
            p = procs.free_port()
            log(f"port {wanted} for the {name} is busy, using {p}")
            return p
        self.app_port = pick("app", int(os.environ.get("APP_PORT", "8080")))
        delay = int(os.environ.get("DELAY_PORT", "8081"))
        self.delay_port = pick("delay service", delay if delay != self.app_port else self.app_port + 1)

    def db(self, *argv, **kw):
        return self.ps.run("db.sh", [os.path.join(LOAD_DIR, "db.sh"), *argv],
                           env={"DB_PORT": str(self.db_port)}, **kw)

    def start_db(self):
        jdbc, rx = os.environ.get("QUARKUS_DATASOURCE_JDBC_URL"), os.environ.get("QUARKUS_DATASOURCE_REACTIVE_URL")
        if jdbc or rx:
            if not (jdbc and rx):
                raise Fatal("set both QUARKUS_DATASOURCE_JDBC_URL and QUARKUS_DATASOURCE_REACTIVE_URL "
                            "(same database), or neither")
            log(f"database: {jdbc} (given)")
            return
        self.db_port = int(os.environ.get("DB_PORT", "3306"))
        if self.db("status") == 0:
            log(f"database: load/db.sh already runs MariaDB on {self.db_port}, reusing it (left running)")
        else:
            if not procs.port_free(self.db_port):
                log(f"port {self.db_port} is taken by a server load/db.sh does not run; the embedded DB gets a "
                    "free port")
                self.db_port = procs.free_port()
            db_log = os.path.join(self.out, "logs", "db.log")
            log(f"database: starting the embedded MariaDB on {self.db_port} (load/db.sh start; log: {db_log})")
            self.db_started = True
            self.ps.on_exit.append(lambda: self.db("stop", timeout=30))
            # in the background: the delay service starts meanwhile; start_app waits for it (db_ready)
            self.db_start = self.ps.start("db.sh start", [os.path.join(LOAD_DIR, "db.sh"), "start"],
                                          env={"DB_PORT": str(self.db_port)}, log_path=db_log)
        # the app's only (not os.environ: the next of --runs N starts its own database)
        self.db_env = {"QUARKUS_DATASOURCE_JDBC_URL": f"jdbc:mysql://127.0.0.1:{self.db_port}/bench",
                       "QUARKUS_DATASOURCE_REACTIVE_URL": f"mysql://127.0.0.1:{self.db_port}/bench"}

    def db_ready(self):
        """Waits for the background `load/db.sh start`, once; MariaDB's pid joins the run's processes."""
        if self.db_start is None:
            return
        rc, self.db_start = self.db_start.wait(), None
        db_log = os.path.join(self.out, "logs", "db.log")
        status = subprocess.run([os.path.join(LOAD_DIR, "db.sh"), "status"], env={**os.environ,
                                "DB_PORT": str(self.db_port)}, capture_output=True, text=True)
        if rc or status.returncode:
            sys.stderr.write(procs.tail(db_log))
            raise Fatal(f"load/db.sh start failed (exit {rc})")
        m = re.search(r"pid (\d+)", status.stdout)
        if m:
            self.ps.adopt("mariadb", int(m.group(1)))
        log("database: " + re.sub(r"^\[[0-9:]*\] ", "", procs.tail(db_log, 1).strip()))

    # ------------------------------------------------------------------------------------------ app
    def start_system(self, label, client):
        if self.external:
            return
        t0 = time.monotonic()
        delay_log = os.path.join(self.out, "logs", f"delay-{label}.log")
        binary = JAR if os.path.isfile(JAR) else self.runner
        cmd = [self.java, *os.environ.get("DELAY_JAVA_OPTS", "").split(), "-jar", binary] \
            if binary.endswith(".jar") else [binary]
        self.delay = self.ps.start("delay", cmd, log_path=delay_log, append=True, env={
            "QUARKUS_PROFILE": "delay", "QUARKUS_HTTP_HOST": "127.0.0.1", "QUARKUS_HTTP_PORT": str(self.delay_port)})
        if not procs.wait_ready(self.delay, f"http://127.0.0.1:{self.delay_port}/delay/0", 90):
            sys.stderr.write(procs.tail(delay_log))
            raise Fatal(f"the delay service did not answer on port {self.delay_port} (log: {delay_log})")
        self.db_ready()
        app_log = os.path.join(self.out, "logs", f"app-{label}.log")
        cmd = [self.runner] if self.runner else [self.java, *self.s.app_java_opts.split(), "-jar", JAR]
        env = {**self.db_env, "QUARKUS_HTTP_HOST": "127.0.0.1", "QUARKUS_HTTP_PORT": str(self.app_port),
               "QUARKUS_REST_CLIENT_DELAY_URL": f"http://127.0.0.1:{self.delay_port}"}
        if client:
            env["BENCH_BLOCKING_CLIENT"] = client
        t_app = time.monotonic()
        self.app = self.ps.start("app", [*self.taskset, *cmd], log_path=app_log, env=env)
        if not procs.wait_ready(self.app, f"{self.url}/q/health/ready", 120):
            sys.stderr.write(procs.tail(app_log, 30))
            raise Fatal(f"the app did not become ready on {self.url} (log: {app_log})")
        self.app_pid, self.app_client = self.app.pid, client
        log(f"app ready in {time.monotonic() - t_app:.0f} s (pid {self.app_pid}, {self.url}, delay service on "
            f"{self.delay_port}{', bench.blocking-client=' + client if client else ''})")
        self.startups.append(time.monotonic() - t0)
        # one /q/metrics scrape's CPU at idle, for the report's statement of what the in-step scrapes cost
        r = subprocess.run([sys.executable, "-m", "harness.sampling.sample", "--pid", str(self.app_pid),
                            "--scrape-cost", f"{self.url}/q/metrics"], capture_output=True, text=True)
        with contextlib.suppress(ValueError, KeyError):
            self.scrape_ms = json.loads(r.stdout)["scrape_cpu_ms"]

    def stop_system(self, grace_s=20):
        if self.external:
            return
        self.ps.stop(self.app, grace_s=grace_s)
        self.ps.stop(self.delay)
        self.app = self.delay = None
        self.app_pid = None

    def request(self, series, scenario, extra=""):
        params = dict(self.s.env)
        if extra:
            k, v = extra.split("=", 1)
            params[k] = v
        return table(params).request(plan.base_of(series), scenario)

    def send(self, req, timeout):
        return procs.http_status(self.url + req.path, timeout, req.method, req.body.encode() if req.body else None,
                                 {"Content-Type": "application/json"} if req.body else None)

    def smoke(self, series):
        """One request per scenario: a wrong status is reported now rather than found in the tables."""
        m = plan.base_of(series)
        for scen in self.s.scenarios:
            if m not in table(self.s.env).series_for(scen):
                continue
            req = self.request(series, scen)
            body_path = os.path.join(self.out, "logs", f"smoke-{m}-{scen}.json")
            code, body = fetch(self.url + req.path, 30, req.method, req.body)
            with open(body_path, "wb") as f:
                f.write(body)
            if code != req.status:
                log(f"WARNING: {req.method} {req.path} answered {code:03d}, expected {req.status}: "
                    f"{body[:300].decode(errors='replace')}")
            elif scen == "checkout":
                with contextlib.suppress(ValueError, AttributeError):
                    oid = json.loads(body).get("orderId", "")
                    if oid:
                        code = procs.http_status(f"{self.url}/{m}/orders/{oid}", 10)
                        if code != 200:
                            log(f"WARNING: GET /{m}/orders/{oid} answered {code:03d} after the checkout created it")

    def sampler(self, path, with_delay):
        argv = [sys.executable, "-m", "harness.sampling.sample", "--out", path, "--interval", "0.25", "--metrics",
                f"{self.url}/q/metrics", "--metrics-interval", self.s.metrics_interval]
        if self.app_pid:
            argv += ["--pid", str(self.app_pid)]
        if with_delay and self.delay:
            argv += ["--also", f"delay={self.delay.pid}"]
        return self.ps.start("sampler", argv, log_path=path + ".log")

    def warm(self, series):
        """Every chosen scenario of the series at once, each at the lowest rate of its default sweep, ramped
        1/4 -> 1/2 -> full over --warmup, then at full rate in 3 s rounds while the JIT compiler threads still
        use more than WARMUP_JIT_PCT % of one core, up to WARMUP_MAX s in all; results discarded (docs/harness.md).
        True when every warm-up request succeeded."""
        s, m, t0 = self.s, plan.base_of(series), time.monotonic()
        tdir = os.path.join(self.out, "logs", f"warmup-{series}")
        os.makedirs(tdir, exist_ok=True)
        scens = ["io"] if series.endswith("-aa") else [x for x in s.scenarios if m in table(s.env).series_for(x)]
        targets = {}
        for scen in scens:
            targets[scen] = os.path.join(tdir, f"{scen}.targets")
            write_targets(targets[scen], self.url, self.request(series, scen), os.path.join(tdir, f"{scen}.json"))

        def round_(divisor, ms, label):
            running = []
            for scen, tfile in targets.items():
                rate = max(1, plan.levels(scen)[0][0] * s.warmup_scale // 100 // divisor)
                with open(os.path.join(tdir, f"{scen}-{label}.bin"), "wb") as results:
                    running.append(self.ps.start(f"vegeta warm-up {scen}", [
                        self.vegeta, "attack", "-targets", tfile, "-rate", f"{rate}/1s", "-duration", f"{ms}ms",
                        "-timeout", s.timeout, *laddr(self.url)], stdout=results))
            for p in running:
                if p.wait(ms / 1000 + s.step_limit_s) is None:
                    self.ps.stop(p, grace_s=5)
                self.ps.forget(p)

        sampler = self.sampler(os.path.join(tdir, "samples.jsonl"), False)
        for k in (1, 2, 3):
            round_(4 // k if k < 3 else 1, s.warmup_ms // 3, f"ramp-{k}")
        jit_pct, n = None, 0
        while time.monotonic() - t0 + 3 <= s.warmup_max_s:
            j0, w0 = self.jit_ms(), time.monotonic()
            n += 1
            round_(1, WARMUP_ROUND_MS, f"more-{n}")
            jit_pct = int((self.jit_ms() - j0) * 100 / ((time.monotonic() - w0) * 1000))
            if jit_pct <= s.warmup_jit_pct:
                break
        self.ps.stop(sampler, grace_s=5)
        bins = sorted(os.path.join(tdir, f) for f in os.listdir(tdir) if f.endswith(".bin"))
        r = subprocess.run([self.vegeta, "report", "-type", "json", *bins], capture_output=True, text=True)
        try:
            rep = json.loads(r.stdout)
            summary = f"{rep['requests']} requests, {100 * rep['success']:.1f}% ok, status {rep['status_codes']}"
            ok = rep["success"] >= 1
        except (ValueError, KeyError):
            summary, ok = "", False
        self.warmups.append(time.monotonic() - t0)
        if not ok:
            log(f"warm-up {m}: {summary or 'no results'}")
            return False
        jit = f" (JIT at {jit_pct} % of a core in the last 3 s)" if jit_pct is not None else ""
        log(f"warm-up {m}: {time.monotonic() - t0:.0f} s{jit}, {summary}")
        return True

    def jit_ms(self):
        """The JIT compiler threads' CPU ms so far; 0 for a remote app or a native binary (no JIT threads)."""
        if not self.app_pid:
            return 0
        r = subprocess.run([sys.executable, "-m", "harness.sampling.sample", "--pid", str(self.app_pid), "--once"],
                           capture_output=True, text=True)
        try:
            return int(json.loads(r.stdout)["jit_ms"])
        except (ValueError, KeyError):
            return 0

    # ------------------------------------------------------------------------------------------ steps
    def run_step(self, i, st):
        s, b = self.s, plan.base_of(st.series)
        name = f"{i:03d}-{st.scenario}-{st.series}-{st.tool}-{st.level}" + (f"-{st.extra.split('=')[1]}"
                                                                              if st.extra else "")
        d = os.path.join(self.out, "steps", name)
        os.makedirs(d, exist_ok=True)
        req = self.request(st.series, st.scenario, st.extra)
        meta = {"index": i, "scenario": st.scenario, "mode": b, "series": st.series,
                "client": plan.client_of(st.series), "tool": st.tool,
                "load_kind": "rate" if st.tool == "vegeta" else "concurrency", "load": st.level,
                "duration": s.duration, "duration_s": s.duration_ms / 1000,
                "ramp_in_s": s.ramp_ms / 1000 if st.tool == "vegeta" else 0, "params": req.params,
                "method": req.method, "url": self.url + req.path, "expected_status": req.status,
                "app_pid": self.app_pid, "scrape_cpu_ms": self.scrape_ms,
                "started": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f)
        save(fetch(f"{self.url}/q/metrics", 5)[1], os.path.join(d, "metrics-before.prom"))
        samples = os.path.join(d, "samples.jsonl")
        sampler = self.sampler(samples, True)
        # the load starts once the sampler has read the CPU, so the step's CPU window starts with the load
        for _ in range(100):
            if os.path.exists(samples) and os.path.getsize(samples):
                break
            time.sleep(0.02)
        t0 = time.monotonic()
        c0 = children_cpu_ms()
        sent = f"{s.ramp_ms + s.duration_ms}ms" if st.tool == "vegeta" else s.duration
        env = {"OUT": os.path.join(d, "results"), **dict([st.extra.split("=", 1)] if st.extra else [])}
        # both tools stop by themselves after the step plus their request timeout; the limit makes sure of it
        rc = self.ps.run(st.tool, [os.path.join(LOAD_DIR, f"{st.tool}.sh"), b, st.scenario, str(st.level), sent],
                         env=env, log_path=os.path.join(d, "stdout.txt"), timeout=s.step_limit_s)
        c1 = children_cpu_ms()
        wall_ms = round((time.monotonic() - t0) * 1000)
        with open(os.path.join(d, "generator.json"), "w") as f:
            json.dump({"cpu_ms": c1 - c0, "wall_ms": wall_ms}, f)
        if rc == 124:
            with open(os.path.join(d, "stdout.txt"), "a") as f:
                f.write(f"stopped after {s.step_limit_s} s: the load tool did not end by itself\n")
        self.ps.stop(sampler, grace_s=5)
        save(fetch(f"{self.url}/q/metrics", 5)[1], os.path.join(d, "metrics-after.prom"))
        self.overheads.append(time.monotonic() - t0 - (s.duration_ms + (s.ramp_ms if st.tool == "vegeta" else 0))
                              / 1000)
        st_rc, line = 0, ""
        if rc:
            self.failed += 1
            log(f"step failed (exit {rc}): {' '.join(procs.tail(os.path.join(d, 'stdout.txt'), 3).split())}")
        else:
            st_rc, line = report_cli("step", d)
            line = line.strip()
            log(f"  {line}")
        if self.app_pid and not os.path.exists(f"/proc/{self.app_pid}"):
            raise Fatal(f"the app (pid {self.app_pid}) died during {st.scenario} {st.series} {st.tool} {st.level}; "
                        f"see {self.out}/logs")
        if self.app and not self.app.alive():
            raise Fatal(f"the app (pid {self.app_pid}) died during {st.scenario} {st.series} {st.tool} {st.level}; "
                        f"see {self.out}/logs")
        # a step whose requests all succeeded left a working app; after failures, make sure
        if rc or st_rc:
            self.probe(st, d)
        if s.settle_s:
            time.sleep(s.settle_s)
        return line

    def probe(self, st, d):
        """After a step with failures the app must still answer one request of that scenario correctly (3
        tries, 1 s apart; one try when it does not answer at all). One that no longer does would spoil every
        later step: its thread dump is kept, the step marked (APP_UNRESPONSIVE), the app and delay restarted."""
        if self.external:
            return
        req = self.request(st.series, st.scenario)
        wait_s = max(self.s.timeout_s, 10)
        tries = 0
        while tries < 3:
            tries += 1
            code = self.send(req, wait_s)
            if code == req.status:
                return
            if code == 0:
                break
            time.sleep(1)
        what = f"no answer within {wait_s} s" if code == 0 else \
            f"status {code} {tries} times (expected {req.status})"
        log(f"WARNING: after this step the app gives {req.method} {req.path} {what}; keeping a thread dump and "
            "restarting it")
        save(f"{req.method} {req.path} after the step: {what}\n".encode(), os.path.join(d, "unresponsive.txt"))
        if self.java and not self.runner:
            self.ps.run("jstack", [os.path.join(os.environ["JAVA_HOME"], "bin", "jstack"), str(self.app_pid)],
                        log_path=os.path.join(d, "threads.txt"), timeout=30)
        self.stop_system(5)
        self.start_system(f"{st.series}-restart-{os.path.basename(d)}", plan.client_of(st.series))
        self.warm(st.series)

    def eta(self, index):
        """Seconds left before step INDEX (0-based): the model, with this run's own timings once it has some."""
        mean = lambda xs, d: sum(xs) / len(xs) if xs else d   # noqa: E731
        return plan.estimate_s(self.s, self.plan, index, max(0.3, mean(self.overheads, plan.STEP_OVERHEAD_S)),
                               mean(self.startups, plan.APP_START_S), mean(self.warmups, plan.warmup_s(self.s)),
                               prepared=True)

    def _facts(self, app_desc, vegeta_version):
        s = self.s
        facts = machine.facts(java=self.java or None, app=machine.app_info(self.url), **{
            "java_opts": s.app_java_opts, "started": self.started, "command": self.cmdline,
            "vegeta": f"vegeta {vegeta_version} ({os.environ['VEGETA']})", "hey": f"hey ({os.environ['HEY']})",
            "reuse": str(int(s.reuse)), "duration": s.duration, "warmup": s.warmup, "experiment": s.experiment,
            "mode_order": plan.mode_order(s), "placement": self.placement, "app_cores": self.app_cores,
            "metrics_interval": s.metrics_interval})
        facts["app"] = app_desc
        return facts

    # ------------------------------------------------------------------------------------------ the run
    def run(self):
        s = self.s
        self.started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        t_run = time.monotonic()
        self.prepare()
        log(f"plan: {len(self.plan)} steps over modes [{' '.join(dict.fromkeys(x.series for x in self.plan))}] "
            f"(order rotated by {s.rotate}), scenarios [{','.join(s.scenarios)}], {s.duration} each, warm-up "
            f"{s.warmup}; {'one app for all modes' if s.reuse else 'a fresh app and delay service per mode'}; "
            f"about {plan.estimate_s(s, self.plan) / 60:.0f} min")
        starts = set(plan.app_starts(self.plan, s.reuse))
        current = None
        with Progress(len(self.plan)) as progress:
            for i, st in enumerate(self.plan):
                if st.series != current:
                    if i in starts:
                        if current is not None:
                            self.stop_system()
                        log(f"starting a fresh delay service and app for mode {st.series}")
                        self.start_system(st.series, plan.client_of(st.series))
                    if not self.wrote_machine:
                        with open(os.path.join(self.out, "machine.json"), "w") as f:
                            json.dump(self._facts(*self._app_desc()), f, indent=2)
                        self.wrote_machine = True
                    current = st.series
                    # --quick skips the per-scenario check unless the warm-up (which hits every scenario) failed
                    if s.quick:
                        if not self.warm(st.series):
                            self.smoke(st.series)
                    else:
                        self.smoke(st.series)
                        self.warm(st.series)
                progress.step(i + 1, st, self.eta(i), unit(st.tool))
                progress.headline(self.run_step(i + 1, st))
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

    def _app_desc(self):
        s = self.s
        if self.external:
            how = "pid " + s.app_pid if s.app_pid else "remote: sampled from /q/metrics only"
            desc = f"external, {self.url} ({how})"
        elif self.runner:
            desc = f"native {os.path.basename(self.runner)}"
        else:
            desc = f"JVM jar {os.path.basename(JAR)}"
        return desc, os.environ.get("VEGETA_VERSION", "v12.12.0")


def is_loopback(url):
    return re.match(r"http://(127\.0\.0\.1|localhost|\[::1\])[:/]", url + "/") is not None


def laddr(url):
    """Vegeta's -laddr with a fresh loopback source (as lib.sh's loopback_source: each 127.0.0.x has its own ports,
    so the TIME_WAIT sockets of one heavy run do not use up the next one's) for a loopback URL; none otherwise."""
    return ["-laddr", f"127.0.0.{2 + int.from_bytes(os.urandom(1)) % 250}"] if is_loopback(url) else []


def fetch(url, timeout, method="GET", body=None):
    """-> (status, body bytes) of one request; status 0 and b'' when none came."""
    req = urllib.request.Request(url, data=body.encode() if body else None, method=method,
                                 headers={"Content-Type": "application/json"} if body else {})
    try:
        with procs._NO_PROXY.open(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (OSError, ValueError):
        return 0, b""


def write_targets(path, base_url, req, body_path):
    """One Vegeta target file for REQ against BASE_URL; a body goes to BODY_PATH beside it."""
    lines = [f"{req.method} {base_url}{req.path}"]
    if req.body:
        with open(body_path, "w") as f:
            f.write(req.body)
        lines += ["Content-Type: application/json", f"@{body_path}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n\n")


def save(data, path):
    with open(path, "wb") as f:
        f.write(data)


def children_cpu_ms():
    """User+system CPU ms of this process's finished (reaped) children: the load tool's whole tree."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round((r.ru_utime + r.ru_stime) * 1000)


def newer_than(ref, paths):
    """The first file under PATHS (relative to the repository) newer than REF, or ''."""
    t = os.path.getmtime(ref)
    for p in paths:
        full = os.path.join(ROOT, p)
        walk = [(full, [], [""])] if os.path.isfile(full) else os.walk(full)
        for d, _, files in walk:
            for f in files:
                path = os.path.join(d, f) if f else d
                if os.path.getmtime(path) > t:
                    return os.path.relpath(path, ROOT)
    return ""


def one_run_argv(argv):
    """ARGV without --runs, --out and --rotate (and their values): the command line of one of N runs."""
    once, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("--runs", "--out", "--rotate"):
            skip = True
        elif not a.startswith(("--runs=", "--out=", "--rotate=")):
            once.append(a)
    return once


def default_out():
    return os.path.join(LOAD_DIR, "results", datetime.now().strftime("%Y%m%d-%H%M%S"))


def run(args):
    """`compare`: one run, N runs and their medians (--runs), or the plan (--dry-run)."""
    s = plan.settings(args, dict(os.environ))
    if s.experiment == "scale":
        from harness.runs import scale
        return scale.run(s, args.argv)
    if s.design != "sequential":
        from harness.runs import interleave
        return interleave.run(s, args.argv)
    steps = plan.build_plan(s)
    if s.dry_run:
        for i, st in enumerate(steps, 1):
            print(f"{i:3d}. {st}")
        n_modes = len(dict.fromkeys(x.series for x in steps))
        print(f"{len(steps)} steps of {s.duration}, warm-up {s.warmup} per mode, "
              f"{len(plan.app_starts(steps, s.reuse))} app start(s): about {plan.estimate_s(s, steps):.0f} s "
              f"({n_modes} series)")
        return 0
    os.environ.update(s.env)   # the scenario parameters and timeouts reach the app, vegeta.sh and hey.sh
    argv = args.argv
    if s.runs == 1:
        out = os.path.abspath(s.out or default_out())
        with Procs() as ps:
            return Run(s, steps, out, "load/compare.sh" + "".join(" " + a for a in argv), ps).run()
    out = os.path.abspath(s.out or default_out())
    os.makedirs(out, exist_ok=True)
    once = one_run_argv(argv)
    done = []
    for k in range(1, s.runs + 1):
        log(f"run {k} of {s.runs} -> {out}/run-{k}")
        one = copy.copy(s)
        one.rotate, one.runs = k - 1, 1
        run_dir = os.path.join(out, f"run-{k}")
        cmd = "load/compare.sh" + "".join(" " + a for a in [*once, "--rotate", str(k - 1), "--out", run_dir])
        try:
            with Procs() as ps:
                rc = Run(one, plan.build_plan(one), run_dir, cmd, ps).run()
        except Fatal as e:
            log(f"error: {e}")
            rc = 1
        if rc:
            log(f"run {k} ended with an error; its steps still count")
        if os.path.isfile(os.path.join(run_dir, "summary.json")):
            done.append(run_dir)
    if not done:
        raise Fatal("no run finished")
    rc, text = report_cli("median", out, *done)
    sys.stderr.write(text)
    log(f"medians of {len(done)} runs: {out}/report.html")
    return 0
