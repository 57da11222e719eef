"""The startup and memory measurement behind load/startup.sh: repeated starts of the packaged app
per variant (jvm, aot, quarkus-aot, native), time and CPU to the first 200, RSS then and after a
fixed hey load."""
import csv
import glob
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from datetime import datetime

import psutil

from harness.infra import procs
from harness.infra.catalogue import table
from harness.infra.database import Database
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.settings import ENV
from harness.infra.tools import LOAD_DIR, ROOT, bash_env, ensure_jar
from harness.runs import system
from harness.sampling import machine

METRICS = [("first_ok_ms", "first 200 (ms)"), ("cpu_first_ms", "CPU to first 200 (ms)"),
           ("quarkus_started_ms", "Quarkus 'started in' (ms)"),
           ("rss_first_mib", "RSS after first 200 (MiB)"),
           ("rss_load_mib", "RSS after load (MiB)"), ("load_req_per_s", "load throughput (req/s)"),
           ("loadavg_1m", "machine load average during the start (1 min)")]
COLUMNS = ["variant", "run", "first_ok_ms", "cpu_first_ms", "quarkus_started_ms", "rss_first_mib",
           "rss_load_mib", "load_req_per_s", "load_errors", "loadavg_1m"]
DEFAULTS = {"RUNS": "5", "WARMUP_RUNS": "1", "VARIANTS": "jvm,aot,quarkus-aot,native",
            "FIRST_PATH": "/virtual/db",
            "LOAD_PATHS": "/virtual/db,/reactive/db,/worker/io?delay=0,"
                          "/virtual/fanout?delay=5&calls=5",
            "LOAD_REQUESTS": "2000", "LOAD_CONCURRENCY": "20", "TRAIN_REQUESTS": "200",
            "SETTLE": "1", "START_TIMEOUT": "90", "POLL_MS": "5", "JAVA_OPTS": ""}


def params(args):
    """The run's parameters: the flags given over DEFAULTS."""
    p = {k: v if getattr(args, k.lower(), None) is None else getattr(args, k.lower())
         for k, v in DEFAULTS.items()}
    for key in ("RUNS", "LOAD_REQUESTS", "LOAD_CONCURRENCY", "TRAIN_REQUESTS"):
        if not re.fullmatch(r"[1-9][0-9]*", p[key]):
            raise Fatal(f"--{key.lower().replace('_', '-')} must be a positive integer, "
                        f"got '{p[key]}'")
    for key in ("SETTLE", "START_TIMEOUT"):   # seconds, maybe fractional
        if not re.fullmatch(r"[0-9]+(\.[0-9]*)?", p[key]) or float(p[key]) <= 0 and key != "SETTLE":
            raise Fatal(f"--{key.lower().replace('_', '-')} takes seconds (a number), "
                        f"got '{p[key]}'")
    if not re.fullmatch(r"[0-9]+", p["WARMUP_RUNS"]):
        raise Fatal(f"--warmup-runs must be an integer >= 0, got '{p['WARMUP_RUNS']}'")
    for v in p["VARIANTS"].split(","):
        if v not in ("jvm", "aot", "quarkus-aot", "native"):
            raise Fatal(f"unknown variant '{v}' in --variants "
                        "(expected jvm, aot, quarkus-aot, native)")
    return p


def first_ok(url, t0_ns, timeout_s, poll_s, proc):
    """Polls URL until a 200 (in-process: next to no CPU taken from the app); ms since T0."""
    u = urllib.parse.urlsplit(url)
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=5)
            c.request("GET", u.path + ("?" + u.query if u.query else ""))
            if c.getresponse().status == 200:
                return (time.time_ns() - t0_ns) // 1_000_000
        except OSError:
            pass
        if not proc.alive():
            raise Fatal("the app exited before answering")
        time.sleep(poll_s)
    raise Fatal(f"no 200 from {url} within {timeout_s:.0f} s")


def hey_figures(text, n):
    """(seconds, 200s) of one hey text report; the [200] line under 'Status code distribution'."""
    total = re.search(r"Total:\s+([0-9.]+)", text)
    dist = (text.split("Status code distribution", 1)[-1] if "Status code distribution" in text
            else "")
    ok = re.search(r"^\s*\[200\]\s+(\d+)", dist, re.M)
    return (float(total.group(1)) if total else 0.0), (int(ok.group(1)) if ok else 0)


