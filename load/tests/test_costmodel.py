"""The cost model's maths on synthetic calibrations: a known linear cost is recovered within its interval, the
ceilings follow Little's law and the cores, and advise answers from a calibration file alone."""
import json
import math
import random

import pytest

from harness.analysis import advice, costmodel
from harness.analysis.costmodel import SHAPE_KEYS, Calibration, Trial
from harness.infra.errors import Fatal
from harness.runs import advise, calibrate

TRUE = {"fixed": 0.20, "call": 0.05, "concurrent_call": 0.04, "query": 0.08, "mdiv": 1.5, "insert": 0.3,
        "per_second": 0.04}
MACHINE = {k: 2.5 * v for k, v in TRUE.items()}


def cost(coef, shape, rate):
    return sum(c * x for c, x in zip(coef.values(), costmodel.features(shape, rate)))


def synthetic(series="virtual", noise=0.02, seed=1, reps=3):
    rng = random.Random(seed)
    out = []
    for _ in range(reps):
        for sh, rates, kind in calibrate.DESIGN:
            for r in rates:
                lat = 2 + costmodel.waited_ms(sh)
                flight = r * lat / 1000
                out.append(Trial(series, sh, r, r, int(r * 3), int(r * 3),
                                 cost(TRUE, sh, r) * (1 + rng.gauss(0, noise)),
                                 cost(MACHINE, sh, r) * (1 + rng.gauss(0, noise)), lat, lat * 1.5,
                                 100 + 0.01 * flight, 40, 0.0, kind))
    base = calibrate.SWEEP_SHAPE
    for r in calibrate.SWEEP_RATES:
        out.append(Trial(series, base, r, r, r, r, 0, 0, 25, 25 if r < 2000 else 80, 100, 40, 0.0, "sweep"))
    return out


def model(**kw):
    return costmodel.fit_series("worker", synthetic(**kw), {"worker threads": 200}, 2)


def primes_loop(n):
    """The trial divisions org.vtvr.cpu.Primes.countUpTo(n) makes, by running its loop."""
    count = 0
    for c in range(3, n + 1, 2):
        d = 3
        while d * d <= c:
            count += 1
            if c % d == 0:
                break
            d += 2
    return count


def test_divisions_count_the_kernels_loop():
    for n in (0, 2, 3, 9, 25, 1000, 12345):
        assert costmodel.divisions(n) == primes_loop(n), n


def test_a_known_linear_cost_is_recovered_within_its_interval():
    terms = model().cpu.terms(level=0.999)   # seven intervals at once: each at 99.9 %
    for name, true in TRUE.items():
        est, lo, hi = terms[name]
        assert lo <= true <= hi, (name, true, est, lo, hi)
        assert hi - lo < max(0.5 * true, 0.02) or name == "per_second"


def test_the_prediction_of_an_unseen_shape_is_within_its_interval():
    m = model(noise=0.01)
    sh = advice.parse_shape("calls=3,delay=50,queries=2,fanout=2")
    p = costmodel.predict(m, sh, 800, 2)
    true = cost(TRUE, sh, 800)
    assert p.cpu_ms_per_req.low <= true <= p.cpu_ms_per_req.high
    assert p.cores.value == pytest.approx(p.cpu_ms_per_req.value * 0.8)


def test_the_ceilings_are_littles_law_and_the_cores():
    m = model(noise=0.0)
    sh = advice.parse_shape("calls=1,delay=200")
    p = costmodel.predict(m, sh, 100, 2)
    # the worker pool: 200 threads held for the whole request (2 ms + 200 ms of waiting)
    assert p.limits["worker threads"] == pytest.approx(200 * 1000 / 202, rel=0.02)
    assert p.bound == "worker threads"
    # the cores: fitted so that the sweep's shape's ceiling lies where its p99 doubled (between 1,500 and 2,000)
    sweep = costmodel.predict(m, calibrate.SWEEP_SHAPE, 100, 2)
    assert m.sweep_ceiling == 2000 and sweep.limits["cores"] == pytest.approx((1500 * 2000) ** 0.5, rel=0.01)
    # a request needing more CPU for the same wait has a lower ceiling
    heavier = costmodel.predict(m, {**calibrate.SWEEP_SHAPE, "cpu": 50000}, 100, 2)
    assert heavier.limits["cores"] < sweep.limits["cores"]


def test_the_queue_waits_as_mmc_says():
    # one server: the wait's tail is exponential with rate mu - lam once more than 1 % wait (rho = 0.5: half wait)
    assert costmodel.wait_p99_s(50, 100, 1) == pytest.approx(math.log(0.5 / 0.01) / 50)
    assert costmodel.wait_p99_s(1, 100, 2) == 0.0 and costmodel.wait_p99_s(200, 100, 2) == math.inf
    # the ceiling: where that wait equals the unloaded p99
    r = costmodel.cores_ceiling(5.0, 0.0, 20.0, 1.0, 1)
    assert costmodel.wait_p99_s(r, 200, 1) == pytest.approx(0.020, rel=1e-3)


def test_outside_the_calibrated_range_is_said():
    p = costmodel.predict(model(), advice.parse_shape("queries=40"), 20000, 2)
    assert any("queries=40" in o for o in p.outside) and any("rate 20000" in o for o in p.outside)


def test_parse_shape_refuses_what_it_cannot_read():
    assert advice.parse_shape("calls=3, delay=50&queries=2") == {**{k: 0 for k in SHAPE_KEYS}, "calls": 3,
                                                                "delay": 50, "queries": 2}
    for bad in ("calls=x", "threads=2", "insert=2", "calls"):
        with pytest.raises(Fatal):
            advice.parse_shape(bad)


def test_advise_answers_from_a_calibration_file(tmp_path, capsys):
    trials = synthetic(series="reactive") + synthetic(series="worker", seed=2)
    cal = Calibration({"cores": 2, "cpu": "test"}, {x: costmodel.fit_series(x, [t for t in trials if t.series == x],
                                                                            {"worker threads": 200} if x == "worker"
                                                                            else {}, 2)
                                                    for x in ("reactive", "worker")}, trials)
    path = tmp_path / "calibration.json"
    cal.write(path)
    args = type("A", (), dict(calibration=str(path), modes="", workload=["calls=3,delay=50,queries=2"], rate="2500",
                              verify=False, json=True, argv=[]))
    assert advise.run(args) == 0
    doc = json.loads(capsys.readouterr().out)
    for x in ("reactive", "worker"):
        m = doc["modes"][x]
        assert m["cpu_ms_per_req_low"] <= m["cpu_ms_per_req"] <= m["cpu_ms_per_req_high"]
        assert {"cores", "rss_mib", "threads", "max_rate", "bound"} <= set(m)
    worker = doc["modes"]["worker"]
    assert worker["bound"] == min(worker["limits"], key=worker["limits"].get) and "worker threads" in worker["limits"]
    args.json = False
    advise.run(args)
    text = capsys.readouterr().out
    assert "At 2500 req/s worker falls behind" in text
