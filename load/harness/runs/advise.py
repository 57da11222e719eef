"""`advise`: a workload's predicted cost per series from a calibration, in under a second and
without starting anything; `--verify` measures it too (a sweep per series on calibrate's bench) and
puts prediction and measurement side by side (docs/advise.md)."""
from __future__ import annotations

import contextlib
import json
import os
import random
import statistics
import sys
from datetime import datetime

from harness.analysis import costmodel, costrecords
from harness.analysis.advice import (
    CEILING_WITHIN,
    CPU_WITHIN,
    calibration_path,
    deadline_ms,
    error_at_speed,
    label,
    order,
    other_day,
    other_machine,
    parse_shape,
    predictions,
    recommend,
    speed_factor,
    table,
    workload_params,
)
from harness.analysis.costmodel import Calibration
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log
from harness.infra.shape import refuse
from harness.infra.tools import LOAD_DIR
from harness.runs import options

# verify: the CPU points (shares of the predicted ceiling), then the sweep's (until p99 doubles)
CPU_SHARES = (0.2, 0.5, 0.8)
SWEEP_SHARES = (0.9, 1.0, 1.1, 1.2, 1.35, 1.5, 1.75, 2.0, 2.5, 3.0)
# ... and down from its first loaded step when that one crossed already: the first crossing lies
# below it (until 2026-11-29 such a ceiling was read as 0.9 x the prediction, an upper bound)
BELOW_SHARES = (0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2)


def run(args):
    """The answer for each workload at each rate (the flags, else the settings file's)."""
    cal = Calibration.read(calibration_path(args.calibration))
    series = options.csv(options.flag(args, "modes"))
    unknown = [x for x in series if x not in cal.series]
    if unknown:
        raise Fatal(f"--modes: {', '.join(unknown)} not in the calibration "
                    f"({', '.join(cal.series)})")
    params = workload_params(cal)
    given = args.workload or [w for w in [options.flag(args, "workload")] if w]
    shapes = [parse_shape(w, params) for w in given]
    if not shapes:
        raise Fatal("--workload SHAPE is needed, e.g. --workload 'calls=3,delay=50,queries=2'")
    rates = ((options.positive(args, "rate", 0),) if args.rate is not None
             else options.ints(options.flag(args, "rates"), "rates"))
    if not rates and not args.verify:
        raise Fatal("--rate REQ_PER_S is needed (a positive number)")
    wanted = series or (("virtual", "worker", "reactive") if args.verify else tuple(cal.series))
    # --verify would measure the app's 400 answers: an error in any series
    refused = {label(sh): refused_by(cal, sh, wanted, not args.verify) for sh in shapes}
    if args.verify:
        return verify(args, cal, shapes, wanted)
    f = cal.facts
    elsewhere, aged = other_machine(f), other_day(f)
    answers = {}
    for sh, rate in ((sh, r) for sh in shapes for r in rates):
        no = refused[label(sh)]
        preds = predictions(cal, sh, rate, [x for x in wanted if x not in no])
        answer = recommend(preds, rate, sh) if preds else ""
        answers[label(sh) if len(rates) == 1 else f"{label(sh)} at {rate:g} req/s"] = (
            preds, no, answer)
        if not args.json:
            print(f"Workload: {label(sh)} at {rate:g} req/s (calibrated on {f.get('cpu')}, "
                  f"{f.get('cores')} cores, {f.get('date')}; 95 % intervals)\n")
            for x, why in no.items():   # before any figure: nothing is predicted for it
                print(f"{x}: not predicted, the app refuses this workload there (400): {why}\n")
            if preds:
                print(answer + "\n")   # the answer first, then its figures
                print(table(preds) + "\n")
            for note in (elsewhere, aged):
                if note:
                    print(note + "\n")
    if args.json:
        one = len(answers) == 1
        doc = {lab: {"modes": {x: p.as_dict() for x, p in preds.items()}, "refused": no,
                     **order(preds), "answer": answer,
                     "other_machine": elsewhere or None, "other_day": aged or None}
               for lab, (preds, no, answer) in answers.items()}
        json.dump(next(iter(doc.values())) if one else doc, sys.stdout, indent=1)
        print()
    return 0


def refused_by(cal, shape, series, allow_some=True):
    """{series: why} for those of SERIES whose calibrated app refuses SHAPE with 400 (its deadline,
    its modes' own bounds: shape.refuse); Fatal when every one does (any: ALLOW_SOME=False)."""
    return refuse(shape, series, workload_params(cal), deadline_ms(cal), allow_some,
                  f"workload {label(shape)}")


