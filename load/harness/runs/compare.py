"""`compare` (load/compare.sh): the settings of a run and the design that runs it: sequential (one mode at a time,
sequential.py), interleaved or duet (interleave.py), or the scale experiment (scale.py); N sequential runs and
their medians (--runs)."""
import copy
import os
import sys
from datetime import datetime

from harness.drivers.base import Load
from harness.drivers.hyperfoil import benchmark
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.tools import LOAD_DIR
from harness.runs import interleave, plan, scale
from harness.runs.sequential import Sequential, report_cli
from harness.runs.system import System


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


def write_agent_benchmarks(s, steps, out):
    """--agents: each Hyperfoil step of STEPS as a benchmark for a Hyperfoil controller, its agents S.agents (the
    rate split between them by Hyperfoil), against --app-url (or the default local app), into OUT/hyperfoil/."""
    url = s.app_url.rstrip("/") or "http://127.0.0.1:8080"
    folder = os.path.join(out, "hyperfoil")
    os.makedirs(folder, exist_ok=True)
    system = System(s, out, None)
    for i, st in enumerate(steps, 1):
        if st.tool != "hyperfoil":
            continue
        name = f"{i:03d}-{st.scenario}-{st.series.replace('+', '-')}-{st.level}"
        text = benchmark(name, system.target(url, st.series, st.scenario, st.extra),
                         Load(st.level, s.ramp_ms + s.duration_ms, s.timeout_s, ramp_ms=s.ramp_ms), agents=s.agents)
        with open(os.path.join(folder, name + ".hf.yaml"), "w") as f:
            f.write(text)
    print(f"Hyperfoil benchmarks for {len(s.agents)} agents ({', '.join(s.agents)}) -> {folder}/")


def default_out():
    return os.path.join(LOAD_DIR, "results", datetime.now().strftime("%Y%m%d-%H%M%S"))


def cmdline(argv):
    return "load/compare.sh" + "".join(" " + a for a in argv)


def run(args):
    """`compare`: one run, N runs and their medians (--runs), or the plan (--dry-run)."""
    s = plan.settings(args)
    out = os.path.abspath(s.out or default_out())
    if s.agents and s.design != "sequential":
        raise Fatal("--agents: the benchmarks of a sequential plan (add --design sequential)")
    if s.experiment == "scale":
        return scale.run(s, out, cmdline(args.argv))
    if s.design != "sequential":
        return interleave.run(s, out, cmdline(args.argv))
    steps = plan.build_plan(s)
    if s.dry_run:
        for i, st in enumerate(steps, 1):
            print(f"{i:3d}. {st}")
        n_modes = len(dict.fromkeys(x.series for x in steps))
        print(f"{len(steps)} steps of {s.duration}, warm-up {s.warmup} per mode, "
              f"{len(plan.app_starts(steps, s.reuse))} app start(s): about {plan.estimate_s(s, steps):.0f} s "
              f"({n_modes} series)")
        if s.agents:
            write_agent_benchmarks(s, steps, out)
        return 0
    if s.runs == 1:
        with Procs() as ps:
            return Sequential(s, steps, out, cmdline(args.argv), ps).run()
    os.makedirs(out, exist_ok=True)
    once = one_run_argv(args.argv)
    done = []
    for k in range(1, s.runs + 1):
        log(f"run {k} of {s.runs} -> {out}/run-{k}")
        one = copy.copy(s)
        one.rotate, one.runs = k - 1, 1
        run_dir = os.path.join(out, f"run-{k}")
        try:
            with Procs() as ps:
                rc = Sequential(one, plan.build_plan(one), run_dir,
                                cmdline([*once, "--rotate", str(k - 1), "--out", run_dir]), ps).run()
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
