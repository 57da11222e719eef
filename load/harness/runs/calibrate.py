"""`calibrate` (load/calibrate.sh): measures what a request's parts cost each series on this machine
(the workload scenario at shapes varying one part at a time, at two rates, in random order,
repeated), fits the cost model (analysis/costmodel.py) and writes DIR/calibration.json and .md;
load/results/calibration.json is the newest, which `advise` reads by default (docs/advise.md)."""
from __future__ import annotations

import contextlib
import os
import random
import shutil
import statistics
import time
from dataclasses import asdict
from datetime import UTC, datetime

import psutil

from harness.analysis import costmodel, costrecords
from harness.analysis.advice import LATEST
from harness.analysis.costmodel import SHAPE_KEYS, Calibration
from harness.infra.catalogue import table
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.tools import LOAD_DIR
from harness.runs import options
from harness.runs.costbench import SCENARIO, Bench
from harness.sampling import machine

SERIES = ("virtual", "worker", "reactive", "virtual+socket", "worker+socket")


def shape(**items):
    """A shape: delay 20 ms unless given, every other item 0 unless given."""
    return {k: items.get(k, 20 if k == "delay" else 0) for k in SHAPE_KEYS}


# (shape, rates, kind): each varies one part, at a low and a high rate (the rate term); fan-out at
# two sizes, to split its cost per fan-out and per call (one size over-predicted larger ones by
# 22-60 %: docs/advise.md); the 1 s waits put 50 and 150 requests in flight for memory and threads
# (150: under the worker pool's 200)
DESIGN = (
    (shape(), (150, 1500), "cpu"),
    (shape(calls=2), (150, 1500), "cpu"),
    (shape(fanout=2), (100, 800), "cpu"),
    (shape(fanout=8), (80, 400), "cpu"),
    (shape(queries=4), (100, 800), "cpu"),
    (shape(cpu=50000), (100, 400), "cpu"),
    (shape(insert=1), (150, 1500), "cpu"),
    (shape(calls=1, delay=1000), (50, 150), "memory"),
)
# the warm-up: every design shape at its lower rate, so every path is compiled before a trial
WARM = tuple((sh, rates[0]) for sh, rates, _ in DESIGN)
# the ceiling sweep on one shape: the unloaded rate, then up by about a third until p99 grew 500 ms
# (costrecords.sweep_far): p99's growth against the busy share sets every shape's ceiling
SWEEP_SHAPE = shape(calls=1)
SWEEP_RATES = (50, 800, 1100, 1500, 2000, 2600, 3400, 4400, 5700, 7400)


def run(args):
    if args.refit:
        return refit(args.refit, args.out)
    series = tuple(x for x in (args.modes or ",".join(SERIES)).split(",") if x)
    unknown = [x for x in series if x not in SERIES]
    if unknown:
        raise Fatal(f"--modes: {', '.join(unknown)} unknown (one of {', '.join(SERIES)})")
    quick = args.quick
    reps = options.whole(args, "reps", 1 if quick else 3, 1, what="a whole number from 1")
    seconds = options.positive(args, "seconds", 1 if quick else 2.0)
    out = os.path.abspath(args.out or os.path.join(
        LOAD_DIR, "results", "calibrate-" + datetime.now().strftime("%Y%m%d-%H%M%S")))
    seed = options.whole(args, "seed", random.randrange(2 ** 31))
    rng = random.Random(seed)
    t0 = time.monotonic()
    log(f"calibrate: {', '.join(series)}; {reps} repetitions of "
        f"{sum(len(r) for _, r, _ in DESIGN)} trials of {seconds:g} s per series, "
        f"seed {seed} -> {out}")
    trials = []
    with Procs() as ps, contextlib.closing(Bench(series, out, ps, seconds)) as bench:
        bench.start()
        bench.warm(WARM, most_s=30 if quick else 90, jit_pct=5)   # settled() drops the rest
        bounds = {x: bench.bounds(x) for x in series}
        trials += [bench.idle(x, seconds) for x in series]
        todo = [(x, sh, r, kind) for x in series for sh, rates, kind in DESIGN for r in rates]
        for k in range(reps):
            rng.shuffle(todo)
            for i, (x, sh, r, kind) in enumerate(todo):
                trials.append(bench.trial(x, sh, r, kind))
                if i % 10 == 9:
                    log(f"repetition {k + 1} of {reps}: {i + 1} of {len(todo)} trials "
                        f"({(time.monotonic() - t0) / 60:.1f} min so far)")
        for x in series:
            trials += sweep(bench, x, SWEEP_SHAPE, SWEEP_RATES[:4] if quick else SWEEP_RATES,
                            costrecords.sweep_far)
        facts = machine.facts(java=bench.sys.java, app=machine.app_info(bench.apps[series[0]].url),
                              command="load/calibrate.sh " + " ".join(args.argv), seed=seed,
                              reps=reps, seconds=seconds,
                              date=datetime.now(UTC).isoformat(timespec="seconds"),
                              java_opts=bench.s.app_java_opts, took_s=None,
                              workload_params=[asdict(p) for p in table().params_of[SCENARIO]],
                              workload_deadline_ms=table().deadline_ms[SCENARIO])
    facts["took_s"] = round(time.monotonic() - t0)
    return publish(fit(facts, trials, bounds), out, latest=not quick)   # --quick only checks


def fit(facts, trials, bounds):
    """The Calibration of TRIALS: every series' model (costmodel.fit_series) on FACTS' machine, and
    the machine's speed through them (`speed_us`: the yardstick's median, advice.speed_factor)."""
    ncores = facts.get("cores") or psutil.cpu_count()
    speeds = [t.speed_us for t in trials if t.speed_us]
    facts = {**facts, "speed_us": statistics.median_low(speeds) if speeds else None}
    return Calibration(facts, {
        x: costmodel.fit_series(x, [t for t in trials if t.series == x], b, ncores)
        for x, b in bounds.items()}, trials)


