"""What `advise` answers from a calibration alone (analysis/costmodel.py): the workload read against
the app's bounds, each series' prediction, the table and the recommendation (docs/advise.md)."""
from __future__ import annotations

import os
import re
import statistics
from datetime import UTC, datetime

from harness.analysis import costmodel
from harness.infra import catalogue
from harness.infra.errors import Fatal
from harness.infra.shape import Shape
from harness.infra.tools import LOAD_DIR, ROOT
from harness.sampling.machine import cpu_model

SCENARIO = "workload"
CPU_WITHIN, CEILING_WITHIN = 0.15, 0.20     # the targets the model is held to (docs/advise.md)
LATEST = os.path.join(LOAD_DIR, "results", "calibration.json")   # calibrate's newest
COMMITTED = os.path.join(ROOT, "docs", "results", "calibrate-2026-12-07", "calibration.json")


def workload_params(cal=None):
    """The workload's parameters and bounds: the calibrated app's catalogue, else the built one.
    A calibration older than the catalogue's maxByMode (2026-12-07) has the reactive mode's CPU
    kernel bound in its app's settings (bench.max-n-event-loop)."""
    saved = cal.facts.get("workload_params") if cal else None
    if not saved:
        return catalogue.table().params_of[SCENARIO]
    loop = (cal.facts.get("settings") or {}).get("bench.max-n-event-loop")
    old = [("reactive", int(loop))] if str(loop).isdigit() else []
    return tuple(catalogue.Param(**{**p, "choices": tuple(p["choices"]), "by_mode": tuple(
        map(tuple, p["by_mode"] if "by_mode" in p else old if p["name"] == "cpu" else ()))})
        for p in saved)


def deadline_ms(cal):
    """The calibrated app's request deadline in ms (calibrate keeps the catalogue's; before
    2026-12-07 its settings' bench.request-deadline, '20s'); None when neither tells it."""
    if cal.facts.get("workload_deadline_ms"):
        return cal.facts["workload_deadline_ms"]
    m = re.fullmatch(r"([0-9]+)(ms|s)", str((cal.facts.get("settings") or {})
                                           .get("bench.request-deadline", "")))
    return int(m.group(1)) * (1 if m.group(2) == "ms" else 1000) if m else None


def parse_shape(text, params=None):
    """'calls=3,delay=50' -> every item of the shape (shape.Shape: app defaults and bounds)."""
    return Shape.of(text, params or workload_params()).as_dict()


def label(shape, params=None):
    """The items of SHAPE (a dict) that are not their defaults: 'delay=50, calls=3'."""
    text = ",".join(f"{k}={v}" for k, v in shape.items())
    return (Shape.of(text, params or workload_params()).label
            or "nothing (every item 0)")


def calibration_path(given):
    for path in (given, LATEST, COMMITTED):
        if path and os.path.isfile(path):
            return path
    if given:
        raise Fatal(f"--calibration {given}: no such file")
    raise Fatal("no calibration yet: run load/calibrate.sh (about 15 minutes) or name one with "
                "--calibration")


def other_machine(facts):
    """A sentence when calibration FACTS name another CPU model or core count than this machine's;
    '' when they match or were not recorded."""
    cpu, cores = cpu_model(), os.cpu_count()
    if (facts.get("cpu") or cpu) == cpu and (facts.get("cores") or cores) == cores:
        return ""
    # docs/results/verify-2026-11-29/stale.txt: 24 points, 2.06 in the median
    return (f"This calibration was measured on {facts.get('cores')} cores of {facts.get('cpu')}, "
            f"this machine has {cores} of {cpu}: calibrate it here (load/calibrate.sh, about 13 "
            "minutes). On 2026-11-29 a calibration of two Intel Xeon cores predicted the CPU per "
            "request of two AMD EPYC cores at 1.4 to 2.6 times what they spent.")


def other_day(facts, now=None):
    """A sentence when calibration FACTS were measured more than a day before NOW; '' when not, or
    undated. A request's CPU on this project's machine moved 1.4-3.1x from one day to another
    (docs/results/calibrate-2026-12-01/drift.txt), and on 2026-12-07 a calibration of a faster
    day held none of a check's 54 CPU points (results/verify-2026-12-07/stale-2026-11-29.txt)."""
    try:
        then = datetime.fromisoformat(facts.get("date") or "")
    except ValueError:
        return ""
    then = then if then.tzinfo else then.replace(tzinfo=UTC)
    days = ((now or datetime.now(UTC)) - then).total_seconds() / 86400
    if days <= 1:
        return ""
    return (f"This calibration was measured {days:.1f} days ago ({then:%Y-%m-%d}): on this "
            "project's machine a request's CPU moved 1.4 to 3.1 times from one day to another, "
            "and a calibration of a faster day predicted none of a check's 54 CPU points within "
            "15 %. Calibrate on the day you measure (load/calibrate.sh, about 14 minutes).")


