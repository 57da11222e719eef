"""The machine's speed beside CPU per request (docs/statistics.md, "The machine's speed").

Before each trial a yardstick (sampling/yardstick.py) reads into `speed_us`. The slope of log CPU
per request on it is a diagnostic in the report's design line: adjusting by it narrowed four A/A
intervals and widened two (one +-18 % -> +-36 %), so verdicts use CPU per request as measured."""
import math
import statistics

METRIC = "cpu_ms_per_req"
MIN_DF = 8            # fewer paired readings: no slope, nothing adjusted
SLOPE_MAX = 2.0


def _usable(r):
    return not r.get("error") and (r.get(METRIC) or 0) > 0 and (r.get("speed_us") or 0) > 0


def slope(records):
    """The pooled within-group slope of log METRIC on log speed_us, at most SLOPE_MAX.

    Groups: series, scenario, rate, invocation. None unless every measured record has a reading,
    df >= MIN_DF and the slope is over 2 standard errors (a blind yardstick adjusts nothing)."""
    measured = [r for r in records if not r.get("error") and (r.get(METRIC) or 0) > 0]
    if not measured or not all(_usable(r) for r in measured):
        return None
    groups = {}
    for r in measured:
        key = (r["series"], r["scenario"], float(r["rate"]), r.get("invocation"))
        groups.setdefault(key, []).append((math.log(r["speed_us"]), math.log(r[METRIC])))
    centred = []
    for pts in groups.values():
        mx, my = (sum(p[i] for p in pts) / len(pts) for i in (0, 1))
        centred += [(x - mx, y - my) for x, y in pts]
    df = sum(len(pts) - 1 for pts in groups.values())
    sxx = sum(x * x for x, _ in centred)
    if df < MIN_DF or sxx <= 0:
        return None
    b = sum(x * y for x, y in centred) / sxx
    se = math.sqrt(sum((y - b * x) ** 2 for x, y in centred) / max(1, df - 1) / sxx)
    return min(b, SLOPE_MAX) if b > 2 * se else None


def reading(records):
    """For the report's design line: {"speed_us": [min, max] or None, "speed_us_median": the lower
    median or None (set beside a calibration's: advice.speed_factor), "speed_slope": slope()}."""
    xs = [r["speed_us"] for r in records if _usable(r)]
    return {"speed_us": [min(xs), max(xs)] if xs else None,
            "speed_us_median": statistics.median_low(xs) if xs else None,
            "speed_slope": slope(records)}