# what calibrations pooled must share: one machine and one app (docs/advise.md)
SAME = ("cpu", "cores", "memory_mib", "app_java", "quarkus", "java_opts")


def refit(paths, out=None):
    """--refit: the model fitted again on the trials of PATHS (calibration.json files), measuring
    nothing: one in its own folder, several pooled (their trials together) into OUT. Two
    calibrations of one machine predicted ceilings a median 15 % apart (docs/advise.md)."""
    cals = [Calibration.read(p, models=False) for p in paths]
    differ = [k for k in SAME if len({str(c.facts.get(k)) for c in cals}) > 1]
    if differ:
        raise Fatal(f"cannot pool calibrations whose {', '.join(differ)} differ: "
                    f"{', '.join(paths)}")
    if len(cals) > 1 and not out:
        raise Fatal("pooling calibrations needs --out DIR (each keeps its own folder)")
    facts = dict(cals[0].facts)
    if len(cals) > 1:
        facts["pooled"] = [{k: c.facts.get(k) for k in ("date", "seed", "git_commit", "took_s")}
                           for c in cals]
        facts["took_s"] = sum(c.facts.get("took_s") or 0 for c in cals)
    bounds = {x: m["bounds"] for x, m in Calibration.raw(paths[0])["series"].items()}
    out = os.path.abspath(out) if out else os.path.dirname(os.path.abspath(paths[0]))
    os.makedirs(out, exist_ok=True)
    return publish(fit(facts, [t for c in cals for t in c.trials], bounds), out)


def publish(cal, out, latest=True):
    """OUT/calibration.json and .md, the newest copy advise reads (LATEST), and the page."""
    path = os.path.join(out, "calibration.json")
    cal.write(path)
    with open(os.path.join(out, "calibration.md"), "w") as f:
        f.write(page(cal))
    if latest:
        os.makedirs(os.path.dirname(LATEST), exist_ok=True)
        shutil.copyfile(path, LATEST)
    log(f"calibration ({cal.facts['took_s'] / 60:.1f} min of measuring): {path}"
        + (f" (and {LATEST}, which advise reads)" if latest else ""))
    print(page(cal))
    return 0


def sweep(bench, series, sh, rates, until=costmodel.sweep_ceiling):
    """SH on SERIES at each of RATES in turn until UNTIL(the trials so far) (default: the p99
    doubled against the first, unloaded one, which runs longer: its p99 is the yardstick)."""
    done = []
    for i, r in enumerate(rates):
        t = bench.trial(series, sh, r, "sweep", seconds=bench.seconds * (2 if i == 0 else 1))
        done.append(t)
        if len(done) > 1 and until(done):
            break
    return done


def page(cal):
    """calibration.md: every series' components with their intervals, its bounds and the sweep."""
    f, series = cal.facts, list(cal.series)
    cell = "{:.3f} [{:.3f}, {:.3f}]".format
    lines = [f"# Calibration: {f.get('cpu')}, {f.get('cores')} cores, {f.get('date')}", "",
             f"{f.get('jdk')}; Quarkus {f.get('quarkus')}; commit {f.get('git_commit')}; "
             f"{f.get('reps')} repetitions of {f.get('seconds')} s trials, "
             f"{f.get('took_s')} s in all"
             + (f", the machine's yardstick {f['speed_us']:.1f} us in the median"
                if f.get("speed_us") else "")
             + (f", {len(f['pooled'])} calibrations pooled (seeds "
                f"{', '.join(str(x['seed']) for x in f['pooled'])})" if f.get("pooled") else "")
             + " (docs/advise.md). The app's CPU ms per request for each "
             "part on a full machine (each operation costs 1 + beta times that on an idle one) and "
             "the cores busy whatever the rate, fitted on relative errors, with 95 % intervals:",
             "",
             "| part | " + " | ".join(series) + " |", "|---" * (len(series) + 1) + "|"]
    terms = {x: m.cpu.terms() for x, m in cal.series.items()}
    for name in costmodel.APP_TERMS:
        what = {"mdiv": "per million divisions (cpu)", "per_second": "cores busy whatever the rate",
                "per_s_waited": "per second a request waits (delay calls)",
                "fanout_step": "per fan-out (once, whatever its calls)"}.get(name, name)
        lines.append(f"| {what} | " + " | ".join(cell(*terms[x][name]) for x in series) + " |")
    rows = (("beta: the app's, the machine's", lambda m: f"{m.beta:g}, {m.beta_machine:g}"),
            ("idle CPU, cores", lambda m: f"{m.idle_cores:.3f}"),
            ("RSS MiB, no request waiting", lambda m: cell(*m.memory.terms()["idle"])),
            ("RSS KiB per waiting request",
             lambda m: cell(*(v * 1024 for v in m.memory.terms()["per_request"]))),
            ("threads, none waiting", lambda m: f"{m.threads.terms()['idle'][0]:.0f}"),
            ("p99 doubled at (req/s)",
             lambda m: f"{m.sweep_ceiling:.0f}" if m.sweep_ceiling else "not reached"),
            ("share of the cores then",
             lambda m: f"{100 * m.util_max:.0f} %" if m.sweep_ceiling else "-"))
    lines += [f"| {name} | " + " | ".join(fn(cal.series[x]) for x in series) + " |"
              for name, fn in rows]
    lines += ["", "Bounds read from each app's /q/info:", ""]
    lines += [f"- {x}: " + (", ".join(f"{k} {v}" for k, v in m.bounds.items()) or "none")
              for x, m in cal.series.items()]
    return "\n".join(lines) + "\n"
