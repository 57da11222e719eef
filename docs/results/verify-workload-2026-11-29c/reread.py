"""verify.json's rows again from its own trials, with the code of this commit: the run (15:24-15:31) scaled every
CPU figure predicted by the machine's yardstick; since then the error is the prediction's as calibrated and the
scaled one sits beside it (`error_at_speed`). Run from load/: .venv/bin/python ../docs/results/verify-workload-2026-11-29c/reread.py"""
import json
import os

from harness.analysis.advice import speed_factor
from harness.analysis.costmodel import Calibration, Trial
from harness.runs.advise import verify_page, verify_rows

HERE = os.path.dirname(os.path.abspath(__file__))
doc = json.load(open(os.path.join(HERE, "verify.json")))
cal = Calibration.read(os.path.join(HERE, "..", "calibrate-2026-11-29c", "calibration.json"))
trials = Trial.of_json(doc["trials"])
rows = []
for shape in dict.fromkeys(json.dumps(t.shape, sort_keys=True) for t in trials if t.kind == "cpu"):
    for series in dict.fromkeys(t.series for t in trials):
        mine = [t for t in trials if t.series == series and json.dumps(t.shape, sort_keys=True) == shape]
        got = [t for t in mine if t.kind == "cpu"]
        swept = sorted((t for t in mine if t.kind == "sweep"), key=lambda t: t.rate)
        if got:
            rows += verify_rows(cal.series[series], json.loads(shape), got, swept, cal.facts["cores"],
                                speed_factor(cal.facts, [t.speed_us for t in got + swept]))
doc["rows"] = rows
with open(os.path.join(HERE, "verify.json"), "w") as f:
    json.dump(doc, f, separators=(",", ":"))
with open(os.path.join(HERE, "verify.md"), "w") as f:
    f.write(verify_page(rows, cal))
print(verify_page(rows, cal))
