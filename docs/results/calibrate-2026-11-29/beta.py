"""beta on a wider grid: the calibration of 2026-11-29 fitted beta at the grid's top (10) for three series' apps; refitted
on grids to 40 and to 100 and asked the check of 2026-11-29 (a check already seen, so a look, not a test). Columns:
the grid's top, each series' (app, machine) beta, CPU points within 15 % of 54, ceilings within 20 % of 18, the median
absolute CPU error. Run from the repository's root (its output is beta.txt beside it):
  load/.venv/bin/python docs/results/calibrate-2026-11-29/beta.py > docs/results/calibrate-2026-11-29/beta.txt"""
import statistics
import sys

sys.path.insert(0, "load")
sys.path.insert(0, "docs/results/model-form-2026-11-28")
import events  # noqa: E402
import forms  # noqa: E402
from harness.analysis import costmodel as cm  # noqa: E402

cm.REL_FLOOR_MS = 1e9   # the fit of the time: absolute errors (docs/results/model-relative-2026-11-29: relative since)
CAL, CHECK = "docs/results/calibrate-2026-11-29/calibration.json", "docs/results/verify-2026-11-29/verify.json"

for grid in (cm.BETAS, tuple(k / 4 for k in range(161)), tuple(k / 2 for k in range(201))):
    cm.BETAS = grid
    models = events.calibration(CAL)
    cpu, ceil = forms.points(forms.git_json(CHECK))
    ce = [cm.predict(models[s][0], sh, r, forms.NCORES).cpu_ms_per_req.value / app - 1 for s, sh, r, app in cpu]
    ge = [cm.predict(models[s][0], sh, 100, forms.NCORES).max_rate.value / c - 1 for s, sh, c in ceil]
    print(f"grid to {max(grid):g}: beta " + ", ".join(f"{s} {m.beta:g}/{m.beta_machine:g}" for s, (m, _) in models.items())
          + f"; CPU {sum(abs(e) <= .15 for e in ce)} of {len(ce)}, ceilings {sum(abs(e) <= .2 for e in ge)} of {len(ge)}, "
          f"median CPU error {statistics.median(map(abs, ce)):.3f}")
