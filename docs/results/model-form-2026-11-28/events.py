"""Why the model under-predicts the ceilings of waiting shapes, and three corrections tried and left out
(docs/advise.md, "Near the ceiling"). Run from the repository's root (its output is events.txt beside it):
  load/.venv/bin/python docs/results/model-form-2026-11-28/events.py > docs/results/model-form-2026-11-28/events.txt

1. Every check's trials (sweep steps and CPU cells, 99 % answered) against the model in use (forms.DAYS): the
   measured over the predicted CPU per request, by the request events a second E = rate x the request's parts
   (itself, its calls, its concurrent calls, its queries and insert), for waiting shapes and for CPU-heavy ones
   (the CPU kernel at least 30 % of the predicted machine CPU).
2. Three corrections that let a part's cost fall with E, each fitted on the calibration's own trials alone and
   asked every check (the forms.py tally): power  parts x (E / 1,000)^-a;  knee  parts x min(1, (E / E0)^-a);
   sweep  the model in use times the knee fitted on the calibration's ceiling sweep (calls=1, delay 20) to its end."""
import json
import math
import statistics
import sys
import tempfile

import numpy as np

sys.path.insert(0, "load")
sys.path.insert(0, "docs/results/model-form-2026-11-28")
import forms  # noqa: E402
from harness.analysis import costmodel as cm  # noqa: E402
from harness.analysis import costrecords as cr  # noqa: E402
from harness.analysis.costrecords import Fit, Trial  # noqa: E402

ALPHAS = [k / 20 for k in range(19)]
KNEES = (1000, 2000, 3000, 4000, 6000)


def events(shape, rate):
    return rate * sum(cm.work(shape)[:-1])


def machine(m, shape, rate):
    u = cm.busy_share(m, shape, rate, forms.NCORES)
    return m.machine.at(cm.features(shape, rate, u, m.beta_machine, m.rates))[0]


def calibration(spec):
    raw = forms.git_json(spec)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(raw, f)
        f.flush()
        trials = cm.Calibration.read(f.name, models=False).trials
    return {s: (cm.fit_series(s, [t for t in trials if t.series == s], v["bounds"], forms.NCORES),
                [t for t in trials if t.series == s]) for s, v in raw["series"].items()}


def ratio_table():
    rows = []
    for spec, checks in forms.DAYS.items():
        models = calibration(spec)
        for check in checks:
            for t in Trial.of_json(forms.git_json(check)["trials"]):
                if t.kind not in ("sweep", "cpu") or t.ok_rate < 0.99 or t.sent_rps < 50:
                    continue
                m = models[t.series][0]
                pm = machine(m, t.shape, t.sent_rps)
                heavy = cm.work(t.shape)[-1] * m.machine.coef[-2] / pm >= 0.3
                rows.append((events(t.shape, t.sent_rps), heavy, (t.machine_ms - t.jit_ms) / pm))
    print("1. measured / predicted machine CPU per request (median, trials), by request events a second")
    print(f"{'events/s':>14} {'waiting shapes':>20} {'CPU-heavy shapes':>20}")
    edges = (0, 1000, 2000, 4000, 6000, 8000, 11000, math.inf)
    for lo, hi in zip(edges, edges[1:]):
        cells = []
        for heavy in (False, True):
            r = [q for e, h, q in rows if lo <= e < hi and h == heavy]
            cells.append(f"{statistics.median(r):.2f} ({len(r)})" if r else "-")
        print(f"{lo:>6.0f}-{hi:<7.0f} {cells[0]:>20} {cells[1]:>20}")


