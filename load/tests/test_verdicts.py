"""Tests of load/verdicts.py: coherent medians over runs, the targets against the A/A noise, saturation."""
import pytest

from harness.analysis import steps, targets, verdicts

POOL = 200   # the worker pool (quarkus.thread-pool.max-threads) the targets are judged with


def row(mode, load, p99, cpu=0.1, success=100.0, scenario="io", tool="vegeta", flags="", rss=200.0, **kw):
    r = {k: None for k in steps.FIELDS}
    r.update(scenario=scenario, params="delay=100&calls=1", mode=mode, tool=tool, load=load,
             load_kind="rate" if tool == "vegeta" else "concurrency", p99_ms=p99, p99_ok_ms=p99, success_pct=success,
             cpu_ms_per_req=cpu, rss_peak_mib=rss, flags=flags, achieved_rps=float(load))
    r.update(kw)
    return r


# ------------------------------------------------------------------------------------------- medians
def test_median_row_is_one_whole_run_with_ranges_but_its_cpu_the_median_of_every_run():
    runs = [[row("virtual", 500, p99, cpu=cpu, rss=rss)] for p99, cpu, rss in ((120, 0.30, 1), (105, 0.10, 2),
                                                                               (110, 0.50, 3))]
    (m,) = verdicts.median_rows(runs)
    assert m["p99_ok_ms"] == 110 and m["rss_peak_mib"] == 3   # from the run with the median p99
    assert m["cpu_ms_per_req"] == 0.30                        # the median of the three runs' CPU per request
    assert m["ranges"]["cpu_ms_per_req"] == [0.10, 0.50]
    assert m["ranges"]["p99_ok_ms"] == [105, 120]
    assert m["p99_range_ms"] == "105-120"
    assert m["runs"] == "3 (median: run 3)"


def test_median_of_an_even_count_takes_the_lower_run_and_counts_flags():
    runs = [[row("virtual", 500, 100, flags="ERRORS")], [row("virtual", 500, 200)]]
    (m,) = verdicts.median_rows(runs)
    assert m["p99_ok_ms"] == 100
    assert m["flags"] == "ERRORS(1/2)"


# ------------------------------------------------------------------------------------------- targets, A/A
def test_ratio_verdicts():
    le = (None, 1.25)
    assert verdicts.ratio_verdict([(500, 1.1), (1500, 1.2)], le, {}) == "PASS"
    assert verdicts.ratio_verdict([(500, 1.1), (1500, 1.4)], le, {}) == "FAIL"
    # 1.4x against an A/A spread of 50%: the modes cannot be told apart at that rate
    assert verdicts.ratio_verdict([(500, 1.1), (1500, 1.4)], le, {1500: 0.5}) == "within noise"
    # a miss larger than the noise still fails
    assert verdicts.ratio_verdict([(1500, 1.4)], le, {1500: 0.2}) == "FAIL"
    # every difference within the noise: no verdict either way
    assert verdicts.ratio_verdict([(500, 1.05)], le, {500: 0.1}) == "within noise"
    assert verdicts.ratio_verdict([], le, {}) == "n/a"
    # a lower bound and a band (targets.TARGETS' regions)
    assert verdicts.ratio_verdict([(500, 0.85)], (0.9, None), {}) == "FAIL"
    assert verdicts.ratio_verdict([(16, 0.95), (16, 1.05)], (1 / 1.1, 1.1), {}) == "PASS"
    assert verdicts.ratio_verdict([(16, 1.2)], (1 / 1.1, 1.1), {}) == "FAIL"


def test_aa_spread_and_targets_mark_within_noise():
    rows = [row("reactive", 500, 100, cpu=0.10), row("reactive-aa", 500, 140, cpu=0.10),
            row("virtual", 500, 130, cpu=0.20)]
    assert verdicts.aa_spread(rows, "io", "p99_ok_ms") == {500: pytest.approx(0.4)}
    t = {name: verdict for name, _, verdict in verdicts.targets(rows, POOL)}
    assert t["io: virtual p99 of successes <= 1.25 x reactive"] == "within noise"
    # the A/A pair used the same CPU: 2x is far outside a 0 % spread
    assert t["io: virtual CPU ms/req <= 1.2 x reactive"] == "FAIL"


def test_the_targets_are_the_data_of_targets_py_written_once():
    """Every ratio target judged on single readings is one of targets.TARGETS, named as the
    interleaved design's verdicts name it; one the data holds and no code wrote before (the
    worker pool beside reactive on a workload) is judged too."""
    series = ("reactive", "virtual", "virtual+socket", "worker")
    rows = [row(m, 500, 100, scenario=sc, params="delay=20&calls=3") for m in series
            for sc in ("io", "workload")]
    rows.append(row("worker", 600, 100, scenario="workload", params="delay=20&calls=3"))
    t = {name: verdict for name, _, verdict in verdicts.targets(rows, POOL)}
    names = {f"{sc}: {x.name}" for x in targets.TARGETS for sc in x.scenarios}
    ratio = [n for n in t if not n.startswith(("io 4,000", "io: worker sustains", "pinning"))]
    assert ratio and set(ratio) <= names
    assert t["workload: worker CPU ms/req <= 1.2 x reactive"] == "PASS"
    assert "io: worker CPU ms/req <= 1.2 x reactive" not in t   # that claim is a workload's only


