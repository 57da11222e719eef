"""Tests of the analysis in load/report.py and load/sample.py on small fixture files (tests/fixtures)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
sys.path.insert(0, os.path.dirname(HERE))
import report  # noqa: E402
import sample  # noqa: E402

report.WORKER_POOL = 200


@pytest.fixture(autouse=True)
def no_vegeta(monkeypatch):
    """The step fixtures hold Vegeta's JSON report, not results.bin: no binary is needed or used."""
    monkeypatch.setattr(report, "vegeta_bin", lambda: None)


def row(mode, load, p99, cpu=0.1, success=100.0, scenario="io", tool="vegeta", flags="", rss=200.0, **kw):
    r = {k: None for k in report.FIELDS}
    r.update(scenario=scenario, params="delay=100&calls=1", mode=mode, tool=tool, load=load,
             load_kind="rate" if tool == "vegeta" else "concurrency", p99_ms=p99, p99_ok_ms=p99, success_pct=success,
             cpu_ms_per_req=cpu, rss_peak_mib=rss, flags=flags, achieved_rps=float(load))
    r.update(kw)
    return r


# ------------------------------------------------------------------------------------------- percentiles
def test_percentiles_match_nearest_rank_within_hdr_precision():
    values = [float(v) for v in range(1, 1001)]   # 1 .. 1000 ms
    pc = report.percentiles(values, (50, 99, 99.9))
    assert pc[50] == pytest.approx(500, rel=1e-3)
    assert pc[99] == pytest.approx(990, rel=1e-3)
    assert pc[99.9] == pytest.approx(999, rel=1e-3)


def test_percentiles_of_nothing_are_none():
    assert report.percentiles([], (50, 99)) == {50: None, 99: None}


def test_sub_millisecond_latencies_keep_their_resolution():
    assert report.percentile([0.25] * 10, 50) == pytest.approx(0.25, rel=1e-2)


# ------------------------------------------------------------------------------------------- success-only
def test_vegeta_csv_splits_successes_and_leaves_out_the_ramp_in():
    with open(os.path.join(FIX, "vegeta.csv")) as f:
        lats, ok, every, codes, errors = report.vegeta_csv(f.read(), ramp_in_s=0.05)
    # the first request (t = 1.0 s) opens the 50 ms ramp-in: the 1.1 s and later ones count
    assert lats == [102.0, 3.0, 104.0, 10000.0, 106.0]
    assert ok == [102.0, 104.0, 106.0]          # neither the fast 503 nor the timeout (code 0, error)
    assert len(every) == 6
    assert codes == {"200": 4, "503": 1, "0": 1}
    assert len(errors) == 2


def test_hey_step_reports_success_only_latency_beside_all_answers():
    r = report.step_row(os.path.join(FIX, "hey-errors"))
    assert r["success_pct"] == 75.0
    assert r["p50_ok_ms"] == pytest.approx(104, rel=1e-2)   # successes only: 100 .. 110 ms
    assert r["p50_ms"] < r["p50_ok_ms"]                      # the fast 503s pull the all-answers median down
    assert "ERRORS" in r["flags"]


# ------------------------------------------------------------------------------------------- flags and CPU
def test_clean_vegeta_step_has_no_flag_and_cpu_from_the_step_ends():
    r = report.step_row(os.path.join(FIX, "vegeta-ok"))
    assert r["flags"] == ""
    assert r["cpu_ms_per_req"] == pytest.approx(2000 / 2500, rel=1e-3)   # 2,000 CPU ms over 2,500 successes
    assert r["cpu_pct"] == pytest.approx(40.0)                            # over 5 s wall
    assert r["scrape_cpu_pct"] == pytest.approx(100 * 10 * 2.0 / 2000)    # 10 scrapes x 2 ms, stated not subtracted
    assert r["delay_cpu_pct"] == pytest.approx(50.0)
    assert r["gen_cpu_pct"] == pytest.approx(30.0)
    assert r["jit_pct"] == pytest.approx(5.0) and r["gc_pct"] == pytest.approx(2.5)
    assert r["rss_peak_mib"] == 300.0 and r["threads_peak"] == 44


def test_flags_low_send_rate_below_rate_errors_and_the_client_series():
    r = report.step_row(os.path.join(FIX, "vegeta-flags"))
    assert set(r["flags"].split()) == {"LOW_SEND_RATE", "BELOW_RATE", "ERRORS"}
    assert r["mode"] == "worker+socket" and r["client"] == "socket"
    assert r["worker_ceiling_rps"] == 2000


# ------------------------------------------------------------------------------------------- medians
def test_median_row_is_one_whole_run_with_ranges():
    runs = [[row("virtual", 500, p99, cpu=cpu)] for p99, cpu in ((120, 0.30), (105, 0.10), (110, 0.50))]
    (m,) = report.median_rows(runs)
    assert m["p99_ok_ms"] == 110 and m["cpu_ms_per_req"] == 0.50   # both from the run with the median p99
    assert m["ranges"]["cpu_ms_per_req"] == [0.10, 0.50]
    assert m["ranges"]["p99_ok_ms"] == [105, 120]
    assert m["p99_range_ms"] == "105-120"
    assert m["runs"] == "3 (median: run 3)"


