"""Does a request's CPU follow the machine's yardstick from one day to another? The calibration of 2026-12-01 against
the one of 2026-11-29 15:02 on the same machine: per series and shape, the median over the matched points (same
shape, same rate, every repetition) of the CPU per request measured now over then, each trial's JIT compiler CPU
taken out as the fit takes it out, beside the ratio of the two calibrations' yardstick medians.
Run: python3 drift.py > drift.txt; any other two: python3 drift.py THEN/calibration.json NOW/calibration.json"""
import json
import math
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
THEN = os.path.join(HERE, "..", "calibrate-2026-11-29c", "calibration.json")
NOW = os.path.join(HERE, "calibration.json")
if len(sys.argv) == 3:
    THEN, NOW = sys.argv[1:]


def points(path):
    cal = json.load(open(path))
    rows = [dict(zip(cal["trials"]["fields"], r)) for r in cal["trials"]["rows"]]
    out = defaultdict(list)
    for r in rows:
        if r["kind"] == "cpu" and r["requests"] and r["ok"] / r["requests"] >= 0.99:
            net = r["app_ms"] - r["jit_pct"] * 10 / max(r["sent_rps"], 1)
            if net > 0:
                out[(r["series"], json.dumps(r["shape"], sort_keys=True), r["rate"])].append(net)
    speeds = [r["speed_us"] for r in rows if r.get("speed_us")]
    return out, statistics.median(speeds), cal["facts"]


def shape_text(key):
    s = json.loads(key)
    return ",".join(f"{k}={v}" for k, v in s.items() if v and k != "delay") or "none"


then, speed_then, facts_then = points(THEN)
now, speed_now, facts_now = points(NOW)
factor = speed_now / speed_then
print(f"yardstick median: then {speed_then:.1f} us ({facts_then['date']}), now {speed_now:.1f} us "
      f"({facts_now['date']}): now / then {factor:.2f}")
print("series          shape         rate   now/then (CPU per request, medians of each calibration's repetitions)")
by_series = defaultdict(list)
for key in sorted(set(then) & set(now)):
    series, shape, rate = key
    r = statistics.median(now[key]) / statistics.median(then[key])
    by_series[series].append(math.log(r))
    print(f"{series:15} {shape_text(shape):12} {rate:5.0f}   {r:5.2f}")
print()
print("series          points  median now/then  range           median over the yardstick's now/then")
for series, logs in by_series.items():
    med = math.exp(statistics.median(logs))
    print(f"{series:15} {len(logs):6}  {med:15.2f}  {math.exp(min(logs)):.2f}-{math.exp(max(logs)):.2f}"
          f"       {med / factor:6.2f}")