def test_targets_use_success_only_latency():
    rows = [row("reactive", 4000, 120, p99_ms=2.0), row("virtual", 4000, 300, p99_ms=3.0, success=97.0)]
    t = {name: verdict for name, _, verdict in verdicts.targets(rows, POOL)}
    assert t["io 4,000 req/s, reactive: 100% ok and p99 <= 150 ms"] == "PASS"
    assert t["io 4,000 req/s, virtual: 100% ok and p99 <= 150 ms"] == "FAIL"


def test_targets_name_each_delay_client():
    rows = [row("reactive", 500, 100), row("virtual", 500, 110), row("virtual+socket", 500, 101)]
    names = [name for name, _, _ in verdicts.targets(rows, POOL)]
    assert any(n.startswith("io: virtual+socket p99") for n in names)
    assert any(n.startswith("io: virtual p99") for n in names)


def test_saturation_names_the_limit():
    rows = [row("reactive", 2500, 110), row("reactive", 4000, 900, success=95.0, cpu_pct=195.0, gen_cpu_pct=40.0),
            row("virtual", 2500, 110), row("virtual", 4000, 120)]
    sat = {m: (rate, why) for m, rate, why in verdicts.saturation(rows, cores=2)}
    assert sat["reactive"][0] == 2500 and "the app's CPU" in sat["reactive"][1]
    assert sat["virtual"][0] == 4000 and "not reached" in sat["virtual"][1]


def test_saturation_counts_the_whole_machine_and_the_cores_left_to_the_generator():
    # the processes' own CPU (120 + 40 + 20) leaves room, but the machine (database, kernel) was full
    full = [row("reactive", 2500, 110), row("reactive", 7000, 300, cpu_pct=120.0, gen_cpu_pct=40.0,
                                            delay_cpu_pct=20.0, host_cpu_pct=192.0, host_core_max_pct=97.0)]
    (_, rate, why), = verdicts.saturation(full, cores=2)
    assert rate == 2500 and "the machine's CPU" in why and "machine 192% of 200%" in why
    # the app on its own core at 70 %, the other core full
    pinned = [row("virtual", 2500, 110), row("virtual", 4000, 600, cpu_pct=70.0, gen_cpu_pct=50.0,
                                            delay_cpu_pct=30.0, host_cpu_pct=170.0, host_core_max_pct=99.0)]
    (_, rate, why), = verdicts.saturation(pinned, cores=2, app_cores=1)
    assert rate == 2500 and "the cores left to the generator" in why
    # 85 % of the machine, no process at its own limit: the shared cores
    busy = [row("virtual", 4000, 110), row("virtual", 5500, 232, cpu_pct=86.0, gen_cpu_pct=57.0,
                                            delay_cpu_pct=26.0, host_cpu_pct=169.0, host_core_max_pct=86.0)]
    (_, rate, why), = verdicts.saturation(busy, cores=2)
    assert rate == 4000 and "the machine's CPU" in why
    # neither: a pool or a queue
    quiet = [row("worker", 1000, 110), row("worker", 2500, 320, success=79.0, cpu_pct=60.0, gen_cpu_pct=27.0,
                                           delay_cpu_pct=11.0, host_cpu_pct=110.0, host_core_max_pct=60.0)]
    (_, rate, why), = verdicts.saturation(quiet, cores=2)
    assert rate == 1000 and "not CPU" in why


def test_socket_client_targets_compare_with_reactive_and_with_the_rest_client():
    rows = [row("reactive", 2500, 100, cpu=0.10), row("reactive", 4000, 100, cpu=0.10),
            row("virtual", 2500, 100, cpu=0.15), row("virtual", 4000, 100, cpu=0.15),
            row("virtual+socket", 2500, 100, cpu=0.10), row("virtual+socket", 4000, 100, cpu=0.13)]
    t = {name: (measured, verdict) for name, measured, verdict in verdicts.targets(rows, POOL)}
    # 1.3x at 4,000
    assert t["io: virtual+socket CPU ms/req <= 1 x reactive"][1] == "FAIL"
    cut = t["io: virtual+socket CPU ms/req <= 0.8 x virtual"]
    assert cut == ("2,500/s 0.67x, 4,000/s 0.87x", "FAIL")


def test_saturation_over_runs_keeps_each_runs_point():
    runs = [[("virtual", 5500.0, "x"), ("reactive", None, "y")], [("virtual", 4000.0, "x"), ("reactive", 7000.0, "y")]]
    assert verdicts.saturation_over_runs(runs) == {"virtual": [5500.0, 4000.0], "reactive": [None, 7000.0]}
