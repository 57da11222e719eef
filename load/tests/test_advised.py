"""A compare run of a workload keeps what advise predicted before it measured (machine.json's `advise`) and its
report sets that prediction beside each step measured at a predicted rate, with the error against the model's
target; without a calibration it says why there is none."""
import json

from test_costmodel import synthetic

from harness.analysis import advice, costmodel, model
from harness.report import advised_report, contents, summary_files

SHAPE = "calls=3,delay=50,queries=2"


def calibration(tmp_path, **facts):
    trials = synthetic(series="reactive") + synthetic(series="worker", seed=2)
    cal = costmodel.Calibration(
        {"cores": 2, "cpu": "test", "date": "2026-11-29", **facts},
        {x: costmodel.fit_series(x, [t for t in trials if t.series == x],
                                 {"worker threads": 200} if x == "worker" else {}, 2) for x in ("reactive", "worker")},
        trials)
    path = tmp_path / "calibration.json"
    cal.write(path)
    return path


def row(mode, cpu, scenario="workload", load=800.0):
    return {**{k: None for k in model.FIELDS}, "scenario": scenario, "mode": mode, "tool": "vegeta", "load": load,
            "load_kind": "rate", "params": "delay=50&calls=3&queries=2", "flags": "", "cpu_ms_per_req": cpu,
            "success_pct": 100.0}


def test_the_report_sets_advises_prediction_beside_each_measured_step(tmp_path, monkeypatch):
    monkeypatch.setattr(advice, "LATEST", str(calibration(tmp_path)))
    advised = advice.registered(SHAPE, (800, 1600), ("reactive", "worker", "virtual"))
    assert [r["rate"] for r in advised["rates"]] == [800.0, 1600.0] and advised["date"] == "2026-11-29"
    assert set(advised["rates"][0]["modes"]) == {"reactive", "worker"}          # virtual: not calibrated
    json.dumps(advised)                                                          # machine.json takes it
    assert set(advice.registered(SHAPE, (800,))["rates"][0]["modes"]) == {"reactive", "worker"}   # every series
    at = {x: p["cpu_ms_per_req"] for x, p in advised["rates"][0]["modes"].items()}
    rows = [row("reactive", at["reactive"] / 0.95), row("worker", at["worker"] / 1.5), row("reactive", 0.2, "io"),
            row("virtual", 0.3)]
    out = tmp_path / "run"
    out.mkdir()
    summary_files.write_all(str(out), contents.of(str(out), rows, {"advise": advised}))
    md = (out / "summary.md").read_text()
    assert "## advise's prediction beside the measurement" in md and "calibration of 2026-11-29" in md
    assert "CPU per request within 15% of the prediction at 1 of 2 steps." in md
    lines = [x for x in md.splitlines() if x.startswith(("| reactive | 800 |", "| worker | 800 |"))]
    assert len(lines) == 2 and "| -5% |" in lines[0] and "| +50% |" in lines[1]
    html = (out / "report.html").read_text()
    assert 'id="advised"' in html and html.count('<tr class="flagged"><td class="l">worker</td>') == 1


def test_a_run_without_a_calibration_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(advice, "LATEST", str(tmp_path / "none.json"))
    monkeypatch.setattr(advice, "COMMITTED", str(tmp_path / "none.json"))
    advised = advice.registered(SHAPE, (800,), ("reactive",))
    assert advised == {"error": advised["error"]} and "no calibration yet" in advised["error"]
    md = "\n".join(contents.of(str(tmp_path), [row("reactive", 0.3)], {"advise": advised}).advised.md)
    assert "advise gave no prediction for this workload: no calibration yet" in md
    assert "No workload step" not in md
    assert contents.of(str(tmp_path), [row("reactive", 0.3)], {}).advised.md == []   # not a workload's run


def test_the_machines_speed_in_the_run_is_set_beside_the_calibrations(tmp_path, monkeypatch):
    monkeypatch.setattr(advice, "LATEST", str(calibration(tmp_path, speed_us=40.0)))
    advised = advice.registered(SHAPE, (800,))
    assert advised["speed_us"] == 40.0
    at = advised["rates"][0]["modes"]["reactive"]["cpu_ms_per_req"]
    rows = [row("reactive", at * 1.2)]                       # measured 20 % over, the yardstick 10 % slower
    slower = "\n".join(advised_report.Texts.of(rows, {"advise": advised}, {"speed_us_median": 44.0}).md)
    assert "| -17% |" in slower                              # the error is the prediction's as calibrated
    assert "read 1.10 times what it read" in slower and "the errors would be reactive -8%" in slower
    unread = "\n".join(advised_report.Texts.of(rows, {"advise": advised}, {"speed_us_median": None}).md)
    assert "| -17% |" in unread and "yardstick" not in unread
    old = {**advised, "speed_us": None}                      # a calibration before the yardstick
    assert "yardstick" not in "\n".join(advised_report.Texts.of(rows, {"advise": old}, {"speed_us_median": 44.0}).md)


def test_the_report_sets_the_predicted_ceiling_beside_where_the_runs_p99_doubled():
    """A run of several rates brackets each series' ceiling (the first step whose p99 of successes passed twice the
    lowest step's, or that served under 99 %): the prediction agrees within 20 % of that bracket, or is high or low;
    steps that stay under it cannot check it, and a lowest step over half the prediction is no unloaded yardstick."""
    top = {"reactive": 1000, "worker": 2000, "virtual": 300, "virtual+socket": 1000, "worker+socket": 5000}
    rates = (100, 600, 800, 1200)
    advised = {"rates": [{"rate": r, "modes": {x: {"max_rate": m} for x, m in top.items()}} for r in rates]}
    p99 = {"reactive": (10, None, 15, 25), "worker": (10, None, 30, None), "virtual": (10, None, 12, None),
           "virtual+socket": (None, 10, 12, 30), "worker+socket": (10, None, 11, 12)}
    rows = [{**row(x, 1.0, load=float(r)), "p99_ok_ms": v} for x, vs in p99.items()
            for r, v in zip(rates, vs) if v]
    rows[-1]["success_pct"] = 90.0   # worker+socket fell behind at 1200: past its ceiling however fast it answered
    said = {line.split("'s")[0]: line for line in advised_report.ceilings(advised, rows)}
    assert "passed twice the 100-req/s one's at 1200 req/s, not at 800 (the prediction is within 20%" in said[
        "reactive"]
    assert "at 800 req/s, not at 100 (the prediction is high by more than 20%)" in said["worker"]
    assert "stayed within twice the 100-req/s one's up to 800 req/s (the prediction is low" in said["virtual"]
    assert "at 1200 req/s, not at 800 (the prediction is high" in said["worker+socket"]
    assert "virtual+socket" not in said
    steady = [{**r, "p99_ok_ms": 10} for r in rows if r["mode"] == "worker+socket"][:2]
    assert "they cannot check it" in advised_report.ceilings(advised, steady)[0]
