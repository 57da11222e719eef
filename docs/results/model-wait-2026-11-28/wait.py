"""The app's CPU per request grows with how long the request waits: a term per second waited, fitted on each
calibration's own trials (its one-second call beside the 20-ms ones), asked every check of 2026-11-27 and 2026-11-28
(docs/advise.md). Run from the repository's root (its output is wait.txt beside it):
  load/.venv/bin/python docs/results/model-wait-2026-11-28/wait.py > docs/results/model-wait-2026-11-28/wait.txt

  before   the model before the term (forms.before_waits)
  app      the term in the app's CPU only (harness.analysis.costmodel, in use)
  both     the term in the whole machine's CPU too, which sets the ceilings
The form was chosen on these checks, all measured before it; the check after it used new workloads."""
import contextlib
import statistics
import sys

sys.path.insert(0, "load")
sys.path.insert(0, "docs/results/model-form-2026-11-28")
import events  # noqa: E402
import forms  # noqa: E402
from harness.analysis import costmodel as cm  # noqa: E402

DAYS = {**forms.DAYS, "1cc9da3:docs/results/calibrate-pooled-2026-11-28/calibration.json":
        ("325afb5:docs/results/verify-2026-11-28e/verify.json",)}


@contextlib.contextmanager
def waits_on_machine():
    """The machine's CPU fitted on the app's terms, the per-second-waited one included."""
    terms, feats = cm.CPU_TERMS, cm.features
    cm.CPU_TERMS = cm.APP_TERMS
    cm.features = lambda shape, rate, u, beta, rates=None, app=False: feats(shape, rate, u, beta, rates, True)
    try:
        yield
    finally:
        cm.CPU_TERMS, cm.features = terms, feats


FORMS = {"before": forms.before_waits, "app": contextlib.nullcontext, "both": waits_on_machine}


def main():
    cm.REL_FLOOR_MS = 1e9   # the fit of the time: absolute errors (relative since: docs/results/model-relative-2026-11-29)
    totals = {f: [0, 0, 0, 0] for f in FORMS}
    for spec, checks in DAYS.items():
        for form, ctx in FORMS.items():
            with ctx():
                models = {s: m for s, (m, _) in events.calibration(spec).items()}
                if form == "app":
                    print(f"calibration {spec}: the app's CPU ms per second waited "
                          + ", ".join(f"{s} {m.cpu.coef[-1]:.3f}" for s, m in models.items()))
                for check in checks:
                    cpu, ceil = forms.points(forms.git_json(check))
                    ce = [cm.predict(models[s], sh, r, forms.NCORES).cpu_ms_per_req.value / app - 1
                          for s, sh, r, app in cpu]
                    ge = [cm.predict(models[s], sh, 100, forms.NCORES).max_rate.value / c - 1 for s, sh, c in ceil]
                    a, c = sum(abs(e) <= 0.15 for e in ce), sum(abs(e) <= 0.20 for e in ge)
                    t = totals[form]
                    t[:] = [t[0] + a, t[1] + len(ce), t[2] + c, t[3] + len(ge)]
                    print(f"  {check:60s} {form:6s} CPU {a:2d}/{len(ce):2d} within 15 % (median error "
                          f"{statistics.median(ce):+.2f}), ceilings {c:2d}/{len(ge):2d} within 20 %")
    print()
    for form, (a, b, c, d) in totals.items():
        print(f"every check, {form:6s}: CPU {a} of {b} within 15 %, ceilings {c} of {d} within 20 %")


if __name__ == "__main__":
    main()