def speed_factor(facts, speeds):
    """How much slower the machine reads now than through calibration FACTS: the median of SPEEDS
    (the yardstick's readings now, us) over the calibration's median; 1.0 when either is missing.
    A diagnostic beside the error: scaling by it did not bring predictions closer (docs/advise.md,
    "The machine's speed")."""
    now = [v for v in speeds or () if v]
    then = facts.get("speed_us")
    return statistics.median_low(now) / then if now and then else 1.0


def error_at_speed(err, speed):
    """ERR (predicted over measured - 1) were the prediction scaled by SPEED (speed_factor)."""
    return (1 + err) * speed - 1


def predictions(cal, shape, rate, series=None):
    ncores = cal.facts.get("cores") or 1
    return {x: costmodel.predict(m, shape, rate, ncores) for x, m in cal.series.items()
            if not series or x in series}


def _f(fig, digits=2):
    return f"{fig.value:.{digits}f} [{fig.low:.{digits}f}, {fig.high:.{digits}f}]"


def table(preds):
    rows = [f"{'series':16} {'CPU ms/request':24} {'app cores':9} {'machine':8} {'RSS MiB':8} "
            f"{'threads':8} highest rate (what sets it)"]
    for x, p in preds.items():
        rows.append(f"{x:16} {_f(p.cpu_ms_per_req, 3):24} {p.cores.value:9.2f} "
                    f"{p.machine_cores.value:8.2f} {p.rss_mib.value:8.0f} {p.threads.value:8.0f} "
                    f"{p.max_rate.value:,.0f} req/s [{p.max_rate.low:,.0f}, "
                    f"{p.max_rate.high:,.0f}] ({p.bound})")
    return "\n".join(rows)


# the cores' ceilings of shapes that wait (waits) in the three checks of 2026-12-07, measured over
# predicted per series: (lowest, median, highest) (docs/results/verify-2026-12-07c/waiting.txt)
WAITING = {"virtual": (0.8, 1.35, 2.0), "worker": (0.9, 1.2, 2.0), "reactive": (0.5, 0.75, 1.1)}


# how the prediction ranked the series in the committed compare --workload runs (virtual, worker,
# reactive), as made before each: (runs, pairs predicted 15 % or more apart, of them measured the
# same way round, a ratio's error in the median, at most) (docs/results/model-ratios-2026-12-07)
RANKING = (17, 40, 39, 0.09, 0.32)
APART = 1.15


def order(preds):
    """For --json: the series PREDS put cheapest, and whether the next is at least APART from it
    (false: closer than a prediction can order; null with one series)."""
    by_cpu = sorted(preds.values(), key=lambda p: p.cpu_ms_per_req.value)
    return {"cheapest": by_cpu[0].series if by_cpu else None,
            "ordered": _apart(by_cpu) if len(by_cpu) > 1 else None}


def _apart(by_cpu):
    """True when the second of BY_CPU costs at least APART times the first."""
    return by_cpu[1].cpu_ms_per_req.value >= by_cpu[0].cpu_ms_per_req.value * APART


def ranking(by_cpu):
    """What the measured runs say of the gap between the cheapest of BY_CPU and the next."""
    runs, pairs, same, median, worst = RANKING
    size = (f"the ratio of two series was {median * 100:.0f} % off in the median, up to "
            f"{worst * 100:.0f} %")
    where = f"in {runs} measured runs of other workloads (virtual, worker, reactive)"
    if _apart(by_cpu):
        return (f"How far to trust the order: {where}, {same} of {pairs} predicted gaps of "
                f"{(APART - 1) * 100:.0f} % or more came out the same way round, and {size}.")
    return (f"{by_cpu[1].series} is within {(APART - 1) * 100:.0f} % of {by_cpu[0].series}: "
            f"closer than a prediction can order, since {where} {size}; measure both "
            f"(compare --workload).")


def _waiting(series):
    lo, mid, hi = WAITING[series]
    side = "likely low" if mid > 1.1 else "likely high" if mid < 0.9 else "either side"
    return f"{series} {lo:g}-{hi:g}x ({mid:g}x in the median: {side})"


def waits(shape):
    """True for SHAPE of delay calls and queries alone (no CPU kernel, no insert): the requests
    whose cores' ceiling the checks measured furthest from the prediction."""
    return bool(shape) and shape["calls"] + shape["fanout"] > 0 and not (shape["cpu"]
                                                                        or shape["insert"])


