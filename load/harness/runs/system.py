"""What every run design starts and shares, by composition: the tools, the app (the jar, built
when stale, or the native binary), the database, the delay service and the apps, each app's
requests, its sampler and the machine facts. A design holds one System and adds its own schedule
(sequential.py, interleave.py, scale.py)."""
import contextlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass

from harness.analysis import advice
from harness.drivers import Hey, Hyperfoil, Vegeta
from harness.drivers.base import Target, is_loopback
from harness.infra import procs, tools
from harness.infra.catalogue import table
from harness.infra.database import Database
from harness.infra.errors import Fatal
from harness.infra.procs import log, save
from harness.infra.settings import ENV
from harness.runs import plan
from harness.sampling import machine


@dataclass
class App:
    """One series' running app in the interleaved design: process, URL, invocation (0, 1, ...)."""
    series: str
    proc: procs.Proc
    url: str
    invocation: int

    @property
    def pid(self):
        return self.proc.pid


# how every design and launcher starts a process of the app's and waits for it
def app_env(port, delay_port, *envs):
    """An app's environment: ENVS merged in order, then its address and its delay service's."""
    return {k: v for e in envs for k, v in e.items()} | {
        "QUARKUS_HTTP_HOST": "127.0.0.1", "QUARKUS_HTTP_PORT": str(port),
        "QUARKUS_REST_CLIENT_DELAY_URL": f"http://127.0.0.1:{delay_port}"}


def ready(proc, url, wait_s, what):
    """PROC once URL answers 2xx within WAIT_S s; else its log's tail and Fatal naming WHAT."""
    if not procs.wait_ready(proc, url, wait_s) or not proc.alive():
        sys.stderr.write(procs.tail(proc.log_path, 30))
        raise Fatal(f"{what} did not become ready on {url} (log: {proc.log_path})")
    return proc


def start_delay(ps, cmd, port, log_path, env=None, append=False):
    """The delay service (CMD: the jar or binary, run with the `delay` profile) on PORT, ready."""
    proc = ps.start("delay", cmd, log_path=log_path, append=append, env={
        **(env or {}), "QUARKUS_PROFILE": "delay", "QUARKUS_HTTP_HOST": "127.0.0.1",
        "QUARKUS_HTTP_PORT": str(port)})
    return ready(proc, f"http://127.0.0.1:{port}/delay/0", 90, "the delay service")


# a series' process: what it is, when it is ready, what is scraped and sampled of it
def kind(series):
    """The catalogue's kind of SERIES (mode, floor, ladder, bare, helidon); '' if unlisted."""
    return table().kinds.get(plan.base_of(series), "")


def bare(series):
    """True when a process of its own serves SERIES, not the app (kinds `bare`, `helidon`)."""
    return plan.base_of(series) in table().bare


def ready_url(url, series=""):
    """What answers 2xx once SERIES' process at URL serves: the app's readiness check; for a
    process of its own (no readiness check: bare, vt-native) its first scenario's request."""
    if not bare(series):
        return f"{url}/q/health/ready"
    t = table()
    return url + next(t.request(plan.base_of(series), sc) for sc in t.scenarios
                      if (plan.base_of(series), sc) in t.requests).path


def metrics_url(url, series=""):
    """The /q/metrics of the app at URL; '' for a process of its own (nothing scrapes it)."""
    return "" if bare(series) else f"{url}/q/metrics"


def save_metrics(url, series, path):
    """The app's /q/metrics now into PATH (nothing for a process of its own)."""
    if metrics_url(url, series):
        save(procs.fetch(metrics_url(url, series), 5)[1], path)


def jit_ms(pid):
    """The JIT threads' CPU ms so far of process PID; 0 without one (remote app, native)."""
    return int(sample_once(pid, "--once").get("jit_ms", 0)) if pid else 0


def sample_once(pid, *argv):
    """One sampler reading (`--once` or `--scrape-cost URL`) as a dict ({} on failure)."""
    r = subprocess.run([sys.executable, "-m", "harness.sampling.sample", "--pid", str(pid),
                        *argv], capture_output=True, text=True)
    with contextlib.suppress(ValueError):
        return json.loads(r.stdout)
    return {}


def scrape_cost_ms(pid, url, series=""):
    """One /q/metrics scrape's CPU ms in the app at PID and URL, measured once it is warm
    (`sample --scrape-cost`); None for a process nothing scrapes."""
    metrics = metrics_url(url, series)
    return sample_once(pid, "--scrape-cost", metrics).get("scrape_cpu_ms") if metrics else None


