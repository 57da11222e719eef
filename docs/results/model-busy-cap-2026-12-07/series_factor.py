"""A factor per series on the cores' ceiling, tried after the third check of 2026-12-07 and not kept: each check's
cores' ceilings times the median of measured over predicted in the other checks of the same series (leave one check
out), against the rule in use, over every check and its calibration refitted as in use (busy held to the cores).
Run from the repository's root: load/.venv/bin/python docs/results/model-busy-cap-2026-12-07/series_factor.py"""
import json
import statistics
import sys

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm
from harness.analysis.advice import parse_shape
from harness.analysis.costmodel import Calibration
from harness.runs import calibrate

PAIRS = {
    "docs/results/calibrate-2026-11-29/calibration.json": ("verify-2026-11-29", "verify-2026-11-29b",
                                                           "verify-2026-11-29c"),
    "docs/results/calibrate-2026-12-01/calibration.json": ("verify-2026-12-01",),
    "docs/results/calibrate-2026-12-07/calibration.json": ("verify-2026-12-07", "verify-2026-12-07b",
                                                           "verify-2026-12-07c"),
}


def points():
    """(check, series, bound, measured over predicted) of every ceiling measured."""
    out = []
    for cal_path, checks in PAIRS.items():
        raw = Calibration.read(cal_path, models=False)
        bounds = {x: m["bounds"] for x, m in Calibration.raw(cal_path)["series"].items()}
        cal = calibrate.fit(raw.facts, raw.trials, bounds)
        for check in checks:
            with open(f"docs/results/{check}/verify.json") as f:
                rows = json.load(f)["rows"]
            for r in rows:
                m = cal.series.get(r["series"])
                if m is None or r["what"] != "max_rate" or not isinstance(r["measured"], (int, float)):
                    continue
                p = cm.predict(m, parse_shape(r["workload"].replace(" ", "")), 100.0, 2)
                out.append((check, r["series"], p.bound, r["measured"] / p.max_rate.value))
    return out


def main():
    pts = points()
    for s in ("virtual", "worker", "reactive"):
        qs = [q for _, se, b, q in pts if se == s and b == "cores"]
        print(f"{s:8} {len(qs)} cores' ceilings: measured over predicted {statistics.median(qs):.2f} in the median, "
              f"quartiles {', '.join(f'{x:.2f}' for x in statistics.quantiles(qs, n=4))}")
    as_is = factored = 0
    for check, s, bound, q in pts:
        others = [x for c, se, b, x in pts if c != check and se == s and b == "cores"]
        k = statistics.median(others) if bound == "cores" and others else 1.0
        as_is += abs(1 / q - 1) <= 0.2
        factored += abs(k / q - 1) <= 0.2
    print(f"ceilings within 20 %: the rule in use {as_is} of {len(pts)}, with the factor per series {factored}")


if __name__ == "__main__":
    main()
