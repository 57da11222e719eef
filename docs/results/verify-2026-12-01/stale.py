"""The same measurements (advise --verify of 2026-12-01, verify.json here) set against the calibration of an earlier,
faster day on the same machine (2026-11-29 15:02, calibrate-2026-11-29c): that calibration's CPU per request as
advise gives it, and scaled by the ratio of the yardsticks (the verify run's trials over that calibration's), beside
today's calibration's own prediction. Run with the harness's venv, from the repository:
load/.venv/bin/python docs/results/verify-2026-12-01/stale.py > docs/results/verify-2026-12-01/stale.txt;
another check against another calibration: stale.py OLD/calibration.json CHECK/verify.json"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "load"))
from harness.analysis import costmodel  # noqa: E402
from harness.analysis.advice import parse_shape, predictions  # noqa: E402

OLD, CHECK = sys.argv[1:3] if len(sys.argv) == 3 else (
    os.path.join(HERE, "..", "calibrate-2026-11-29c", "calibration.json"), os.path.join(HERE, "verify.json"))
old = costmodel.Calibration.read(OLD)
then = old.facts["date"][:10]
ver = json.load(open(CHECK))
trials = [dict(zip(ver["trials"]["fields"], r)) for r in ver["trials"]["rows"]]
speed_now = statistics.median(t["speed_us"] for t in trials if t.get("speed_us"))
speed_old = old.facts["speed_us"]
k = speed_now / speed_old
print(f"yardstick: the verify run's trials {speed_now:.1f} us, the {then} calibration's {speed_old:.1f} us: "
      f"x{k:.2f}")
print(f"workload | series | rate | measured | today's calibration | {then}'s | {then}'s x yardstick")
within = {"today": 0, "old": 0, "scaled": 0}
n = 0
for r in ver["rows"]:
    if r["what"] != "cpu_ms_per_req" or not r["measured"]:
        continue
    shape = parse_shape(r["workload"].replace(" ", ""))
    p = predictions(old, shape, r["rate"], [r["series"]])[r["series"]].cpu_ms_per_req.value
    errs = {"today": r["predicted"] / r["measured"] - 1, "old": p / r["measured"] - 1,
            "scaled": p * k / r["measured"] - 1}
    n += 1
    for key, e in errs.items():
        within[key] += abs(e) <= 0.15
    print(f"{r['workload']} | {r['series']} | {r['rate']:.0f} | {r['measured']:.3f} | "
          + " | ".join(f"{e:+.0%}" for e in errs.values()))
print(f"within 15 %: today's calibration {within['today']} of {n}, {then}'s {within['old']}, "
      f"scaled by the yardstick {within['scaled']}")