def correction(form, m, trials):
    """FORM's fitted correction: (features of a shape at a rate), or a factor on the model in use."""
    if form == "sweep":
        pts = [(events(t.shape, t.sent_rps), (t.machine_ms - t.jit_ms) / machine(m, t.shape, t.sent_rps))
               for t in trials if t.kind == "sweep" and t.ok_rate >= 0.99 and t.sent_rps > 200]
        _, e0, a = min((sum((math.log(max(q, 1e-3)) + a * max(0.0, math.log(e / e0))) ** 2 for e, q in pts),
                        e0, a) for e0 in KNEES for a in ALPHAS)
        return lambda shape, r: min(1.0, (events(shape, r) / e0) ** -a)
    sweep = sorted((t for t in trials if t.kind == "sweep"), key=lambda t: t.rate)
    crossed = cr.sweep_ceiling(sweep)
    cpu = cr.settled([t for t in trials if t.kind in ("cpu", "memory") and t.ok]) + \
        [t for t in sweep if not crossed or t.rate < crossed]
    es, rs = [events(t.shape, t.sent_rps) for t in cpu], [t.sent_rps for t in cpu]

    def feats(shape, rate, p):
        *parts, mdiv = cm.work(shape)
        e = min(max(events(shape, rate), min(es)), max(es))
        g = (e / 1000) ** -p[1] if form == "power" else min(1.0, (e / p[0]) ** -p[1])
        return [x * g for x in parts] + [mdiv, 1000 / min(max(rate, min(rs)), max(rs))]

    fits = []
    for y in ([max(0.0, t.app_ms - t.jit_ms) for t in cpu], [max(0.0, t.machine_ms - t.jit_ms) for t in cpu]):
        best = None
        for p in ([(1000, a) for a in ALPHAS] if form == "power" else [(e, a) for e in KNEES for a in ALPHAS]):
            x = [feats(t.shape, t.sent_rps, p) for t in cpu]
            f = Fit.of(range(len(x[0])), x, y, nonneg=True)
            sse = float(((np.asarray(y) - np.asarray(x) @ np.asarray(f.coef)) ** 2).sum())
            if best is None or sse < best[0]:
                best = (sse, p, f)
        fits.append(best[1:])
    return lambda shape, r, k: fits[k][1].at(feats(shape, r, fits[k][0]))[0]


def predict(form, m, fix, shape, rate):
    lat = cm.latency(m, shape)
    share = max(m.util_max, cm.util_for(m, lat.value + m.tail_ms))
    if form == "sweep":
        cpu = cm.predict(m, shape, rate, forms.NCORES).cpu_ms_per_req.value
        demand = lambda r: machine(m, shape, r) * fix(shape, r)  # noqa: E731
    else:
        cpu = fix(shape, rate, 0)
        demand = lambda r: max(0.1, fix(shape, r, 1))  # noqa: E731
    return cpu, min([cm.cores_ceiling(demand, share * forms.NCORES), *forms.pools(m, shape, lat)])


def tally():
    print("\n2. within target on every check (CPU within 15 %, ceilings within 20 %; the model in use: forms.txt)")
    for form in ("power", "knee", "sweep"):
        tot, last = [0, 0, 0, 0], None
        for spec, checks in forms.DAYS.items():
            fixes = {s: (m, correction(form, m, tr)) for s, (m, tr) in calibration(spec).items()}
            for check in checks:
                cpu, ceil = forms.points(forms.git_json(check))
                ce = [predict(form, *fixes[s], sh, r)[0] / app - 1 for s, sh, r, app in cpu]
                ge = [predict(form, *fixes[s], sh, 100)[1] / c - 1 for s, sh, c in ceil]
                tot = [tot[0] + sum(abs(e) <= 0.15 for e in ce), tot[1] + len(ce),
                       tot[2] + sum(abs(e) <= 0.20 for e in ge), tot[3] + len(ge)]
                last = statistics.median(ge)
        print(f"  {form:6s} CPU {tot[0]} of {tot[1]}, ceilings {tot[2]} of {tot[3]}; "
              f"median ceiling error on the last check {last:+.2f}")


if __name__ == "__main__":
    with forms.before_waits():
        ratio_table()
        tally()
