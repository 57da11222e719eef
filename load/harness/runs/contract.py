"""The API contract check behind load/contract.sh: Schemathesis (the `contract` extra) against the
packaged app and its /q/openapi document, with the embedded database, twice (fixed, random seed)."""
import os
import random
import re
import subprocess
import sys
import time
from datetime import datetime

from harness.infra import procs
from harness.infra.database import Database
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.tools import LOAD_DIR, bash_env, ensure_jar
from harness.runs import system

# Smaller limits than the defaults: no generated request waits seconds (the document reads them too)
APP_ENV = {"BENCH_MAX_DELAY": "500", "BENCH_MAX_CALLS": "10", "BENCH_MAX_N": "100000",
           "BENCH_MAX_QUERIES": "50"}
# One worker: with more, Hypothesis parsing lambdas in several threads hit a CPython 3.11 fault
# ("AST constructor recursion depth mismatch", a RuntimeError)
# which answers count as refusing invalid data (414/431/413 beside Schemathesis'): the file says why
CONFIG = os.path.join(os.path.dirname(__file__), "schemathesis.toml")
# Bounded by cases, not time (--max-time repeats fuzzing and stateful until spent): --max-examples
# bounds fuzzing per operation, schemathesis.toml the stateful scenarios. `--checks all` holds every
# answer to 10 s unless told otherwise: beside CI's slow tests on 2026-12-07 one 1.7-s request
# (elapsedMs) reached Schemathesis after 22 s, the rest under 3.6 s; a hang is what the check is
# for, so the limit is the request's timeout (the longest request these limits allow: about 6 s)
ST_OPTIONS = ["--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
              "--workers", "1", "--request-timeout", "30", "--max-response-time", "30",
              "--no-color", "--report", "junit,ndjson"]


def cases(output):
    """The number of test cases Schemathesis' summary says it generated (0 when it printed none)."""
    found = re.findall(r"(\d+) generated", output)
    return int(found[-1]) if found else 0


def server_errors(report_dir):
    """How many answers in the run's ndjson events had a 5xx status."""
    n = 0
    for root, _, files in os.walk(report_dir):
        for name in files:
            if name.endswith(".ndjson"):
                with open(os.path.join(root, name), errors="replace") as f:
                    n += sum(len(re.findall(r'"status_code":\s*5\d\d', line)) for line in f)
    return n


def run(args):
    max_examples, seed, min_cases = args.max_examples, args.seed, args.min_cases
    for name, value in (("--max-examples", max_examples), ("--seed", seed),
                        ("--min-cases", min_cases)):
        if not re.fullmatch(r"[0-9]+", value):
            raise Fatal(f"{name} must be a whole number, not '{value}'")
    out = os.path.join(LOAD_DIR, "results", f"contract-{datetime.now():%Y%m%d-%H%M%S}")
    os.makedirs(out, exist_ok=True)
    (java_home,) = bash_env("find_jdk", "JAVA_HOME")
    st = os.path.join(os.path.dirname(sys.executable), "st")
    if not os.access(st, os.X_OK):
        raise Fatal(f"no Schemathesis at {st}: install the contract extra "
                    "(pip install -e 'load[contract]')")
    with Procs() as ps:
        jar = ensure_jar(sources=())   # the jar verify built; built here when missing
        db = Database.of_env(ps, os.path.join(out, "db.log"))
        db.start()
        db.ready()
        port = procs.free_port()
        app, app_log = f"http://127.0.0.1:{port}", os.path.join(out, "app.log")
        env = {**APP_ENV, "QUARKUS_HTTP_PORT": str(port), **db.env}
        system.ready(ps.start("app", [os.path.join(java_home, "bin", "java"), "-jar", jar],
                              log_path=app_log, env=env), f"{app}/q/health/ready", 90, "the app")
        log(f"app on {app} (log: {app_log})")
        failed, total = False, 0
        for s in (int(seed), random.randrange(2**30)):
            schema = f"{app}/q/openapi?format=json"
            log(f"schemathesis, seed {s}, fuzzing {max_examples} cases per operation (replay: "
                f"st run '{schema}' --url {app} -c all -n {max_examples} --seed {s})")
            run_log, reports = os.path.join(out, f"seed-{s}.log"), os.path.join(out, f"seed-{s}")
            with open(run_log, "w") as f:
                tee = ps.start(f"schemathesis {s}",
                               [st, "--config-file", CONFIG, "run", schema, "--url", app,
                                *ST_OPTIONS, "--seed", str(s), "--max-examples", max_examples,
                                "--report-dir", reports], stdout=subprocess.PIPE)
                t0 = time.monotonic()
                for line in tee.popen.stdout:
                    text = line.decode(errors="replace")
                    sys.stdout.write(text)
                    f.write(text)
                rc = tee.wait()
                took = time.monotonic() - t0
                ps.forget(tee)
            with open(run_log) as f:
                n = cases(f.read())
            errors, total = server_errors(reports), total + n
            log(f"seed {s}: exit {rc}, {n} test cases generated in {took:.0f} s "
                f"({n / max(took, 1e-9):.1f}/s), {errors} answers with a 5xx status")
            if rc != 0 or errors:
                failed = True
        if total < int(min_cases):
            log(f"the two runs generated {total} test cases, fewer than --min-cases {min_cases}")
            failed = True
        if failed:
            raise Fatal(f"the API contract check failed (reports: {out})")
        log(f"the API contract holds (reports: {out})")
        return 0
