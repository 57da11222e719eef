"""`compare` (load/compare.sh): a run's settings and the design that runs it: sequential (one mode
at a time, sequential.py), interleaved or duet (interleave.py), the scale or coldstart experiment
(scale.py, coldstart.py); N sequential runs and their medians (`--set runs=N`)."""
import copy
import os
import sys
from datetime import datetime

from harness.drivers.base import Load, Target
from harness.drivers.hyperfoil import benchmark
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.tools import LOAD_DIR
from harness.runs import coldstart, interleave, plan, quick, scale
from harness.runs.sequential import Sequential, report_cli, step_name, write_meta
from harness.runs.system import System


def one_run_argv(argv):
    """ARGV without --out, `--set runs=`, `--set rotate=` and values: one of N runs' argv."""
    once, skip = [], False
    for a, nxt in zip(argv, [*argv[1:], ""]):
        if skip:
            skip = False
        elif (a == "--out"
              or a == "--set" and nxt.replace("-", "_").startswith(("runs=", "rotate="))):
            skip = True
        elif not a.startswith(("--out=", "--set=runs=", "--set=rotate=")):
            once.append(a)
    return once


def write_agent_benchmarks(s, steps, out):
    """agents: each Hyperfoil step of STEPS as a folder OUT/steps/NNN-.../ (meta.json and
    results.hf.yaml, a benchmark for a controller with agents S.agents, which split the rate)
    against --app-url (or the local app). `report hyperfoil` reads each all.json back into it."""
    url = s.app_url.rstrip("/") or "http://127.0.0.1:8080"
    system, n = System(s, out, None), 0
    for i, st in enumerate(steps, 1):
        if st.tool != "hyperfoil":
            continue
        d = os.path.join(out, "steps", step_name(i, st))
        os.makedirs(d, exist_ok=True)
        req = system.request(st.series, st.scenario, st.extra)
        write_meta(d, s, i, st, req, url)
        with open(os.path.join(d, "results.hf.yaml"), "w") as f:
            f.write(benchmark(step_name(i, st), Target(req.method, url + req.path, req.body),
                              Load(st.level, s.ramp_ms + s.duration_ms, s.timeout_s,
                                   ramp_ms=s.ramp_ms), agents=s.agents))
        n += 1
    print(f"{n} Hyperfoil benchmark(s) for {len(s.agents)} agents "
          f"({', '.join(a or 'a pod' for a in s.agents)}) -> {out}/steps/*/results.hf.yaml")


def default_out():
    return os.path.join(LOAD_DIR, "results", datetime.now().strftime("%Y%m%d-%H%M%S"))


def cmdline(argv):
    return "load/compare.sh" + "".join(" " + a for a in argv)


def first_look(s, args):
    """A plain --quick (no design, experiment, scenario, workload, remote app or runs > 1):
    runs/quick.py, what three minutes can decide; otherwise --quick shortens that design's run."""
    return s.quick and not (args.design or s.experiment or s.scenarios_given or s.app_url
                            or s.runs > 1 or s.agents)


def run(args):
    """`compare`: one run, N runs and their medians (`--set runs=N`), or the plan (--dry-run)."""
    s = plan.settings(args)
    out = os.path.abspath(s.out or default_out())
    if s.agents and s.design != "sequential":
        raise Fatal("agents: the benchmarks of a sequential plan (add --design sequential)")
    if s.experiment == "scale":
        return scale.run(s, out, cmdline(args.argv))
    if s.experiment == "coldstart":
        return coldstart.run(s, out, cmdline(args.argv), plan.flag(args, "starts"),
                             s.duration_ms // 1000 if args.duration else 60)
    if first_look(s, args):
        if s.dry_run:
            print("\n".join(f"{i}. {name}: about {sec:.0f} s"
                            for i, (name, sec) in enumerate(quick.STAGES, 1)))
            print(f"about {sum(sec for _, sec in quick.STAGES) / 60:.1f} minutes")
            return 0
        return quick.run(s, out, cmdline(args.argv))
    if s.design != "sequential":
        return interleave.run(s, out, cmdline(args.argv))
    steps = plan.build_plan(s)
    if s.dry_run:
        for i, st in enumerate(steps, 1):
            print(f"{i:3d}. {st}")
        n_modes = len(dict.fromkeys(x.series for x in steps))
        print(f"{len(steps)} steps of {s.duration}, warm-up {s.warmup} per mode, "
              f"{len(plan.app_starts(steps, s.reuse))} app start(s): "
              f"about {plan.estimate_s(s, steps):.0f} s ({n_modes} series)")
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
                                cmdline([*once, "--set", f"rotate={k - 1}", "--out", run_dir]),
                                ps).run()
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
