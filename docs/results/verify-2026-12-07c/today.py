"""The three checks of 2026-12-07 (eighteen workloads no calibration or earlier check had run) against the model in
use as advise answers now: calibrate-2026-12-07 as committed, its busy shares held to the cores (refitted at 08:15
UTC, docs/results/model-busy-cap-2026-12-07). The first two checks were measured with the predictions of the model
before that (verify.md there); this one (verify-2026-12-07c) with the model in use.
Run from the repository's root: load/.venv/bin/python docs/results/verify-2026-12-07c/today.py > today.txt"""
import json
import statistics
import sys

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm
from harness.analysis.advice import parse_shape

CAL = "docs/results/calibrate-2026-12-07/calibration.json"
CHECKS = ("verify-2026-12-07", "verify-2026-12-07b", "verify-2026-12-07c")


def main():
    cal = cm.Calibration.read(CAL)
    errors, ceilings = [], []
    for check in CHECKS:
        with open(f"docs/results/{check}/verify.json") as f:
            rows = json.load(f)["rows"]
        cpu, ceil = {}, [0, 0]
        for r in rows:
            if not isinstance(r["measured"], (int, float)) or r["series"] not in cal.series:
                continue
            m, sh = cal.series[r["series"]], parse_shape(r["workload"].replace(" ", ""))
            if r["what"] == "cpu_ms_per_req":
                e = cm.predict(m, sh, r["rate"], 2).cpu_ms_per_req.value / r["measured"] - 1
                cpu.setdefault(r["series"], []).append(e)
                errors.append(e)
            elif r["what"] == "max_rate":
                q = cm.predict(m, sh, 100.0, 2).max_rate.value / r["measured"]
                ceil = [ceil[0] + (abs(q - 1) <= 0.20), ceil[1] + 1]
                ceilings.append(q)
        held = {s: sum(abs(e) <= 0.15 for e in es) for s, es in cpu.items()}
        print(f"{check:20} CPU {sum(held.values())} of {sum(map(len, cpu.values()))} within 15 % "
              f"({', '.join(f'{s} {n}' for s, n in held.items())}), ceilings {ceil[0]} of {ceil[1]} within 20 %")
    a = [abs(e) for e in errors]
    print(f"all three: CPU {sum(x <= 0.15 for x in a)} of {len(a)} within 15 % (off by {statistics.median(a):.0%} "
          f"in the median, at most {max(a):.0%}), ceilings {sum(abs(q - 1) <= 0.2 for q in ceilings)} of "
          f"{len(ceilings)} within 20 % (predicted over measured {min(ceilings):.2f} to {max(ceilings):.2f})")


if __name__ == "__main__":
    main()