def summarize(rows, notes, machine_facts, prm, out):
    summary = []
    for variant in dict.fromkeys(r["variant"] for r in rows):
        for key, label in METRICS:
            vals = [float(r[key]) for r in rows if r["variant"] == variant and r[key] != ""]
            if vals:
                summary.append({"variant": variant, "metric": key, "label": label, "n": len(vals),
                                "median": statistics.median(vals), "min": min(vals),
                                "max": max(vals)})
        errs = sum(int(r["load_errors"]) for r in rows if r["variant"] == variant)
        summary.append({"variant": variant, "metric": "load_errors", "label": "load errors (sum)",
                        "n": 0, "median": errs, "min": errs, "max": errs})
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, ["variant", "metric", "n", "median", "min", "max"],
                           extrasaction="ignore")
        w.writeheader()
        w.writerows(summary)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"machine": machine_facts, "parameters": prm, "notes": notes, "summary": summary,
                   "runs": rows}, f, indent=2)
    with open(os.path.join(out, "machine.json"), "w") as f:
        json.dump(machine_facts, f, indent=2)

    def fmt(x):
        return f"{x:.0f}" if abs(x) >= 100 or x == int(x) else f"{x:.1f}"
    variants = list(dict.fromkeys(s["variant"] for s in summary))
    lines = ["| metric | " + " | ".join(variants) + " |", "|---|" + "---|" * len(variants)]
    for key, label in [*METRICS, ("load_errors", "load errors (sum)")]:
        cells = []
        for v in variants:
            s = next((s for s in summary if s["variant"] == v and s["metric"] == key), None)
            cells.append("-" if s is None else fmt(s["median"]) if key == "load_errors"
                         else f"{fmt(s['median'])} ({fmt(s['min'])}-{fmt(s['max'])})")
        lines.append(f"| {label} | {' | '.join(cells)} |")
    n = max((s["n"] for s in summary), default=0)
    md = ["# Startup and memory", "",
          f"Median (min-max) of {n} starts per variant. Machine: {machine_facts['cores']} CPUs "
          f"({machine_facts['cpu']}), {machine_facts['memory_mib'] / 1024:.1f} GiB RAM, "
          f"{machine_facts['jdk']}, Linux {machine_facts['kernel']}.", "", *lines, "",
          "Parameters: " + ", ".join(f"{k}={v}" for k, v in prm.items() if v != ""), ""]
    md += ["Note: " + x for x in notes]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(lines))
    for x in notes:
        print("note: " + x)


