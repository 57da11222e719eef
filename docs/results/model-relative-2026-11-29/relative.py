"""The CPU terms fitted on relative errors (least relative squares, in use since 2026-11-29) against absolute ones (the
model before): each calibration refitted both ways from its own trials and asked every check measured against it
(docs/advise.md); and relative errors with every cost held at the busiest share the series' fitted trials measured
("held": no extrapolation to a fuller machine; tried, not kept). Then, for the relative fit, the ceilings the cores set for shapes that wait (delay calls or a
fan-out, no CPU kernel, no insert): measured over predicted, the figures advise's caveat quotes. Run from the
repository's root (its output is relative.txt beside it):
  load/.venv/bin/python docs/results/model-relative-2026-11-29/relative.py > docs/results/model-relative-2026-11-29/relative.txt
The form was chosen on the checks up to verify-2026-11-29; verify-2026-11-29b (virtual, worker, reactive) and 29c (the
socket series) were measured after it, on new workloads."""
import statistics
import sys

sys.path.insert(0, "load")
sys.path.insert(0, "docs/results/model-form-2026-11-28")
import events  # noqa: E402
import forms  # noqa: E402
from harness.analysis import costmodel as cm  # noqa: E402

DAYS = {**forms.DAYS,
        "1cc9da3:docs/results/calibrate-pooled-2026-11-28/calibration.json": (
            "325afb5:docs/results/verify-2026-11-28e/verify.json", "1cc9da3:docs/results/verify-2026-11-28f/verify.json"),
        "8a7fc74:docs/results/calibrate-2026-11-29/calibration.json": (
            "docs/results/verify-2026-11-29/verify.json", "docs/results/verify-2026-11-29b/verify.json",
            "docs/results/verify-2026-11-29c/verify.json")}
FLOORS = {"absolute": 1e9, "relative": cm.REL_FLOOR_MS, "held": cm.REL_FLOOR_MS}   # 1e9: every weight the same
FEATURES = cm.features
HELD = {"u": 1.0}   # the busiest share of the series asked (form "held")


def held(shape, rate, u, beta, rates=None, app=False):
    return FEATURES(shape, rate, min(u, HELD["u"]), beta, rates, app)


def busiest(m, trials):
    sweep = [t for t in trials if t.kind == "sweep" and (not m.sweep_ceiling or t.rate < m.sweep_ceiling)]
    return max(cm.busy(t) / forms.NCORES for t in cm.settled([t for t in trials if t.kind in ("cpu", "memory")
                                                              and t.ok]) + sweep)


def ask(models, tops, form, s, sh, r):
    HELD["u"] = tops[s] if form == "held" else 1.0
    cm.features = held if form == "held" else FEATURES
    try:
        return cm.predict(models[s], sh, r, forms.NCORES)
    finally:
        cm.features = FEATURES


def waiting(sh):
    return sh["calls"] + sh["fanout"] > 0 and not (sh["cpu"] or sh["insert"])


def main():
    totals = {f: [0, 0, 0, 0] for f in FLOORS}
    ratios = {}
    for spec, checks in DAYS.items():
        for form, floor in FLOORS.items():
            cm.REL_FLOOR_MS = floor
            fitted = events.calibration(spec)
            models = {s: m for s, (m, _) in fitted.items()}
            tops = {s: busiest(m, trials) for s, (m, trials) in fitted.items()}
            print(f"{spec} {form}: beta (app/machine) "
                  + ", ".join(f"{s} {m.beta:g}/{m.beta_machine:g}" for s, m in models.items()))
            for check in checks:
                cpu, ceil = forms.points(forms.git_json(check))
                ce = [ask(models, tops, form, s, sh, r).cpu_ms_per_req.value / app - 1 for s, sh, r, app in cpu]
                preds = [(s, sh, c, ask(models, tops, form, s, sh, 100)) for s, sh, c in ceil]
                ge = [p.max_rate.value / c - 1 for s, sh, c, p in preds]
                a, c = sum(abs(e) <= 0.15 for e in ce), sum(abs(e) <= 0.20 for e in ge)
                t = totals[form]
                t[:] = [t[0] + a, t[1] + len(ce), t[2] + c, t[3] + len(ge)]
                print(f"  {check:58s} CPU {a:2d}/{len(ce):2d} within 15 % (median |error| "
                      f"{statistics.median(map(abs, ce)):.3f}), ceilings {c:2d}/{len(ge):2d} within 20 %")
                if form == "relative":
                    ratios[check] = [c / p.max_rate.value for s, sh, c, p in preds
                                     if p.bound == "cores" and waiting(sh)]
    print()
    for form, (a, b, c, d) in totals.items():
        print(f"every check, {form:8s}: CPU {a} of {b} within 15 %, ceilings {c} of {d} within 20 %")
    print("\nrelative: the cores' ceilings of shapes that wait, measured / predicted")
    for check, xs in ratios.items():
        if xs:
            print(f"  {check:58s} {len(xs):2d}: median {statistics.median(xs):.2f}, {min(xs):.2f}-{max(xs):.2f}")
    for name, checks in (("virtual, worker, reactive", list(ratios)[-4:-1]), ("the socket series", list(ratios)[-1:])):
        last = [x for check in checks for x in ratios[check]]
        print(f"  {name}, the last {len(checks)} check(s): {len(last)} ceilings, median "
              f"{statistics.median(last):.2f}, {min(last):.2f}-{max(last):.2f}, "
              f"within 20 %: {sum(abs(1 / x - 1) <= 0.2 for x in last)}")


if __name__ == "__main__":
    main()
