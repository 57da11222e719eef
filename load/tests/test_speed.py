"""analysis.speed on synthetic trials with a known truth: the machine's speed varies trial by trial and the
yardstick reads it (or does not); a calibration keeps the yardstick's median and advise scales its prediction by how
far the machine moved from it."""
import dataclasses
import math

import numpy as np
from test_costmodel import model, sweep_trial, synthetic
from test_stats import simulate

from harness.analysis import advice, costmodel, speed
from harness.analysis.costrecords import Trial
from harness.report.verdict_sections import speed_text
from harness.runs import advise, calibrate

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


def test_a_calibration_keeps_the_yardsticks_median_and_a_refit_reads_it_again():
    trials = [dataclasses.replace(t, speed_us=30.0 + i % 5) for i, t in enumerate(synthetic(series="reactive"))]
    cal = calibrate.fit({"cores": 2}, trials, {"reactive": {}})
    assert cal.facts["speed_us"] == 32.0                           # 30..34 in turn
    assert calibrate.fit({"cores": 2}, synthetic(series="reactive"), {"reactive": {}}).facts["speed_us"] is None


def test_the_machines_speed_beside_the_calibrations_and_the_errors_scaled_by_it():
    assert advice.speed_factor({"speed_us": 40.0}, [46.0, None, 44.0, 42.0]) == 1.1    # the lower median, over 40
    assert advice.speed_factor({"speed_us": None}, [44.0]) == 1.0                       # calibrated before it
    assert advice.speed_factor({"speed_us": 40.0}, [None]) == 1.0                       # nothing read now
    m, sh = model(), advice.parse_shape("calls=1,delay=20")
    p = costmodel.predict(m, sh, 800, 2).cpu_ms_per_req.value
    got = [Trial("worker", sh, 800, 800, 2400, 2400, p * 1.1, 1.0, 25, 30, 100, 40, 0.0, "cpu", 44.0)] * 2
    swept = [sweep_trial(50, 25), sweep_trial(900, 100), sweep_trial(900, 100)]
    cpu = advise.verify_rows(m, sh, got, swept, 2, speed=1.1)[0]
    assert cpu["error"] == -0.091 and cpu["error_at_speed"] == 0.0 and cpu["pass"]   # the target: as calibrated
    note = advise.speed_note([cpu])
    assert "read 1.10 to 1.10 times" in note and "1 of 1 CPU points would be within 15%" in note
    assert advise.speed_note(advise.verify_rows(m, sh, got, swept, 2)) == ""            # no yardstick: nothing said