class Startup:
    def __init__(self, prm, out, work, ps):
        self.p, self.out, self.work, self.ps = prm, out, work, ps
        self.app = self.db = None
        self.base = ""

    def launch(self, variant, log_path, *flags):
        d = os.path.join(self.work, "app-qaot" if variant == "quarkus-aot" else "app")
        cmd = ([os.path.join(self.work, "app-native")] if variant == "native"
               else [self.java, *self.p["JAVA_OPTS"].split(), *flags, "-jar", "quarkus-run.jar"])
        if not procs.port_free(self.app_port):
            self.app_port = procs.free_port()
            log(f"app port taken by another process, now {self.app_port}")
        self.base = f"http://127.0.0.1:{self.app_port}"
        t0 = time.time_ns()
        self.app = self.ps.start("app", cmd, cwd=d, log_path=log_path,
                                 env=system.app_env(self.app_port, self.delay_port, self.db.env))
        return t0

    def first(self, t0):
        return first_ok(self.base + self.p["FIRST_PATH"], t0, float(self.p["START_TIMEOUT"]),
                        int(self.p["POLL_MS"]) / 1000, self.app)

    def stop_app(self, grace_s=20):
        self.ps.stop(self.app, grace_s=grace_s)
        self.app = None

    def load(self, prefix):
        """The fixed load, hey -n LOAD_REQUESTS per path: (req/s, errors)."""
        n_each, total_s, errors, total_n = int(self.p["LOAD_REQUESTS"]), 0.0, 0, 0
        for path in self.p["LOAD_PATHS"].split(","):
            f = f"{prefix}-{re.sub(r'[^A-Za-z0-9]', '_', path)}.txt"
            self.ps.run("hey", [self.hey, "-n", str(n_each), "-c", self.p["LOAD_CONCURRENCY"],
                                "-t", "10", self.base + path], log_path=f, timeout=300)
            secs, ok = hey_figures(procs.tail(f, 10_000), n_each)
            errors += n_each - ok
            total_n += n_each
            total_s += secs
        return round(total_n / total_s) if total_s else 0, errors

    def measure(self, variant, run, writer):
        log_path = os.path.join(self.out, "logs", f"{variant}-{run}.log")
        # AOTMode=on: fail rather than silently run without the cache
        flags = (["-XX:AOTCache=app.aot", "-XX:AOTMode=on"] if variant in ("aot", "quarkus-aot")
                 else [])
        for attempt in (1, 2, 3):
            t0 = self.launch(variant, log_path, *flags)
            try:
                first = self.first(t0)
                break
            except Fatal:
                self.stop_app()
                # the port was taken between the check and the app's bind: start again elsewhere
                if attempt < 3 and "seems to be in use" in procs.tail(log_path, 200):
                    log(f"{variant} run {run}: port {self.app_port} was taken, starting again")
                    self.app_port = procs.free_port()
                    continue
                sys.stderr.write(procs.tail(log_path, 30))
                raise Fatal(f"{variant} run {run}: no first response") from None
        p = psutil.Process(self.app.pid)
        cpu = p.cpu_times()
        cpu1 = round((cpu.user + cpu.system) * 1000)
        rss1 = round(p.memory_info().rss / 2**20, 1)
        m = re.search(r"started in ([0-9.]+)s", procs.tail(log_path, 10_000))
        started = round(float(m.group(1)) * 1000) if m else ""
        rps, errors = self.load(os.path.join(self.out, "logs", f"{variant}-{run}-hey"))
        time.sleep(float(self.p["SETTLE"]))
        rss2 = round(p.memory_info().rss / 2**20, 1)
        self.stop_app()
        log(f"{variant:<11} run {run:<3} first 200 after {first:5} ms, {cpu1:5} ms CPU "
            f"(Quarkus: started in {started or '?'} ms)  RSS {rss1:6} MiB -> {rss2:6} MiB "
            f"after load ({rps} req/s, {errors} errors)")
        if not str(run).startswith("w"):
            writer.writerow([variant, run, first, cpu1, started, rss1, rss2, rps, errors,
                             f"{os.getloadavg()[0]:.2f}"])

    def train(self):
        """The AOT training run: every scenario in every mode, then a clean exit writing app.aot."""
        log(f"AOT training run: -XX:AOTCacheOutput=app.aot, {self.p['TRAIN_REQUESTS']} requests "
            "per scenario and mode")
        log_path = os.path.join(self.out, "logs", "aot-training.log")
        t0 = self.launch("train", log_path, "-XX:AOTCacheOutput=app.aot")
        try:
            self.first(t0)
        except Fatal:
            sys.stderr.write(procs.tail(log_path, 30))
            raise Fatal("the training run did not start") from None
        sc = table({"DELAY": "1", "SLOW_DELAY": "1"})
        hey_log = os.path.join(self.out, "logs", "aot-training-hey.txt")
        for req in sc.requests.values():
            args = ["-n", self.p["TRAIN_REQUESTS"], "-c", "8", "-t", "10", "-m", req.method]
            if req.body:
                args += ["-T", "application/json", "-d", req.body]
            self.ps.run("hey", [self.hey, *args, self.base + req.path], log_path=hey_log,
                        append=True, timeout=120)
        for path in ("/q/health/ready", "/q/metrics", "/delay/0"):
            procs.http_status(self.base + path, 10)
        # on exit the JVM hands the profile to a child JVM that writes the cache; allow it time
        self.stop_app(grace_s=120)
        aot = os.path.join(self.work, "app", "app.aot")
        if not os.path.exists(aot) or not os.path.getsize(aot):
            sys.stderr.write(procs.tail(log_path, 30))
            raise Fatal("the training run wrote no app.aot")
        log(f"app.aot: {os.path.getsize(aot) // 2**20} MiB")
        return os.path.getsize(aot) // 2**20

    def run(self):
        p, a = self.p, self.args
        (java_home,) = bash_env("find_jdk", "JAVA_HOME")
        (self.hey,) = bash_env("ensure_hey", "HEY")
        self.java = os.path.join(java_home, "bin", "java")
        r = subprocess.run([self.java, "-XshowSettings:properties", "-version"],
                           capture_output=True, text=True)
        m = re.search(r"java\.specification\.version = (\d+)", r.stderr)
        java_version = int(m.group(1)) if m else 0
        os.makedirs(os.path.join(self.out, "logs"), exist_ok=True)

        app_dir = self.copy_app()
        qaot = a.quarkus_aot_dir or (app_dir if os.path.isfile(os.path.join(app_dir, "app.aot"))
                                     else "")
        native = a.native_bin or next(iter(sorted(
            glob.glob(os.path.join(ROOT, "target", "*-runner")), key=os.path.getmtime,
            reverse=True)), "")
        notes, variants = self.usable_variants(java_version, java_home, qaot, native)
        for n in notes:
            log(n)
        if not variants:
            raise Fatal("nothing to measure")
        # a MariaDB of its own in its work folder, unless DB_PORT names one load/db.sh runs
        own = None if ENV.db_port else os.path.join(self.work, "db")
        self.db = Database.of_env(self.ps, os.path.join(self.out, "db.log"),
                                  port=procs.free_port(), folder=own)
        self.db.start()
        self.db.ready()
        self.app_port = ENV.app_port or procs.free_port()
        self.delay_port = ENV.delay_port or procs.free_port()
        self.start_delay()

        aot_mib = self.train() if "aot" in variants else ""
        with open(os.path.join(self.out, "runs.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            for k in range(1, int(p["WARMUP_RUNS"]) + 1):
                for v in variants:
                    self.measure(v, f"w{k}", w)
            for k in range(1, int(p["RUNS"]) + 1):
                for v in variants:
                    self.measure(v, k, w)
                    f.flush()
        with open(os.path.join(self.out, "runs.csv")) as f:
            rows = list(csv.DictReader(f))
        facts = machine.facts(java=self.java, java_home=java_home,
                              loadavg_at_end=list(os.getloadavg()))
        prm = {k: p[k] for k in ("RUNS", "WARMUP_RUNS", "FIRST_PATH", "LOAD_PATHS", "LOAD_REQUESTS",
                                 "LOAD_CONCURRENCY", "TRAIN_REQUESTS", "SETTLE", "JAVA_OPTS")}
        prm["aot_cache_mib"] = str(aot_mib)
        summarize(rows, notes, facts, prm, self.out)
        log(f"results in {self.out}")
        return 0

    def copy_app(self):
        """The app's folder (--app-dir, else the jar's, built when missing) copied to WORK/app."""
        app_dir = self.args.app_dir
        if not app_dir:
            app_dir = os.path.dirname(
                ensure_jar(self.ps, os.path.join(self.out, "logs", "build.log"), sources=()))
        if not os.path.isfile(os.path.join(app_dir, "quarkus-run.jar")):
            raise Fatal(f"--app-dir {app_dir} holds no quarkus-run.jar")
        shutil.copytree(app_dir, os.path.join(self.work, "app"), symlinks=True)
        with_aot = os.path.join(self.work, "app", "app.aot")
        if os.path.exists(with_aot):
            os.remove(with_aot)   # the aot variant trains its own cache here
        log(f"app: {app_dir} (copied to {self.work}/app)")
        return app_dir

    def usable_variants(self, java_version, java_home, qaot, native):
        """(notes on the skipped, the variants to measure); copies the apps these need."""
        notes, variants = [], []
        for v in self.p["VARIANTS"].split(","):
            if v == "jvm":
                variants.append(v)
            elif v == "aot":
                if java_version >= 25:
                    variants.append(v)
                else:
                    notes.append(f"aot skipped: the one-step -XX:AOTCacheOutput needs JDK 25+, "
                                 f"this is JDK {java_version} ({java_home})")
            elif v == "quarkus-aot":
                if qaot and os.path.isfile(os.path.join(qaot, "app.aot")) and java_version >= 25:
                    shutil.copytree(qaot, os.path.join(self.work, "app-qaot"), symlinks=True)
                    variants.append(v)
                else:
                    notes.append("quarkus-aot skipped: no app.aot built by Quarkus in APP_DIR or "
                                 "QUARKUS_AOT_DIR (./mvnw package -DskipTests "
                                 "-Dquarkus.package.jar.appcds.enabled=true "
                                 "-Dquarkus.package.jar.appcds.use-aot=true, JDK 25+)")
            elif native and os.access(native, os.X_OK):
                shutil.copy2(native, os.path.join(self.work, "app-native"))
                variants.append(v)
            else:
                notes.append("native skipped: no native executable (build one with ./mvnw package "
                             "-Dnative, or -Dnative -Dquarkus.native.container-build=true without "
                             "GraalVM; or set NATIVE_BIN)")
        return notes, variants

    def start_delay(self):
        """Starts the delay service (QUARKUS_PROFILE=delay) and waits until it answers."""
        log(f"delay service: JVM, QUARKUS_PROFILE=delay, 127.0.0.1:{self.delay_port}")
        jar = os.path.join(self.work, "app", "quarkus-run.jar")
        system.start_delay(self.ps, [self.java, "-jar", jar], self.delay_port,
                           os.path.join(self.out, "logs", "delay.log"))


def run(args):
    prm = params(args)
    out = os.path.abspath(args.out or os.path.join(LOAD_DIR, "results",
                                                   f"startup-{datetime.now():%Y%m%d-%H%M%S}"))
    work = tempfile.mkdtemp(prefix="vtvr-startup.")
    try:
        with Procs() as ps:
            startup = Startup(prm, out, work, ps)
            startup.args = args
            return startup.run()
    finally:
        shutil.rmtree(work, ignore_errors=True)
