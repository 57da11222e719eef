"""Two calibrations of this machine (two AMD EPYC cores), 3.3 hours apart, both fitted on relative errors, and the two
pooled, asked the three checks of 2026-11-29 (docs/advise.md, "The calibration on this machine"). Run from the
repository's root (its output is compare.txt beside it):
  load/.venv/bin/python docs/results/calibrate-repeat-2026-11-29/compare.py > docs/results/calibrate-repeat-2026-11-29/compare.txt
02:30 is advise's default (the checks of 02:45, 05:06 and 05:26 used it); 05:45 was calibrated after the checks, which
ran workloads neither calibration measured. Pooled: both calibrations' trials fitted together (as `calibrate --refit A
B --out DIR` does), not committed (it is those two files)."""
import statistics
import sys

sys.path.insert(0, "load")
sys.path.insert(0, "docs/results/model-form-2026-11-28")
import events  # noqa: E402
import forms  # noqa: E402
from harness.analysis import costmodel as cm  # noqa: E402

CALS = {"02:30": "docs/results/calibrate-2026-11-29/calibration.json",
        "05:45": "docs/results/calibrate-2026-11-29b/calibration.json"}
CHECKS = ("docs/results/verify-2026-11-29/verify.json", "docs/results/verify-2026-11-29b/verify.json",
          "docs/results/verify-2026-11-29c/verify.json")


def pooled():
    trials = [t for path in CALS.values() for t in cm.Calibration.read(path, models=False).trials]
    raw = cm.Calibration.raw(CALS["02:30"])
    return {s: cm.fit_series(s, [t for t in trials if t.series == s], v["bounds"], forms.NCORES)
            for s, v in raw["series"].items()}


def main():
    models = {k: {s: m for s, (m, _) in events.calibration(p).items()} for k, p in CALS.items()}
    models["pooled"] = pooled()
    points = [forms.points(forms.git_json(c)) for c in CHECKS]
    for name, ms in models.items():
        row = []
        for cpu, ceil in points:
            ce = [cm.predict(ms[s], sh, r, forms.NCORES).cpu_ms_per_req.value / app - 1 for s, sh, r, app in cpu]
            ge = [cm.predict(ms[s], sh, 100, forms.NCORES).max_rate.value / c - 1 for s, sh, c in ceil]
            row.append(f"CPU {sum(abs(e) <= 0.15 for e in ce)}/{len(ce)}, ceilings {sum(abs(e) <= 0.2 for e in ge)}/{len(ge)}")
        print(f"{name:7s} beta app/machine " + ", ".join(f"{s} {m.beta:g}/{m.beta_machine:g}" for s, m in ms.items()))
        print("        " + "; ".join(f"{c.split('/')[-2]} {r}" for c, r in zip(CHECKS, row, strict=True)))
    print("\nhow far the predictions of 02:30 and 05:45 are apart at the checks' points (|b / a - 1|: median, 90th percentile)")
    a, b = models["02:30"], models["05:45"]
    dc = [abs(cm.predict(b[s], sh, r, 2).cpu_ms_per_req.value / cm.predict(a[s], sh, r, 2).cpu_ms_per_req.value - 1)
          for cpu, _ in points for s, sh, r, _ in cpu]
    dg = [abs(cm.predict(b[s], sh, 100, 2).max_rate.value / cm.predict(a[s], sh, 100, 2).max_rate.value - 1)
          for _, ceil in points for s, sh, _ in ceil]
    for what, d in (("CPU per request", dc), ("ceiling", dg)):
        print(f"  {what:16s} {statistics.median(d):.1%}, {statistics.quantiles(d, n=10)[-1]:.1%} ({len(d)} points)")


if __name__ == "__main__":
    main()
