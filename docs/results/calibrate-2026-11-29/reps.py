"""How far each app got cheaper over the calibration: per series, the median over its CPU points (shape and rate)
of one repetition's CPU per request over the one before, each trial's JIT compiler CPU taken out as the fit takes
it out (jit_pct is a share of one core over the trial). Run: python3 reps.py > reps.txt; for another calibration's
folder: python3 reps.py FOLDER > FOLDER/reps.txt"""
import json
import math
import os
import statistics
import sys
from collections import defaultdict

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
cal = json.load(open(os.path.join(HERE, "calibration.json")))
rows = [dict(zip(cal["trials"]["fields"], r)) for r in cal["trials"]["rows"]]
points = defaultdict(list)
for i, r in enumerate(rows):
    if r["kind"] == "cpu":
        net = r["app_ms"] - r["jit_pct"] * 10 / max(r["sent_rps"], 1)
        points[(r["series"], json.dumps(r["shape"], sort_keys=True), r["rate"])].append((i, net))
print("series          points  rep2/rep1  rep3/rep2  rep3/rep1  (medians over the points)")
for series in dict.fromkeys(k[0] for k in points):
    ratios = defaultdict(list)
    for k, v in points.items():
        if k[0] == series and len(v) >= 3:
            (_, a), (_, b), (_, c) = sorted(v)[:3]
            ratios["21"].append(math.log(b / a))
            ratios["32"].append(math.log(c / b))
            ratios["31"].append(math.log(c / a))
    med = {k: math.exp(statistics.median(x)) for k, x in ratios.items()}
    print(f"{series:15} {len(ratios['21']):6}  {med['21']:9.3f}  {med['32']:9.3f}  {med['31']:9.3f}")
