"""analysis.speed on synthetic trials with a known truth: the machine's speed varies trial by trial and the
yardstick reads it (or does not)."""
import math

import numpy as np
from test_stats import simulate

from harness.analysis import speed
from harness.report.verdict_sections import speed_text

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


def test_the_slope_is_found_inside_each_series_step_and_invocation():
    recs = with_machine(simulate(12, TRUTH, seed=5, sd=0.03, drift_sd=0.0), seed=6)
    assert abs(speed.slope(recs) - 1.0) < 0.1            # the series' 1.3x difference does not enter it
    got = speed.reading(recs)
    assert got["speed_slope"] == speed.slope(recs) and 20 < got["speed_us"][0] < 36 < got["speed_us"][1] < 60
    assert f"slope of {got['speed_slope']:.2f}" in speed_text(got) and "compared as measured" in speed_text(got)


def test_a_blind_yardstick_and_missing_readings_give_no_slope():
    recs = with_machine(simulate(12, TRUTH, seed=7, drift_sd=0.0), seed=8, seen=0.0, read_sd=0.05)
    assert speed.slope(recs) is None                     # not above its noise
    assert "did not follow it" in speed_text(speed.reading(recs))
    plain = simulate(12, TRUTH, seed=7)
    assert speed.slope(plain) is None and speed.reading(plain) == {"speed_us": None, "speed_us_median": None,
                                                                            "speed_slope": None}
    assert speed_text(speed.reading(plain)) == ""
    half = [dict(r, speed_us=36.0) if i % 2 else r for i, r in enumerate(plain)]   # some records without one
    assert speed.slope(half) is None