def verify(args, cal, shapes, series):
    """Each SHAPE measured on SERIES: CPU at CPU_SHARES of each series' predicted ceiling, then up
    the sweep until p99 doubles; prediction and measurement to OUT/verify.md and verify.json."""
    from harness.runs.calibrate import WARM  # here: advise alone skips the bench's 0.5 s of imports
    from harness.runs.costbench import Bench
    out = os.path.abspath(args.out or os.path.join(
        LOAD_DIR, "results", "verify-" + datetime.now().strftime("%Y%m%d-%H%M%S")))
    ncores = cal.facts.get("cores") or 1
    if other_machine(cal.facts):   # another machine's predictions: the check says little here
        log(other_machine(cal.facts))
    rows, trials = [], []
    seconds = options.positive(args, "seconds", 3)   # every option read before anything starts
    repeat = options.whole(args, "repeat", 2, 1, what="a whole number from 1")
    seed = options.whole(args, "seed", 0)
    with Procs() as ps, contextlib.closing(Bench(series, out, ps, seconds)) as bench:
        bench.start()
        bench.warm(WARM + tuple((sh, 100) for sh in shapes), most_s=150)
        rng = random.Random(seed or None)
        for sh in shapes:
            for x in series:
                ceiling = costmodel.predict(cal.series[x], sh, 100.0, ncores).max_rate.value
                # this shape's paths compiled first (a new shape restarts the JIT: docs/advise.md)
                trials += bench.settle(x, sh, max(1, round(ceiling * 0.5)))
                points = [max(1, round(ceiling * k))
                          for k in CPU_SHARES for _ in range(repeat)]
                rng.shuffle(points)
                got = [bench.trial(x, sh, r, "cpu") for r in points]
                unloaded = max(1, min(50, round(ceiling * 0.05)))
                swept = confirmed_sweep(
                    bench, x, sh, [unloaded] + [max(2, round(ceiling * k)) for k in SWEEP_SHARES],
                    [r for r in (round(ceiling * k) for k in BELOW_SHARES) if r > unloaded])
                trials += got + swept
                rows += verify_rows(cal.series[x], sh, got, swept, ncores,
                                    speed_factor(cal.facts, [t.speed_us for t in got + swept]))
                log(f"verified {label(sh)} on {x}: "
                    + "; ".join(r["line"] for r in rows[-len(CPU_SHARES) - 1:]))
    doc = {"calibration": cal.facts, "rows": rows, "trials": costmodel.Trial.table(trials)}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "verify.json"), "w") as fh:
        json.dump(doc, fh, separators=(",", ":"))
    text = verify_page(rows, cal)
    with open(os.path.join(out, "verify.md"), "w") as fh:
        fh.write(text)
    print(text)
    log(f"verify -> {out}/verify.md")
    return 0


def confirmed_sweep(bench, series, sh, rates, below=()):
    """SH on SERIES at each of RATES in turn (the first, unloaded, twice as long: its p99 is the
    yardstick); a step whose p99 crossed twice the unloaded one is measured once more right after,
    and the sweep ends when the repeat crosses too (costrecords.confirmed_ceiling). When that was
    the first loaded step, down BELOW (descending) until a step does not cross twice. The trials
    in ascending rate, so confirmed_ceiling reads the first crossing from below."""
    done = []
    for i, r in enumerate(rates):
        done.append(bench.trial(series, sh, r, "sweep",
                                seconds=bench.seconds * (2 if i == 0 else 1)))
        if i and _crossed(bench, series, sh, done):
            break
    if len(rates) > 1 and costrecords.confirmed_ceiling(done) == rates[1]:
        for r in below:
            done.append(bench.trial(series, sh, r, "sweep"))
            if not _crossed(bench, series, sh, done):
                break
    return sorted(done, key=lambda t: t.rate)


def _crossed(bench, series, sh, done):
    """True when DONE's last step crossed twice the unloaded p99 (DONE[0]) and its repeat, measured
    now and added to DONE, crossed too."""
    if not costmodel.sweep_ceiling([done[0], done[-1]]):
        return False
    done.append(bench.trial(series, sh, done[-1].rate, "sweep"))
    return bool(costmodel.sweep_ceiling([done[0], done[-1]]))