def recommend(preds, rate, shape=None):
    """One paragraph in plain words: the cheapest series by CPU and whether the calibration can
    tell, who cannot serve the rate, the memory, and where SHAPE's checks said to doubt it."""
    by_cpu = sorted(preds.values(), key=lambda p: p.cpu_ms_per_req.value)
    best = by_cpu[0]
    words = [f"{best.series} is predicted to spend the least CPU per request "
             f"({best.cpu_ms_per_req.value:.3f} ms [{best.cpu_ms_per_req.low:.3f}, "
             f"{best.cpu_ms_per_req.high:.3f}])."]
    apart = [p for p in by_cpu[1:] if p.cpu_ms_per_req.low > best.cpu_ms_per_req.high]
    near = [p for p in by_cpu[1:] if p not in apart]
    for group, verdict in ((apart, "the 95 % intervals do not overlap"),
                           (near, "the intervals overlap: the calibration cannot tell these apart "
                                  "from it")):
        if group:
            words.append(", ".join(
                f"{p.series} {p.cpu_ms_per_req.value / max(best.cpu_ms_per_req.value, 1e-9):.2f}x"
                for p in group) + f" as much ({verdict}).")
    if len(by_cpu) > 1:
        words.append(ranking(by_cpu))
    short = [p for p in preds.values() if p.max_rate.value < rate]
    for p in short:
        words.append(f"At {rate:g} req/s {p.series} falls behind: its {p.bound} allow about "
                     f"{p.max_rate.value:,.0f} req/s.")
    if not short:
        top = max(preds.values(), key=lambda p: p.max_rate.value)
        low = min(preds.values(), key=lambda p: p.max_rate.value)
        words.append(f"Every series serves {rate:g} req/s; {top.series} goes furthest (about "
                     f"{top.max_rate.value:,.0f} req/s), {low.series} least "
                     f"({low.max_rate.value:,.0f}, its {low.bound}).")
    big = max(preds.values(), key=lambda p: p.rss_mib.value)
    small = min(preds.values(), key=lambda p: p.rss_mib.value)
    words.append(f"Memory: {small.rss_mib.value:.0f} MiB ({small.series}) to "
                 f"{big.rss_mib.value:.0f} MiB ({big.series}) at this rate"
                 + (" (one that falls behind: at its ceiling, more as requests pile up)."
                    if short else "."))
    cores = {p.swept for p in preds.values() if p.bound == "cores"}
    doubted = [p.series for p in preds.values()
               if p.bound == "cores" and p.swept and p.series in WAITING]
    if waits(shape) and doubted:
        words.append("A ceiling the cores set is uncertain for a request that waits on calls: in "
                     "the last three checks such shapes (no CPU kernel, no insert) served, of the "
                     "rate predicted, " + ", ".join(_waiting(x) for x in doubted) + ".")
    if waits(shape) and False in cores:   # 2026-11-29 05:26: virtual+socket's 3
        words.append("Where the calibration's sweep never doubled its p99, that ceiling is "
                     "likely high (the costs of a fuller machine than measured, extrapolated): "
                     "such shapes of virtual+socket served 0.2 to 0.3 times the rate predicted.")
    outside = sorted({o for p in preds.values() for o in p.outside})
    if outside:
        words.append("Outside the calibrated range, so less certain than its intervals say: "
                     + "; ".join(outside) + ".")
    return " ".join(words)


def registered(shape_text, rates, series=None):
    """What advise predicts for a compare run of the workload SHAPE_TEXT at RATES before it
    measures (machine.json's `advise`; the report sets it beside the measurement): each series of
    SERIES (None: every one) the calibration has, at each rate; {'error': why} when no
    calibration answers."""
    try:
        path = calibration_path(None)
        cal = costmodel.Calibration.read(path)
        params = workload_params(cal)
        shape = parse_shape(shape_text, params)
    except Fatal as e:
        return {"error": str(e)}
    f = cal.facts
    return {"calibration": os.path.relpath(path, ROOT), "date": f.get("date"), "cpu": f.get("cpu"),
            "cores": f.get("cores"), "speed_us": f.get("speed_us"),
            "other_machine": other_machine(f) or None, "other_day": other_day(f) or None,
            "workload": label(shape, params),
            "rates": [{"rate": float(r), "modes": {
                x: p.as_dict() for x, p in predictions(cal, shape, float(r), series).items()}}
                for r in rates]}


def preview(shape_text, rates, series):
    """advise's answer for a compare run of SHAPE_TEXT at RATES on SERIES, said before it measures:
    a line a rate with each series' CPU per request and those past their predicted ceiling."""
    doc = registered(shape_text, rates, series)
    if "error" in doc:
        return [f"advise: no prediction to set beside this run ({doc['error']})"]
    out = []
    for r in doc["rates"]:
        ms = r["modes"]
        past = [f"{x} ({m['max_rate']:,.0f} req/s, its {m['bound']})" for x, m in ms.items()
                if m["max_rate"] is not None and m["max_rate"] < r["rate"]]
        out.append(f"advise predicts at {r['rate']:g} req/s (calibration of {doc['date'][:10]}): "
                   "CPU ms per request " + ", ".join(f"{x} {m['cpu_ms_per_req']:.2f}"
                                                    for x, m in ms.items())
                   + (f"; past the predicted ceiling of {', '.join(past)}: expect "
                      f"{'them' if len(past) > 1 else 'it'} to fall behind" if past else ""))
    return out
