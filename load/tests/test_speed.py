"""analysis.speed on synthetic trials with a known truth: the machine's speed varies trial by trial, the yardstick
reads it, and the pairs' intervals narrow without moving off the truth."""
import math

import numpy as np
from test_stats import simulate, tol

from harness.analysis import speed, stats
from harness.analysis.targets import AA_PAIRS

TRUTH = {"virtual": 1.3}


def with_machine(recs, seed, machine_sd=0.15, seen=1.0, read_sd=0.005):
    """Each trial on a machine slower or faster by a lognormal factor (sd MACHINE_SD), which the yardstick read before
    it sees to the power SEEN (0: a yardstick blind to it) with its own reading noise READ_SD."""
    rng = np.random.default_rng(seed)
    for r in recs:
        m = rng.normal(0, machine_sd)
        r["cpu_ms_per_req"] *= math.exp(m)
        r["speed_us"] = 36.0 * math.exp(seen * m + rng.normal(0, read_sd))
    return recs


def aa(recs, metric="cpu_ms_per_req"):
    p = stats.pair(recs, *AA_PAIRS[0], "io", 2500.0, metric)
    return stats.interval(p.log_ratios, p.invocations)


def test_the_slope_is_found_and_the_a_a_interval_narrows():
    recs = with_machine(simulate(12, TRUTH, seed=5, sd=0.03, drift_sd=0.0), seed=6)
    assert abs(speed.slope(recs) - 1.0) < 0.1
    raw, adj = aa(recs), aa(speed.adjusted(recs))
    assert adj.half_width < raw.half_width / 2
    v = stats.pair(speed.adjusted(recs), "virtual", "reactive", "io", 2500.0, "cpu_ms_per_req")
    iv = stats.interval(v.log_ratios, v.invocations)
    assert iv.low <= 1.3 <= iv.high and iv.half_width < 0.1   # the series' own difference is kept


def test_a_blind_yardstick_and_missing_readings_change_nothing():
    recs = with_machine(simulate(12, TRUTH, seed=7, drift_sd=0.0), seed=8, seen=0.0, read_sd=0.05)
    assert speed.slope(recs) is None and speed.adjusted(recs) is recs   # not above its noise: nothing adjusted
    plain = simulate(12, TRUTH, seed=7)
    assert speed.slope(plain) is None and speed.adjusted(plain) is plain
    half = [dict(r, speed_us=36.0) if i % 2 else r for i, r in enumerate(plain)]   # some records without one
    assert speed.slope(half) is None


def test_adjusted_a_a_intervals_still_cover_95_percent():
    sims, hits = 300, 0
    for k in range(sims):
        recs = with_machine(simulate(8, TRUTH, seed=100 + k, inv_sd=0.03, drift_sd=0.0), seed=1000 + k)
        iv = aa(speed.adjusted(recs))
        hits += iv.low <= 1.0 <= iv.high
    assert abs(hits / sims - 0.95) <= tol(0.95, sims) + 0.02   # the slope is fitted on the same data: a small bias
