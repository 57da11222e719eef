"""advise against the compare --workload runs of 2026-12-07 (apps measured some three to eight minutes after each start)
with the calibration fitted on all three of its repetitions (in use), its first two, its first or its last: how far
the state compare measures is from the one the calibration does (its apps ran 13 minutes without a restart and got
cheaper: reps.txt beside the calibration). Chosen on these runs, so it decides nothing; it says where compare's apps
stand. Run from the repository's root:
load/.venv/bin/python docs/results/workload-2026-12-07f/age.py docs/results/workload-2026-12-07{b,c,d,e,f} > age.txt"""
import json
import sys
from collections import Counter

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm
from harness.analysis.advice import parse_shape
from harness.analysis.costmodel import Calibration
from harness.runs import calibrate

CAL = "docs/results/calibrate-2026-12-07/calibration.json"
RUNS = sys.argv[1:] or [f"docs/results/workload-2026-12-07{x}" for x in "bcdef"]


def points():
    for run in RUNS:
        s = json.load(open(f"{run}/summary.json"))
        adv = json.load(open(f"{run}/machine.json"))["advise"]
        shape = parse_shape(adv["workload"].replace(" ", ""))
        for r in s["rows"]:
            if r["scenario"] == "workload" and r.get("cpu_ms_per_req"):
                yield run.rstrip("/").split("/")[-1], r["mode"], shape, float(r["load"]), r["cpu_ms_per_req"]


def first_reps(trials, k):
    seen, out = Counter(), []
    for t in trials:
        if t.kind in ("cpu", "memory"):
            key = (t.series, json.dumps(t.shape, sort_keys=True), t.rate)
            seen[key] += 1
            if seen[key] > k:
                continue
        out.append(t)
    return out


raw = Calibration.read(CAL, models=False)
bounds = {x: m["bounds"] for x, m in Calibration.raw(CAL)["series"].items()}
pts = list(points())
for name, k in (("all three repetitions (in use)", 3), ("the first two", 2), ("the first only", 1),
                ("the last only", -1)):
    trials = raw.trials if k == 3 else first_reps(raw.trials, k) if k > 0 else None
    if k == -1:   # the third repetition: the oldest apps
        seen, trials = Counter(), []
        for t in raw.trials:
            if t.kind in ("cpu", "memory"):
                key = (t.series, json.dumps(t.shape, sort_keys=True), t.rate)
                seen[key] += 1
                if seen[key] < 3:
                    continue
            trials.append(t)
    cal = calibrate.fit(raw.facts, trials, bounds)
    errs = []
    for run, x, sh, rate, got in pts:
        p = cm.predict(cal.series[x], sh, rate, 2).cpu_ms_per_req.value
        errs.append((run, x, rate, p / got - 1))
    within = sum(abs(e) <= 0.15 for *_, e in errs)
    print(f"{name:32} {within:2} of {len(errs)} within 15 %: "
          + " ".join(f"{e:+.0%}" for *_, e in errs))
print("points, in that order: " + "; ".join(f"{run[-1]} {x} {rate:g}" for run, x, _, rate, _ in pts))
