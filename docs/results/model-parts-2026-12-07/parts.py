"""An idle factor per part of a request instead of one per series: the CPU per request as the sum over the parts
of count x (cost on a full machine + idle cost x (1 - u)), both fitted (least relative squares, every cost at 0 or
more), against the model in use (one beta per series, on a grid). Each calibration refitted both ways and asked every
check measured against it. Run from the repository's root:
load/.venv/bin/python docs/results/model-parts-2026-12-07/parts.py > docs/results/model-parts-2026-12-07/parts.txt"""
import sys

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm

sys.path.insert(0, "docs/results/model-weights-2026-12-07")
from weights import PAIRS, ask  # noqa: E402

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
        for name, (feats, betas) in RULES.items():
            cm.features, cm.BETAS = feats, betas
            ask(name, cal_path, checks, totals, width=30)
    cm.features, cm.BETAS = IN_USE
    for name, (a, b, c, d) in totals.items():
        print(f"{name:30} all checks: CPU {a} of {b} within 15 %, ceilings {c} of {d} within 20 %")


if __name__ == "__main__":
    main()