def test_median_of_an_even_count_takes_the_lower_run_and_counts_flags():
    runs = [[row("virtual", 500, 100, flags="ERRORS")], [row("virtual", 500, 200)]]
    (m,) = report.median_rows(runs)
    assert m["p99_ok_ms"] == 100
    assert m["flags"] == "ERRORS(1/2)"


# ------------------------------------------------------------------------------------------- targets, A/A
def test_ratio_verdicts():
    assert report.ratio_verdict([(500, 1.1), (1500, 1.2)], 1.25, {}) == "PASS"
    assert report.ratio_verdict([(500, 1.1), (1500, 1.4)], 1.25, {}) == "FAIL"
    # 1.4x against an A/A spread of 50%: the modes cannot be told apart at that rate
    assert report.ratio_verdict([(500, 1.1), (1500, 1.4)], 1.25, {1500: 0.5}) == "within noise"
    # a miss larger than the noise still fails
    assert report.ratio_verdict([(1500, 1.4)], 1.25, {1500: 0.2}) == "FAIL"
    # every difference within the noise: no verdict either way
    assert report.ratio_verdict([(500, 1.05)], 1.25, {500: 0.1}) == "within noise"
    assert report.ratio_verdict([], 1.25, {}) == "n/a"


def test_aa_spread_and_targets_mark_within_noise():
    rows = [row("reactive", 500, 100, cpu=0.10), row("reactive-aa", 500, 140, cpu=0.10),
            row("virtual", 500, 130, cpu=0.20)]
    assert report.aa_spread(rows, "io", "p99_ms") == {500: pytest.approx(0.4)}
    t = {name: verdict for name, _, verdict in report.targets(rows)}
    assert t["io: virtual p99 <= 1.25 x reactive p99 wherever reactive succeeds fully"] == "within noise"
    # the A/A pair used the same CPU: 2x is far outside a 0 % spread
    assert t["io: virtual CPU ms/req <= 1.2 x reactive's (steps both serve fully)"] == "FAIL"


def test_targets_use_success_only_latency():
    rows = [row("reactive", 4000, 120, p99_ms=2.0), row("virtual", 4000, 300, p99_ms=3.0, success=97.0)]
    t = {name: verdict for name, _, verdict in report.targets(rows)}
    assert t["io 4,000 req/s, reactive: 100% ok and p99 <= 150 ms"] == "PASS"
    assert t["io 4,000 req/s, virtual: 100% ok and p99 <= 150 ms"] == "FAIL"


def test_targets_name_each_delay_client():
    rows = [row("reactive", 500, 100), row("virtual", 500, 110), row("virtual+socket", 500, 101)]
    names = [name for name, _, _ in report.targets(rows)]
    assert any(n.startswith("io: virtual+socket p99") for n in names)
    assert any(n.startswith("io: virtual p99") for n in names)


def test_saturation_names_the_limit():
    rows = [row("reactive", 2500, 110), row("reactive", 4000, 900, success=95.0, cpu_pct=195.0, gen_cpu_pct=40.0),
            row("virtual", 2500, 110), row("virtual", 4000, 120)]
    sat = {m: (rate, why) for m, rate, why in report.saturation(rows, cores=2)}
    assert sat["reactive"][0] == 2500 and "the app's CPU" in sat["reactive"][1]
    assert sat["virtual"][0] == 4000 and "not reached" in sat["virtual"][1]


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


def test_settings_come_from_the_build_and_jvm_options_win():
    built = report.app_settings("")
    assert built["quarkus.thread-pool.max-threads"].isdigit()
    assert built["bench.blocking-client"] == "rest-client"          # a BenchConfig default
    assert built["bench.db-acquire-timeout"] == "3s"                # ${bench.db-acquire-timeout:3s} in the properties
    ran = report.app_settings("-XX:+UseParallelGC -Dbench.blocking-client=socket -Dbench.max-in-flight=7")
    assert ran["bench.blocking-client"] == "socket" and ran["bench.max-in-flight"] == "7"
    assert "requests in progress per mode 7" in report.settings_text({"java_opts": "-Dbench.max-in-flight=7"})


def test_socket_client_targets_compare_with_reactive_and_with_the_rest_client():
    rows = [row("reactive", 2500, 100, cpu=0.10), row("reactive", 4000, 100, cpu=0.10),
            row("virtual", 2500, 100, cpu=0.15), row("virtual", 4000, 100, cpu=0.15),
            row("virtual+socket", 2500, 100, cpu=0.10), row("virtual+socket", 4000, 100, cpu=0.13)]
    t = {name: (measured, verdict) for name, measured, verdict in report.targets(rows)}
    assert t["io: virtual+socket CPU ms/req <= 1.0 x reactive's (steps both serve fully)"][1] == "FAIL"   # 1.3x at 4,000
    cut = t["io: virtual+socket CPU ms/req <= 0.8 x virtual's with the REST client at 2,500 and 4,000 req/s"]
    assert cut == ("2,500/s 0.67x, 4,000/s 0.87x", "FAIL")