def verify_rows(m, sh, got, swept, ncores, speed=1.0):
    """The rows of one shape and series: each CPU point's prediction against its measured median,
    then the ceiling; SPEED: how much slower the yardstick read before these trials than through
    the calibration (advice.speed_factor), and a CPU point's error were its prediction scaled by it
    (`error_at_speed`, a diagnostic: the targets are held on the prediction as calibrated)."""
    rows = []
    for rate in sorted({t.rate for t in got}):
        pts = costmodel.settled([t for t in got if t.rate == rate])   # none with the JIT warming
        measured = statistics.median(t.app_ms for t in pts)
        sent = statistics.median(t.sent_rps for t in pts) or rate
        p = costmodel.predict(m, sh, sent, ncores)
        err = p.cpu_ms_per_req.value / measured - 1 if measured else None
        rows.append({
            "workload": label(sh), "series": m.series, "what": "cpu_ms_per_req", "rate": rate,
            "speed": round(speed, 3),
            "predicted": round(p.cpu_ms_per_req.value, 4), "low": round(p.cpu_ms_per_req.low, 4),
            "high": round(p.cpu_ms_per_req.high, 4), "measured": round(measured, 4),
            "error": None if err is None else round(err, 3),
            "error_at_speed": None if err is None else round(error_at_speed(err, speed), 3),
            "ok_rate": round(min(t.ok_rate for t in pts), 4), "trials": len(pts),
            "jit_pct": max(t.jit_pct for t in pts),
            "pass": err is not None and abs(err) <= CPU_WITHIN,
            "line": f"CPU at {rate:g}/s {p.cpu_ms_per_req.value:.3f} vs {measured:.3f} ms"})
    p = costmodel.predict(m, sh, 100.0, ncores)
    measured = costrecords.confirmed_ceiling(swept)
    err = p.max_rate.value / measured - 1 if measured else None
    first = costmodel.sweep_ceiling(swept)   # confirmed or not (the check before 2026-11-28)
    # every loaded step probed crossed: the first crossing is lower still, measured is its bound
    bound_only = measured is not None and measured == min(t.rate for t in swept[1:])
    rows.append({"workload": label(sh), "series": m.series, "what": "max_rate", "rate": None,
                 "predicted": round(p.max_rate.value), "low": round(p.max_rate.low),
                 "high": round(p.max_rate.high), "bound": p.bound, "measured": measured,
                 "error": None if err is None else round(err, 3),
                 "unloaded_p99_ms": swept[0].p99_ms, "first_crossing": first,
                 "first_crossing_error": round(p.max_rate.value / first - 1, 3) if first else None,
                 "upper_bound": bound_only,
                 "pass": err is not None and abs(err) <= CEILING_WITHIN and not bound_only,
                 "line": f"ceiling {p.max_rate.value:,.0f} ({p.bound}) vs "
                         + ("at most " if bound_only else "")
                         + (f"{measured:,.0f}" if measured else "not reached")})
    return rows


def verify_page(rows, cal):
    n_pass = sum(r["pass"] for r in rows)
    lines = [f"# Prediction against measurement: {n_pass} of {len(rows)} within target", "",
             f"Calibration: {cal.facts.get('cpu')}, {cal.facts.get('cores')} cores, "
             f"{cal.facts.get('date')}. CPU per request within {CPU_WITHIN:.0%} of the measured "
             f"median, the ceiling within {CEILING_WITHIN:.0%} of the first rate where p99 "
             "exceeded twice its unloaded value, and again when measured once more "
             "(`first_crossing` in verify.json: the first crossing alone; docs/advise.md)."
             + speed_note(rows), "",
             "| workload | series | figure | rate | predicted [95 %] | measured | error | within |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        what = ("CPU ms/request" if r["what"] == "cpu_ms_per_req"
                else f"highest rate ({r.get('bound')})")
        meas = ("not reached" if r["measured"] is None
                else ("at most " if r.get("upper_bound") else "") + f"{r['measured']:g}")
        err = "-" if r["error"] is None else f"{100 * r['error']:+.0f} %"
        lines.append(f"| {r['workload']} | {r['series']} | {what} | {r['rate'] or '-'} | "
                     f"{r['predicted']:g} [{r['low']:g}, {r['high']:g}] | {meas} | {err} | "
                     f"{'yes' if r['pass'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def speed_note(rows):
    """A sentence on the machine's speed beside the calibration's and what scaling by it would have
    done to the CPU points; '' when no yardstick was read then or now."""
    cpu = [r for r in rows if r.get("speed", 1.0) != 1.0 and r.get("error_at_speed") is not None]
    if not cpu:
        return ""
    factors = [r["speed"] for r in cpu]
    return (f" The machine's yardstick read {min(factors):.2f} to {max(factors):.2f} times what it "
            "read through the calibration; with every CPU figure predicted scaled by it, "
            f"{sum(abs(r['error_at_speed']) <= CPU_WITHIN for r in cpu)} of {len(cpu)} CPU points "
            f"would be within {CPU_WITHIN:.0%} (`error_at_speed` in verify.json; here "
            f"{sum(r['pass'] for r in cpu)} as calibrated; docs/advise.md, "
            "\"The machine's speed\").")
