"""A trial's busy cores held to the machine's (costrecords.busy, since 2026-12-07 08:40 UTC) against the rate sent
times the machine's CPU per request as before, which read up to 1.46 x the cores at the top of the calibration's
sweeps (that CPU is read over Vegeta's whole run, the last answers' drain included), so the sweep's curve of p99's
growth against the busy share, and the cores' ceiling read from it, ran past the machine's cores. Each calibration
refitted both ways and asked every check measured against it: CPU per request within 15 %, ceilings within 20 %.
Run from the repository's root: load/.venv/bin/python docs/results/model-busy-cap-2026-12-07/cap.py > cap.txt"""
import json
import sys

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm
from harness.analysis.advice import parse_shape
from harness.analysis.costmodel import Calibration
from harness.runs import calibrate

PAIRS = {
    "docs/results/calibrate-2026-11-29/calibration.json": (
        "docs/results/verify-2026-11-29/verify.json", "docs/results/verify-2026-11-29b/verify.json",
        "docs/results/verify-2026-11-29c/verify.json"),
    "docs/results/calibrate-2026-12-01/calibration.json": ("docs/results/verify-2026-12-01/verify.json",),
    "docs/results/calibrate-2026-12-07/calibration.json": (
        "docs/results/verify-2026-12-07/verify.json", "docs/results/verify-2026-12-07b/verify.json"),
}
RULES = {"rate x CPU per request (before)": lambda t, ncores: t.machine_ms * t.sent_rps / 1000,
         "at most the cores (in use)": cm.busy}


def main():
    totals = {}
    for cal_path, checks in PAIRS.items():
        raw = Calibration.read(cal_path, models=False)
        bounds = {x: m["bounds"] for x, m in Calibration.raw(cal_path)["series"].items()}
        for name, busy in RULES.items():
            cm.busy = busy
            cal = calibrate.fit(raw.facts, raw.trials, bounds)
            for check in checks:
                with open(check) as f:
                    rows = json.load(f)["rows"]
                got = [0, 0, 0, 0]   # CPU within, CPU points, ceilings within, ceilings
                for r in rows:
                    m = cal.series.get(r["series"])
                    if m is None or not isinstance(r["measured"], (int, float)):
                        continue
                    sh = parse_shape(r["workload"].replace(" ", ""))
                    if r["what"] == "cpu_ms_per_req":
                        q = cm.predict(m, sh, r["rate"], 2).cpu_ms_per_req.value / r["measured"]
                        got = [got[0] + (abs(q - 1) <= 0.15), got[1] + 1, *got[2:]]
                    elif r["what"] == "max_rate":
                        q = cm.predict(m, sh, 100.0, 2).max_rate.value / r["measured"]
                        got = [*got[:2], got[2] + (abs(q - 1) <= 0.20), got[3] + 1]
                print(f"{name:32} {check.split('/')[2]:20} CPU {got[0]:2}/{got[1]}, ceilings {got[2]:2}/{got[3]}")
                totals[name] = [a + b for a, b in zip(totals.get(name, [0] * 4), got)]
    cm.busy = RULES["at most the cores (in use)"]
    for name, (a, b, c, d) in totals.items():
        print(f"{name:32} all seven checks: CPU {a} of {b} within 15 %, ceilings {c} of {d} within 20 %")


if __name__ == "__main__":
    main()
