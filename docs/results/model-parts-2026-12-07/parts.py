"""An idle factor per part of a request instead of one per series: the CPU per request as the sum over the parts
of count x (cost on a full machine + idle cost x (1 - u)), both fitted (least relative squares, every cost at 0 or
more), against the model in use (one beta per series, on a grid). Each calibration refitted both ways and asked every
check measured against it. Run from the repository's root:
load/.venv/bin/python docs/results/model-parts-2026-12-07/parts.py > docs/results/model-parts-2026-12-07/parts.txt"""
import json
import statistics
import sys

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm
from harness.analysis.advice import parse_shape
from harness.analysis.costmodel import Calibration
from harness.runs import calibrate

sys.path.insert(0, "docs/results/model-weights-2026-12-07")
from weights import PAIRS, own_errors  # noqa: E402

IN_USE = (cm.features, cm.BETAS)


def features_per_part(shape, rate, u, beta, rates=None, app=False):
    """Each part twice: its count, and its count x (1 - U); the kernel, per second and waits as in use."""
    if rates:
        rate = min(max(rate, rates[0]), rates[1])
    *parts, mdiv = cm.work(shape)
    idle = 1 - min(max(u, 0.0), 1.0)
    waits = [cm.planned_wait_ms(shape) / 1000] if app else []
    return parts + [p * idle for p in parts] + [mdiv, 1000 / max(rate, 1e-3)] + waits


RULES = {"one beta per series (in use)": IN_USE, "an idle cost per part": (features_per_part, (0.0,))}


def main():
    totals = {}
    for cal_path, checks in PAIRS.items():
        raw = Calibration.read(cal_path, models=False)
        bounds = {x: m["bounds"] for x, m in Calibration.raw(cal_path)["series"].items()}
        for name, (feats, betas) in RULES.items():
            cm.features, cm.BETAS = feats, betas
            cal = calibrate.fit(raw.facts, raw.trials, bounds)
            own = own_errors(cal)
            print(f"{name:30} {cal_path.split('/')[2]:20} own trials, median error: "
                  + ", ".join(f"{s} {e * 100:+.0f} %" for s, e in own.items()))
            for check in checks:
                with open(f"docs/results/{check}/verify.json") as f:
                    rows = json.load(f)["rows"]
                got, errs = [0, 0, 0, 0], []
                for r in rows:
                    m = cal.series.get(r["series"])
                    if m is None or not isinstance(r["measured"], (int, float)):
                        continue
                    sh = parse_shape(r["workload"].replace(" ", ""))
                    if r["what"] == "cpu_ms_per_req":
                        q = cm.predict(m, sh, r["rate"], 2).cpu_ms_per_req.value / r["measured"]
                        errs.append(q - 1)
                        got = [got[0] + (abs(q - 1) <= 0.15), got[1] + 1, *got[2:]]
                    elif r["what"] == "max_rate":
                        q = cm.predict(m, sh, 100.0, 2).max_rate.value / r["measured"]
                        got = [*got[:2], got[2] + (abs(q - 1) <= 0.20), got[3] + 1]
                print(f"{name:30} {check:20} CPU {got[0]:2}/{got[1]} (median error "
                      f"{statistics.median(errs) * 100:+.0f} %), ceilings {got[2]:2}/{got[3]}")
                totals[name] = [a + b for a, b in zip(totals.get(name, [0] * 4), got)]
    cm.features, cm.BETAS = IN_USE
    for name, (a, b, c, d) in totals.items():
        print(f"{name:30} all checks: CPU {a} of {b} within 15 %, ceilings {c} of {d} within 20 %")


if __name__ == "__main__":
    main()