class System:
    def __init__(self, s, out, ps):
        self.s, self.out, self.ps = s, out, ps
        self.external = bool(s.app_url)
        self.java = self.java_home = self.runner = ""
        self.taskset, self.placement, self.app_cores = [], "", ""
        self.db = None
        self.url = s.app_url.rstrip("/") if s.app_url else ""

    def prepare(self):
        """Checks the options against each other, builds what is stale, starts the database (in the
        background) and finds the load tools."""
        s = self.s
        os.makedirs(os.path.join(self.out, "logs"), exist_ok=True)
        log(f"results -> {self.out}")
        if self.external:
            if s.app_pid and not os.path.exists(f"/proc/{s.app_pid}"):
                raise Fatal(f"app_pid {s.app_pid}: no such process here")
            if s.native or s.cpus:
                raise Fatal(f"--{'native' if s.native else 'cpus'}: the processes this script "
                            "starts; with --app-url you started the app yourself")
            if any(bare(m) for m in s.modes):
                raise Fatal("--app-url: the series "
                            f"{', '.join(m for m in s.modes if bare(m))} is a process this "
                            "script starts (the bare Vert.x main, vt-native); "
                            "measure it without --app-url")
            if not is_loopback(self.url):
                log(f"{self.url} is another machine: loading it, as --app-url names it")
        # cpus app=N: the app on the last N cores, this runner and all it starts on the others
        if s.cpus:
            self.taskset, self.app_cores, self.placement = procs.place(s.cpus)
            log(f"placement: {self.placement}")
        if not self.external:
            self.java_home = tools.java_home()
            self.java = os.path.join(self.java_home, "bin", "java")
            self.runner = tools.native_runner() if s.native else ""
            if s.native and not self.runner:
                raise Fatal("--native: no target/*-runner. Build it with './mvnw package -Dnative' "
                            "(GraalVM or Mandrel 21+ on PATH, or add "
                            "-Dquarkus.native.container-build=true where Docker runs)")
            if not tools.ensure_jar(self.ps, os.path.join(self.out, "logs", "build.log"), s.rebuild,
                                    s.no_build) and not self.runner:
                raise Fatal(f"no {tools.JAR} (build with ./mvnw package -DskipTests)")
            if any(kind(m) == "helidon" for m in s.modes) and not tools.vtnative_jar(
                    self.ps, os.path.join(self.out, "logs", "build-vtnative.log"), s.rebuild,
                    s.no_build):
                raise Fatal(f"no {tools.VTNATIVE_JAR} "
                            "(build with ./mvnw -f load/vtnative/pom.xml package)")
            self.db = Database.of_env(self.ps, os.path.join(self.out, "logs", "db.log"))
            self.db.start()
        # after the database start, which runs meanwhile (a first run builds Vegeta)
        vegeta, hey = tools.bash_env("ensure_vegeta && ensure_hey", "VEGETA", "HEY")
        self.vegeta, self.hey = Vegeta(vegeta), Hey(hey)
        self.drivers = {"vegeta": self.vegeta, "hey": self.hey}
        if "hyperfoil" in s.tools:
            java = self.java or os.path.join(tools.java_home(), "bin", "java")
            self.drivers["hyperfoil"] = Hyperfoil(tools.hyperfoil_command(
                java, self.ps, os.path.join(self.out, "logs", "build-hyperfoil.log")))

    def driver(self, tool):
        """The driver of TOOL (vegeta, hyperfoil, hey), found or built by prepare."""
        return self.drivers[tool]

    def start_delay(self, port, log_path, env=None, append=False):
        """The delay service (the jar's `delay` profile) on PORT, ready; then the database too."""
        binary = tools.JAR if os.path.isfile(tools.JAR) else self.runner
        cmd = ([self.java, *self.s.delay_java_opts.split(), "-jar", binary]
               if binary.endswith(".jar") else [binary])
        proc = start_delay(self.ps, cmd, port, log_path, env, append)
        if self.db:
            self.db.ready()
        return proc

    def start_app(self, name, port, delay_port, log_path, series="", java_opts=None, env=None):
        """An app of SERIES on PORT against the delay service on DELAY_PORT -> its Proc (not yet
        waited for); for a bare series the bare Vert.x main from the jar's class path, for vt-native
        load/vtnative's jar, each with the app's JVM options and settings."""
        opts = self.s.app_java_opts.split() if java_opts is None else java_opts
        env = app_env(port, delay_port, self.db.env if self.db else {}, self.s.app_env, env or {})
        if bare(series) and self.runner:
            raise Fatal(f"--native: the series {series} runs on the JVM only "
                        "(a process of its own)")
        if kind(series) == "helidon":
            cmd = [self.java, *opts, "-jar", tools.VTNATIVE_JAR]
        elif bare(series):
            cmd = [self.java, *opts, "-cp", tools.app_classpath(), tools.BARE_MAIN]
        else:
            cmd = [self.runner] if self.runner else [self.java, *opts, "-jar", tools.JAR]
        if plan.client_of(series):
            env["BENCH_BLOCKING_CLIENT"] = plan.client_of(series)
        return self.ps.start(name, [*self.taskset, *cmd], log_path=log_path, env=env)

    def train_aot(self, series, delay_port, warm):
        """--aot: one app with -XX:AOTCacheOutput serves all of SERIES' steps (WARM(proc, url,
        SERIES), as the warm-up: each series' mode, the first one's delay client), then exits
        leaving OUT/app.aot, the linked classes and method profiles (JDK 25, JEPs 483 and 515) the
        apps then start from -> its path."""
        path, port = os.path.join(self.out, "app.aot"), procs.free_port()
        log(f"AOT training run: one app serving {', '.join(series)} over the warm-up, "
            f"then -XX:AOTCacheOutput={path}")
        proc = self.start_app(
            "aot training", port, delay_port, os.path.join(self.out, "logs", "aot.log"), series[0],
            java_opts=[*self.s.app_java_opts.split(), f"-XX:AOTCacheOutput={path}"])
        url = f"http://127.0.0.1:{port}"
        self.wait_app(proc, url, "the AOT training run", 180, series[0])
        warm(proc, url, series)
        self.ps.stop(proc, grace_s=120)     # the JVM writes the cache on its way out
        if not os.path.isfile(path) or not os.path.getsize(path):
            raise Fatal(f"the AOT training run wrote no {path} (see {proc.log_path})")
        log(f"AOT cache: {os.path.getsize(path) / 2 ** 20:.0f} MiB")
        return path

    def wait_app(self, proc, url, what, wait_s=120, series=""):
        ready(proc, ready_url(url, series), wait_s, f"the app of {what}")

    def request(self, series, scenario, extra=""):
        """SCENARIO's request in SERIES with the run's parameters (EXTRA: one more, NAME=VALUE)."""
        params = dict(self.s.env)
        if extra:
            k, v = extra.split("=", 1)
            params[k] = v
        return table(params).request(plan.base_of(series), scenario)

    def target(self, url, series, scenario, extra=""):
        return Target((req := self.request(series, scenario, extra)).method, url + req.path,
                      req.body)

    def sampler(self, path, pid, url, delay_pid=None, series=""):
        argv = [sys.executable, "-m", "harness.sampling.sample", "--out", path,
                "--interval", "0.25"]
        if metrics_url(url, series):
            argv += ["--metrics", metrics_url(url, series),
                     "--metrics-interval", self.s.metrics_interval]
        if pid:
            argv += ["--pid", str(pid)]
        if delay_pid:
            argv += ["--also", f"delay={delay_pid}"]
        return self.ps.start("sampler", argv, log_path=path + ".log")

    def _app_desc(self):
        if self.external:
            return (f"external, {self.url} "
                    f"({f'pid {self.s.app_pid}' if self.s.app_pid else 'remote: /q/metrics only'})")
        return (f"native {os.path.basename(self.runner)}" if self.runner
                else f"JVM jar {os.path.basename(tools.JAR)}")

    def write_facts(self, url, started, cmdline, **extra):
        """machine.json: this machine, the JDK, the app's settings (/q/info at URL), run options."""
        s = self.s
        facts = machine.facts(java=self.java or None, app=machine.app_info(url), **{
            "java_opts": s.app_java_opts, "delay_java_opts": s.delay_java_opts, "started": started,
            "command": cmdline, "vegeta": f"vegeta {ENV.vegeta_version} ({self.vegeta.binary})",
            "hey": f"hey ({self.hey.binary})",
            **({"hyperfoil": f"Hyperfoil {tools.hyperfoil_version()} embedded "
                             f"({tools.HYPERFOIL_MAIN})"}
               if "hyperfoil" in self.drivers else {}),
            "reuse": str(int(s.reuse)), "duration": s.duration, "warmup": s.warmup,
            "experiment": s.experiment, "mode_order": plan.mode_order(s),
            "placement": self.placement, "app_cores": self.app_cores,
            "metrics_interval": s.metrics_interval, "cpu_less_jit": True, **extra})
        facts["app"] = self._app_desc()
        if s.env.get("WORKLOAD"):   # advise's answer, on record before the run measures it
            facts["advise"] = advice.registered(s.env["WORKLOAD"],   # every series calibrated:
                                                s.rates or plan.levels("workload")[0])  # any run's
        with open(os.path.join(self.out, "machine.json"), "w") as f:
            json.dump(facts, f, indent=2)
