"""Tests of load/steps.py (one step folder -> one row) and load/sample.py on small fixture files (tests/fixtures)."""
import json
import os
import shutil

import pytest

from harness.analysis import steps
from harness.drivers import vegeta
from harness.infra import numbers
from harness.sampling import sample

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
POOL = 200   # the worker pool the fixtures' ceilings assume


@pytest.fixture(autouse=True)
def no_vegeta(monkeypatch):
    """The step fixtures hold Vegeta's JSON report, not results.bin: no binary is needed or used."""
    monkeypatch.setattr(steps, "vegeta_bin", lambda: None)


# ------------------------------------------------------------------------------------------- percentiles
def test_percentiles_match_nearest_rank_within_hdr_precision():
    values = [float(v) for v in range(1, 1001)]   # 1 .. 1000 ms
    pc = numbers.percentiles(values, (50, 99, 99.9))
    assert pc[50] == pytest.approx(500, rel=1e-3)
    assert pc[99] == pytest.approx(990, rel=1e-3)
    assert pc[99.9] == pytest.approx(999, rel=1e-3)


def test_percentiles_of_nothing_are_none():
    assert numbers.percentiles([], (50, 99)) == {50: None, 99: None}


def test_sub_millisecond_latencies_keep_their_resolution():
    assert numbers.percentile([0.25] * 10, 50) == pytest.approx(0.25, rel=1e-2)


# ------------------------------------------------------------------------------------------- success-only
def test_vegeta_csv_splits_successes_and_leaves_out_the_ramp_in():
    with open(os.path.join(FIX, "vegeta.csv")) as f:
        res = vegeta.from_csv(f.read(), ramp_in_s=0.05)
    # the first request (t = 1.0 s) opens the 50 ms ramp-in: the 1.1 s and later ones count
    assert res.requests == 5 and res.max_ms == 10000.0 and res.mean_ms == pytest.approx(2063.0)
    assert res.all_ms.get_total_count() == 5 and res.percentile_ms(0, ok_only=False) == pytest.approx(3.0, rel=1e-3)
    assert res.ok == 3                           # neither the fast 503 nor the timeout (code 0, error)
    assert res.percentile_ms(100) == pytest.approx(106.0, rel=1e-3)
    assert res.every_ms.get_total_count() == 6
    assert res.status == {"200": 4, "503": 1, "0": 1}
    assert len(res.errors) == 2


def test_hey_step_reports_success_only_latency_beside_all_answers():
    r = steps.step_figures(os.path.join(FIX, "hey-errors"), POOL)
    assert r["success_pct"] == 75.0
    assert r["p50_ok_ms"] == pytest.approx(104, rel=1e-2)   # successes only: 100 .. 110 ms
    assert r["p50_ms"] < r["p50_ok_ms"]                      # the fast 503s pull the all-answers median down
    assert "ERRORS" in r["flags"]


# ------------------------------------------------------------------------------------------- flags and CPU
def test_clean_vegeta_step_has_no_flag_and_cpu_from_the_step_ends():
    r = steps.step_figures(os.path.join(FIX, "vegeta-ok"), POOL)
    assert r["flags"] == ""
    # 2,000 CPU ms, less the JIT compiler threads' 100 (a start's cost), over 2,500 successes
    assert r["cpu_ms_per_req"] == pytest.approx(1900 / 2500, rel=1e-3)
    assert r["cpu_pct"] == pytest.approx(40.0)                            # over 5 s wall
    assert r["scrape_cpu_pct"] == pytest.approx(100 * 10 * 2.0 / 2000)    # 10 scrapes x 2 ms, stated not subtracted
    assert r["delay_cpu_pct"] == pytest.approx(50.0)
    assert r["gen_cpu_pct"] == pytest.approx(30.0)
    assert r["jit_pct"] == pytest.approx(5.0) and r["gc_pct"] == pytest.approx(2.5)
    assert r["rss_peak_mib"] == 300.0 and r["threads_peak"] == 44
    # 4 s + 1 s busy of 5 s
    assert r["host_cpu_pct"] == pytest.approx(100.0) and r["host_core_max_pct"] == pytest.approx(80.0)


def test_a_step_whose_scrape_was_measured_warm_leaves_the_scrapes_out_of_its_cpu(tmp_path):
    """A run since 2026-12-07 measures one scrape on the warm app and says so (cpu_less_scrapes):
    the harness' own scrapes are not the request's cost (at 100 req/s they were 7-9 % of it)."""
    d = tmp_path / "step"
    shutil.copytree(os.path.join(FIX, "vegeta-ok"), d)
    meta = json.loads((d / "meta.json").read_text())
    (d / "meta.json").write_text(json.dumps({**meta, "cpu_less_scrapes": True}))
    r = steps.step_figures(str(d), POOL)
    # 2,000 CPU ms, less the JIT's 100 and 10 scrapes x 2 ms, over 2,500 successes
    assert r["cpu_ms_per_req"] == pytest.approx((1900 - 20) / 2500, rel=1e-3)
    assert r["scrape_cpu_pct"] == pytest.approx(100 * 10 * 2.0 / 2000)


def test_flags_low_send_rate_below_rate_errors_and_the_client_series():
    r = steps.step_figures(os.path.join(FIX, "vegeta-flags"), POOL)
    assert set(r["flags"].split()) == {"LOW_SEND_RATE", "BELOW_RATE", "ERRORS"}
    assert r["mode"] == "worker+socket" and r["client"] == "socket"
    assert r["worker_ceiling_rps"] == 2000


# ------------------------------------------------------------------------------------------- metrics parsing
def test_jvm_metrics_from_prometheus_text():
    text = "\n".join([
        "# TYPE jvm_memory_used_bytes gauge",
        'jvm_memory_used_bytes{area="heap",id="eden"} 100.0',
        'jvm_memory_used_bytes{area="heap",id="old"} 50.0',
        'jvm_memory_used_bytes{area="nonheap",id="meta"} 999.0',
        "# TYPE process_cpu_time_ns_total counter",
        "process_cpu_time_ns_total 2.5E9",
        "# TYPE agroal_active_count gauge",
        'agroal_active_count{datasource="default"} 3.0',
        "# EOF", ""])
    m = sample.jvm_metrics(text)
    assert m["heap_bytes"] == 150.0
    assert m["process_cpu_ms"] == 2500.0
    assert m["pool_active"] == 3.0
    assert m["worker_active"] is None


def test_a_step_is_measured_once_and_the_report_reads_its_row(tmp_path):
    step = tmp_path / "vegeta-ok"
    shutil.copytree(os.path.join(FIX, "vegeta-ok"), step)
    row = steps.measure(str(step), POOL)
    assert (step / "row.json").is_file() and row == steps.step_figures(os.path.join(FIX, "vegeta-ok"), POOL)
    for raw in ("results.json", "results.bin", "samples.jsonl"):   # the tools' output, parsed no more
        (step / raw).unlink(missing_ok=True)
    assert steps.step_row(str(step), POOL) == row
