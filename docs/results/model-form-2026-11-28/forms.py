"""Three forms of the rate's effect on a request's CPU, each refitted on a calibration's own trials and asked every
check of 2026-11-27 and 2026-11-28 that calibration's day measured (docs/advise.md, "How busy the machine is"):

  busy  the operations' costs x (1 + beta x (1 - u)), u the machine's busy share (harness.analysis.costmodel, in use)
  log   + lnr x operations x ln(rate / 1,000), the rate held to the calibrated range (the model before 2026-11-28 13:00)
  none  no term for the rate beyond the cores busy every second

Run from the repository's root: load/.venv/bin/python docs/results/model-form-2026-11-28/forms.py > forms.txt
A check that measured a workload twice counts each CPU point once (the median of both passes' trials) and
each sweep apart. The calibrations and checks are read from git (some left the tree for room: docs/results/README.md). The form was
chosen on the checks before 2026-11-28 13:00; the last calibration and its check came after, on new workloads."""
import contextlib
import json
import math
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm  # noqa: E402
from harness.analysis import costrecords as cr  # noqa: E402
from harness.analysis.costrecords import Fit, Trial  # noqa: E402

DAYS = {   # calibration -> the checks measured against it (commit:path)
    "cd06cd1^:docs/results/calibrate-2026-11-27/calibration.json": (
        "cd06cd1^:docs/results/verify-2026-11-27/verify.json", "cd06cd1^:docs/results/verify-first-2026-11-27/verify.json"),
    "006383e:docs/results/calibrate-2026-11-28/calibration.json": (
        "006383e:docs/results/verify-repeat-2026-11-28/verify.json",
        "006383e:docs/results/verify-confirmed-2026-11-28/verify.json",
        "8e7e458:docs/results/verify-2026-11-28/verify.json", "a563571:docs/results/verify-2026-11-28c/verify.json",
        "ef3d7d4^:docs/results/verify-gross-2026-11-28/verify.json"),
    # the calibration and check made after the form was chosen (new workloads)
    "1cc9da3:docs/results/calibrate-2026-11-28d/calibration.json": ("deb0649:docs/results/verify-2026-11-28d/verify.json",),
}
NCORES = 2


@contextlib.contextmanager
def before_waits():
    """The model these scripts (forms, events, compare.py) measured: the one in use until the app's CPU got a term per
    second a request waits (docs/results/model-wait-2026-11-28/wait.py), whose app CPU has the machine's terms alone,
    fitted on absolute errors (relative ones since 2026-11-29: docs/results/model-relative-2026-11-29)."""
    terms, feats, floor = cm.APP_TERMS, cm.features, cm.REL_FLOOR_MS
    cm.APP_TERMS, cm.REL_FLOOR_MS = cm.CPU_TERMS, 1e9
    cm.features = lambda shape, rate, u, beta, rates=None, app=False: feats(shape, rate, u, beta, rates)
    try:
        yield
    finally:
        cm.APP_TERMS, cm.features, cm.REL_FLOOR_MS = terms, feats, floor


def git_json(spec):
    """COMMIT:PATH from git, or a PATH in the tree."""
    if ":" not in spec:
        with open(spec) as f:
            return json.load(f)
    return json.loads(subprocess.run(["git", "show", spec], capture_output=True, text=True, check=True).stdout)


def points(doc):
    """Each CPU cell's settled median (series, shape, sent rate, app ms), and each sweep's ceiling (confirmed where
    the check repeated crossings, else the first crossing)."""
    trials = Trial.of_json(doc["trials"])
    cells, sweeps = {}, {}
    for t in trials:
        key = (t.series, tuple(sorted(t.shape.items())))
        if t.kind == "cpu":
            cells.setdefault(key + (t.rate,), []).append(t)
        elif t.kind == "sweep":
            sweeps.setdefault(key, []).append(t)
    cpu = [(s, dict(sh), statistics.median(t.sent_rps for t in cr.settled(ts)),
            statistics.median(t.app_ms for t in cr.settled(ts))) for (s, sh, _), ts in cells.items()]
    ceil = []
    for (s, sh), ts in sweeps.items():
        for one in split_sweeps(ts):
            repeated = len({t.rate for t in one[1:]}) < len(one) - 1
            c = cr.confirmed_ceiling(one) if repeated else cr.sweep_ceiling(one)
            if c:
                ceil.append((s, dict(sh), c))
    return cpu, ceil


