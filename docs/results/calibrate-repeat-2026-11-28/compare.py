"""Two calibrations of one design, and one of a design with a four-call shape added, asked the checks of 2026-11-28
(docs/advise.md, "How far two calibrations disagree"). Run from the repository's root (its output is compare.txt):
  load/.venv/bin/python docs/results/calibrate-repeat-2026-11-28/compare.py > docs/results/calibrate-repeat-2026-11-28/compare.txt

calibrate-2026-11-28d   13:01-13:15 UTC, seed 1133, the design in use (the calibration advise reads)
calibrate-repeat-2026-11-28   the same design again, 16:48-17:02 UTC, seed 1136
calibrate-calls4-2026-11-28   the design plus four 20-ms calls at 100 and 1,200 req/s (6,000 request events a second),
                              16:33-16:47 UTC, seed 1135: 864 s
calibrate-pooled-2026-11-28   28d and the repeat pooled (`vtvr-harness calibrate --refit A B --out DIR`): advise's default
The JSON of the repeat and of calls4 is in commit deb0649, that of 28d in 1cc9da3 (each lives in the pooled file or was
not kept)
Each calibration is refitted from its trials by the model in use (costmodel.fit_series) and predicts every CPU point
and ceiling the six checks of 2026-11-28 measured (model-form-2026-11-28/forms.py reads them from git), then those of
the pooled calibration's own check."""
import statistics
import sys

sys.path.insert(0, "load")
sys.path.insert(0, "docs/results/model-form-2026-11-28")
import events  # noqa: E402
import forms  # noqa: E402
from harness.analysis import costmodel as cm  # noqa: E402

CALS = {"28d": "1cc9da3:docs/results/calibrate-2026-11-28d/calibration.json",
        "repeat": "deb0649:docs/results/calibrate-repeat-2026-11-28/calibration.json",
        "calls4": "deb0649:docs/results/calibrate-calls4-2026-11-28/calibration.json",
        "pooled (in use)": "1cc9da3:docs/results/calibrate-pooled-2026-11-28/calibration.json"}
CHECKS = ("006383e:docs/results/verify-repeat-2026-11-28/verify.json",
          "006383e:docs/results/verify-confirmed-2026-11-28/verify.json",
          "8e7e458:docs/results/verify-2026-11-28/verify.json", "a563571:docs/results/verify-2026-11-28c/verify.json",
          "ef3d7d4^:docs/results/verify-gross-2026-11-28/verify.json", "deb0649:docs/results/verify-2026-11-28d/verify.json")


def models(spec):
    """SPEC's series models refitted (events.calibration), and its measuring time."""
    return ({s: m for s, (m, _) in events.calibration(spec).items()},
            forms.git_json(spec)["facts"].get("took_s"))


def main():
    tally(CHECKS)
    print("\nthe check of the pooled calibration (verify-2026-11-28e, six new workloads), asked of each calibration:")
    tally(("325afb5:docs/results/verify-2026-11-28e/verify.json",), spread=False)


def tally(checks, spread=True):
    points = [forms.points(forms.git_json(c)) for c in checks]
    preds = {}
    for name, spec in CALS.items():
        ms, took = models(spec)
        cpu = [cm.predict(ms[s], sh, r, forms.NCORES).cpu_ms_per_req.value
               for pts, _ in points for s, sh, r, _ in pts]
        ceil = [cm.predict(ms[s], sh, 100, forms.NCORES).max_rate.value for _, cs in points for s, sh, _ in cs]
        preds[name] = (cpu, ceil)
        got_cpu = [app for pts, _ in points for *_, app in pts]
        got_ceil = [c for _, cs in points for *_, c in cs]
        ce = [p / m - 1 for p, m in zip(cpu, got_cpu)]
        ge = [p / m - 1 for p, m in zip(ceil, got_ceil)]
        print(f"{name:13s} took {took} s; CPU {sum(abs(e) <= 0.15 for e in ce)} of {len(ce)} within 15 %, ceilings "
              f"{sum(abs(e) <= 0.20 for e in ge)} of {len(ge)} within 20 % (median error {statistics.median(ge):+.2f});"
              f" beta app/machine " + ", ".join(f"{s} {m.beta:g}/{m.beta_machine:g}" for s, m in ms.items()))
    if not spread:
        return
    print("\nhow far the predictions move between two calibrations (|b / a - 1| over every point: median, 90th "
          "percentile, largest)")
    names = list(CALS)
    for a, b in ((names[0], names[1]), (names[0], names[2]), (names[1], names[2]), (names[0], names[3]),
                 (names[1], names[3])):
        for k, what in ((0, "CPU per request"), (1, "ceiling")):
            d = sorted(abs(y / x - 1) for x, y in zip(preds[a][k], preds[b][k]))
            print(f"  {a} vs {b}, {what:15s}: {100 * statistics.median(d):4.1f} %, "
                  f"{100 * d[int(0.9 * (len(d) - 1))]:4.1f} %, {100 * d[-1]:4.1f} % ({len(d)} points)")


if __name__ == "__main__":
    with forms.before_waits():
        main()