def split_sweeps(trials):
    """A cell's sweeps, one list each: a check that measured a shape twice swept it twice, each
    sweep from its unloaded step (a rate below the step before it starts the next)."""
    out = []
    for t in trials:
        if not out or t.rate < out[-1][-1].rate:
            out.append([])
        out[-1].append(t)
    return out


def rate_features(shape, rate, rates, log):
    """The older forms' CPU inputs: the parts, then lnr (log) or nothing, the divisions and the per-second term."""
    rate = min(max(rate, rates[0]), rates[1])
    *parts, mdiv = cm.work(shape)
    lnr = [sum(parts) * math.log(rate / 1000)] if log else []
    return parts + lnr + [mdiv, 1000 / rate]


def older(m, trials, log):
    """Model M with its CPU fits replaced by the older form's (the same trials as fit_series takes)."""
    sweep = sorted((t for t in trials if t.kind == "sweep"), key=lambda t: t.rate)
    crossed = cr.sweep_ceiling(sweep)
    cpu = cr.settled([t for t in trials if t.kind in ("cpu", "memory") and t.ok]) + \
        [t for t in sweep if not crossed or t.rate < crossed]
    x = [rate_features(t.shape, t.sent_rps, m.rates, log) for t in cpu]
    names = tuple(range(len(x[0])))
    app = Fit.of(names, x, [max(0.0, t.app_ms - t.jit_ms) for t in cpu])
    mach = Fit.of(names, x, [max(0.0, t.machine_ms - t.jit_ms) for t in cpu])
    return app, mach


def predict(m, form, shape, rate):
    """(CPU ms per request at RATE, the ceiling) of SHAPE by FORM."""
    if form == "busy":
        p = cm.predict(m, shape, rate, NCORES)
        return p.cpu_ms_per_req.value, cm.predict(m, shape, 100, NCORES).max_rate.value
    app, mach = m.older[form]
    cpu = app.at(rate_features(shape, rate, m.rates, form == "log"))[0]
    lat = cm.latency(m, shape)
    share = max(m.util_max, cm.util_for(m, lat.value + m.tail_ms))
    cores = cm.cores_ceiling(lambda r: max(0.1, mach.at(rate_features(shape, r, m.rates, form == "log"))[0]),
                             share * NCORES)
    return cpu, min([cores, *pools(m, shape, lat)])


def pools(m, shape, lat):
    """The rates model M's bounds (worker threads, connections) allow SHAPE of latency LAT, by Little's law."""
    held = [(size, cm.held_ms(name, shape, lat.value, m.latency.coef[cm.LAT_TERMS.index("query")]))
            for name, size in m.bounds.items()]
    return [size * 1000 / h for size, h in held if h]


def main():
    totals = {f: [0, 0, 0, 0] for f in ("busy", "log", "none")}
    for cal_spec, checks in DAYS.items():
        raw = git_json(cal_spec)
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(raw, f)
            f.flush()
            trials = cm.Calibration.read(f.name, models=False).trials
        models = {}
        for s, v in raw["series"].items():
            mine = [t for t in trials if t.series == s]
            m = cm.fit_series(s, mine, v["bounds"], NCORES)
            m.older = {"log": older(m, mine, True), "none": older(m, mine, False)}
            models[s] = m
        print(f"calibration {cal_spec} (beta app, machine: "
              + ", ".join(f"{s} {m.beta:g}/{m.beta_machine:g}" for s, m in models.items()) + ")")
        for spec in checks:
            cpu, ceil = points(git_json(spec))
            for form, tot in totals.items():
                ce = [predict(models[s], form, sh, r)[0] / app - 1 for s, sh, r, app in cpu]
                ge = [predict(models[s], form, sh, 100)[1] / c - 1 for s, sh, c in ceil]
                tot[0] += sum(abs(e) <= 0.15 for e in ce)
                tot[1] += len(ce)
                tot[2] += sum(abs(e) <= 0.20 for e in ge)
                tot[3] += len(ge)
                print(f"  {spec:60s} {form:5s} CPU {sum(abs(e) <= 0.15 for e in ce):3d}/{len(ce):3d} within 15 %, "
                      f"ceilings {sum(abs(e) <= 0.20 for e in ge):2d}/{len(ge):2d} within 20 % "
                      f"(median error {statistics.median(ge):+.2f})")
        if cal_spec == list(DAYS)[-2]:
            for form, (a, b, c, d) in totals.items():
                print(f"the checks the form was chosen on, {form:5s}: CPU {a} of {b} within 15 %, "
                      f"ceilings {c} of {d} within 20 %")


if __name__ == "__main__":
    with before_waits():
        main()
