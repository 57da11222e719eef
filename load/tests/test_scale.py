"""The scale experiment's pure parts: the staircase of levels, the HTTP/1.1 ceiling, the slopes, NMT parsing, the
raised limits and the plan (--dry-run); and a --quick run against the real app (slow)."""
import json
import os
import subprocess

import pytest

from harness import cli
from harness.analysis import burst
from harness.analysis import scale as smath
from harness.report import scale_report
from harness.runs import plan, scale
from harness.sampling import jvm


def settings(*argv):
    return plan.settings(cli.compare_parser().parse(["--experiment", "scale", *argv]))


def test_levels_keep_the_rate_bounded_and_reach_each_level():
    stairs = smath.plan_levels(smath.LEVELS)
    assert [x.in_flight for x in stairs] == [1_000, 5_000, 10_000, 25_000, 50_000, 100_000]
    for x in stairs:
        assert x.rate <= smath.MAX_RATE and x.delay_ms >= smath.MIN_DELAY_MS
        assert abs(x.rate * x.delay_ms / 1000 - x.in_flight) <= 0.01 * x.in_flight
    delays = [x.delay_ms for x in stairs]
    assert delays == sorted(delays)   # an earlier level's answers are all back when the next one's hold begins
    assert (stairs[-1].rate, stairs[-1].delay_ms) == (2_000, 50_000)


def test_http1_stops_at_the_open_files_ceiling_h2c_does_not():
    assert smath.sockets_per_request("http1") == 2
    assert smath.sockets_per_request("h2c") == 0
    assert smath.sockets_per_request("h2c", "socket") == 1
    top, why = smath.ceiling("http1", "", 20_000)
    assert top == 9_750 and "open files" in why
    # the first level past the ceiling is measured too: how the app fails there is the finding
    assert smath.levels_for(smath.LEVELS, "http1", "", 20_000) == (1_000, 5_000, 10_000)
    assert smath.levels_for(smath.LEVELS, "h2c", "socket", 20_000) == (1_000, 5_000, 10_000, 25_000)
    assert smath.levels_for(smath.LEVELS, "h2c", "", 20_000) == smath.LEVELS
    assert smath.levels_for(smath.QUICK_LEVELS, "http1", "", 20_000) == smath.QUICK_LEVELS


def test_slope_is_the_least_squares_line():
    assert smath.slope([(0, 100), (1000, 600), (2000, 1100)]) == pytest.approx(0.5)
    assert smath.slope([(0, 0), (10, 10), (20, 40)]) == pytest.approx(2.0)
    assert smath.slope([(0, 5)]) is None
    assert smath.slope([(10, 5), (10, 7), (None, 3)]) is None


def test_memory_per_request_uses_the_idle_app_and_the_levels_up_to_each():
    rows = [{"mode": "virtual", "transport": "h2c", "level": lv, "in_flight": n, "rss_kib": 100_000 + 3 * n,
             "heap_after_gc_kib": 50_000 + 2 * n} for lv, n in ((1_000, 1_000), (5_000, 4_990))]
    idle = {("virtual", "h2c"): {"in_flight": 0, "rss_kib": 100_000, "heap_after_gc_kib": 50_000}}
    out = smath.with_slopes(rows, idle)
    assert [r["mem_kib_per_request"] for r in out] == [3.0, 3.0]
    assert [r["heap_kib_per_request"] for r in out] == [2.0, 2.0]


NMT = """Native Memory Tracking:

(Omitting categories weighting less than 1KB)

Total: reserved=7654321KB, committed=812345KB
       malloc: 123KB #5
       mmap:   reserved=1KB, committed=1KB

-                 Java Heap (reserved=6291456KB, committed=524288KB)
                            (mmap: reserved=6291456KB, committed=524288KB)

-                     Class (reserved=1049000KB, committed=12000KB)
                            (classes #15000)

-                    Thread (reserved=40000KB, committed=4000KB)
                            (threads #40)
"""


def test_nmt_summary_is_read_per_category():
    assert jvm.parse_nmt(NMT) == {"Total": 812_345, "Java Heap": 524_288, "Class": 12_000, "Thread": 4_000}
    assert jvm.parse_nmt("") == {}


def test_raised_limits_cover_the_longest_level_and_the_transport():
    stairs = smath.plan_levels(smath.LEVELS)
    env = smath.raised(stairs, "h2c")
    assert env["BENCH_MAX_IN_FLIGHT"] == "200000" and env["BENCH_DELAY_HTTP2"] == "true"
    assert env["BENCH_MAX_DELAY"] == "51000" and env["BENCH_REQUEST_DEADLINE"] == "81s"
    assert "QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE" not in env
    env = smath.raised(stairs[:2], "http1")
    assert env["BENCH_DELAY_HTTP2"] == "false" and env["QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE"] == "10000"
    assert smath.raised(stairs[:3], "h2c", "socket")["QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE"] == "20000"
    assert smath.vegeta_args(stairs[-1], "h2c")[0] == "-h2c"
    assert "-h2c" not in smath.vegeta_args(stairs[0], "http1")


def test_the_plan_fits_25_minutes_for_virtual_and_reactive_and_quick_fits_4():
    s = settings("--modes", "virtual,reactive")
    groups = scale.groups_of(s, 20_000)
    assert [(g[0], g[1], len(g[2])) for g in groups] == [("virtual", "http1", 3), ("virtual", "h2c", 6),
                                                        ("reactive", "http1", 3), ("reactive", "h2c", 6)]
    assert scale.estimate_run_s(s, 20_000) <= 25 * 60
    s = settings("--quick", "--modes", "virtual")
    quick = scale.groups_of(s, 20_000)
    assert [[x.in_flight for x in g[2]] for g in quick] == [[1_000, 5_000], [1_000, 5_000]]
    assert scale.estimate_run_s(s, 20_000) < 200


def test_dry_run_prints_the_staircase(capsys):
    s = settings("--dry-run", "--modes", "virtual+socket")
    assert scale.run(s, "out", "load/compare.sh") == 0
    out = capsys.readouterr().out
    assert "virtual+socket h2c: 1,000" in out and "25,000 (2,000 req/s x 12500 ms)" in out and "50,000" not in out


def test_targets_judge_the_top_level_the_memory_ratio_the_worker_and_the_probe():
    def row(mode, level, **kw):
        return {"mode": mode, "transport": "h2c", "level": level, "in_flight": level, "success_pct": 100.0,
                "mem_kib_per_request": 2.0, "probe_ok": True, "status_codes": "200:10", "errors": "", **kw}
    rows = [row("virtual", 100_000, mem_kib_per_request=3.0), row("reactive", 100_000),
            row("worker", 100_000, success_pct=1.0, in_flight=600, status_codes="200:10 503:990",
                errors="503 Service Unavailable", probe_ok=False)]
    verdicts = {t: v for t, v, _ in smath.targets(rows)}
    # the worker's slow probe is its own: the every-level target judges virtual and reactive (issue #27)
    assert list(verdicts.values()) == ["PASS", "PASS", "PASS", "PASS", "PASS", "n/a"]
    rows[2].update(status_codes="200:10 503:900 504:90", errors="503 Service Unavailable; 504 Gateway Timeout")
    past = row("virtual", 10_000, transport="http1", past_ceiling=True, probe_ok=False)   # no client connects there
    assert [v for _, v, _ in smath.targets([*rows, past])][2:5] == ["PASS", "PASS", "PASS"]
    rows[0].update(mem_kib_per_request=5.0, success_pct=99.0, probe_ok=False)
    rows[2].update(status_codes="200:10 0:990", errors="Get timeout")
    assert [v for _, v, _ in smath.targets(rows)] == ["FAIL", "PASS", "FAIL", "FAIL", "FAIL", "n/a"]
    assert [v for _, v, _ in smath.targets([])] == ["n/a"] * 6
    leaks = [{"series": "virtual", "transport": "h2c", "what": "open_files", "start": 80, "end": 85,
              "within_10_pct": True}]
    assert smath.targets(rows, leaks)[-1][1] == "PASS"
    leaks.append({**leaks[0], "what": "heap_after_gc_kib", "end": 200, "within_10_pct": False})
    assert smath.targets(rows, leaks)[-1][1:] == ("FAIL", "not: virtual h2c heap_after_gc_kib 80 -> 200")


def test_a_leak_is_growth_past_ten_percent_not_a_fall():
    """Fewer threads than at the idle start (the warm-up's pool threads retired) or a smaller heap is no leak."""
    assert smath.leak_row("worker", "h2c", "platform_threads", 101, 240, 39)["within_10_pct"]
    assert smath.leak_row("virtual", "h2c", "open_files", 70, 152, 77)["within_10_pct"]
    assert not smath.leak_row("virtual", "h2c", "open_files", 70, 152, 78)["within_10_pct"]


def test_the_pools_close_idle_connections_and_threads_before_the_leak_check():
    env = smath.raised([smath.Level(1_000, 200, 5_000, 15.0)], "h2c")
    # the socket client evicts within 1.1 x connection-ttl, Vert.x's pool within it and one cleaner period (1 s)
    assert 1.2 * int(env["QUARKUS_REST_CLIENT_DELAY_CONNECTION_TTL"]) + 1000 < smath.LEAK_CHECK_S * 1000
    assert int(env["QUARKUS_THREAD_POOL_KEEP_ALIVE_TIME"].rstrip("s")) + 1 < smath.LEAK_CHECK_S


def test_report_holds_rows_limits_leaks_and_two_charts(tmp_path):
    rows = [{"mode": "virtual", "transport": t, "level": n, "in_flight": n, "rss_kib": 300_000 + 3 * n,
             "heap_after_gc_kib": 50_000 + 2 * n, "probe_ok": True, "flags": ""}
            for t in smath.TRANSPORTS for n in (1_000, 5_000)]
    start = {"platform_threads": 30, "heap_after_gc_kib": 50_000, "open_files": 44, "rss_kib": 300_000}
    ends = [{"series": "virtual", "transport": t, "start": start, "end": {**start, "open_files": 4_000},
             "delay_calls": {"h2" if t == "h2c" else "http/1.1": 6_000}} for t in smath.TRANSPORTS]
    limits = {"virtual h2c": {"BENCH_DELAY_HTTP2": "true", "http1_ceiling": [None, "none"]}}
    scale_report.write_report(str(tmp_path), rows, {"cores": 2, "settings": {"bench.delay-http2": "true"}}, limits,
                              ends, 20_000)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["experiment"] == "scale" and len(data["rows"]) == 4 and data["limits"] == limits
    assert [x["within_10_pct"] for x in data["leak_check"] if x["what"] == "open_files"] == [False, False]
    md = (tmp_path / "summary.md").read_text()
    assert "BENCH_DELAY_HTTP2=true" in md and "at most 9,750 waiting requests" in md
    assert "delay calls over h2c true" in md and "virtual h2c: h2 6,000" in md
    assert (tmp_path / "report.html").read_text().count("<svg") == 2
    assert (tmp_path / "memory.svg").read_text().startswith("<svg") and (tmp_path / "heap.svg").exists()


@pytest.mark.slow
def test_quick_run_holds_both_transports(launcher, tmp_path):
    """The real thing, small: MariaDB, the delay service, the app and Vegeta, 1,000 and 5,000 in flight, and a
    fan-out burst per transport."""
    out, load = tmp_path / "scale", os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([os.path.join(load, "compare.sh"), "--experiment", "scale", "--quick", "--modes", "reactive",
                        "--out", str(out)], cwd=load, env=launcher.env, timeout=480)
    assert r.returncode == 0
    data = json.loads((out / "summary.json").read_text())
    rows = data["rows"]
    assert {(r["transport"], r["level"]) for r in rows} == {(t, n) for t in smath.TRANSPORTS for n in (1_000, 5_000)}
    # what a loaded machine cannot change: every level measured, held and probed (the figures are the lead's run)
    for row in rows:
        assert row["requests"] > 0 and row["success_pct"] > 0 and row["in_flight"] > 0, row
        assert row["heap_after_gc_kib"] > 0 and row["nmt_committed_kib"]["Total"] > 0, row
        assert row["mem_kib_per_request"] is not None and row["probe_ready_max_ms"] > 0, row
    assert {x["transport"] for x in data["leak_check"]} == set(smath.TRANSPORTS)
    calls = data["delay_calls"]   # the app's calls went over the transport the row names
    assert calls["reactive h2c"].get("h2", 0) > 0 and calls["reactive http1"].get("h2", 0) == 0, calls
    assert "BENCH_DELAY_HTTP2=true" in (out / "summary.md").read_text()
    assert (out / "report.html").read_text().count("<svg") == 2
    # the fan-out bursts: one request each, every call made over the transport asked for
    bursts = {b["transport"]: b for b in data["fanout_bursts"]}
    for t, calls in burst.QUICK_CALLS.items():
        assert bursts[t]["status"] == 200 and bursts[t]["calls"] == calls, bursts[t]
        assert bursts[t]["delay_calls_served"] == calls and bursts[t]["peak_heap_mib"] > 0, bursts[t]
    assert all(set(g) == {"answers_back", "later"} for g in data["heap_growth"].values())


def test_slope_fit_gives_an_error_and_the_memory_ratio_an_interval():
    b, se, n = smath.slope_fit([(0, 0), (1, 1), (2, 2), (3, 3)])
    assert (b, se, n) == (pytest.approx(1.0), pytest.approx(0.0), 4)
    b, se, n = smath.slope_fit([(0, 0), (1, 2), (2, 1), (3, 3)])
    assert b == pytest.approx(0.8) and se > 0 and n == 4
    assert smath.slope_fit([(0, 0), (1, 1)])[1] is None
    lo, hi = smath.ratio_interval(40.0, 1.0, 7, 38.0, 1.0, 7)
    assert lo < 40 / 38 < hi and hi < 2
    assert smath.ratio_interval(40.0, None, 7, 38.0, 1.0, 7) is None


def test_the_memory_target_is_judged_on_its_interval():
    def row(mode, mem, se):
        return {"mode": mode, "transport": "h2c", "level": 100_000, "in_flight": 100_000, "success_pct": 100.0,
                "mem_kib_per_request": mem, "mem_kib_per_request_se": se, "mem_kib_per_request_n": 7,
                "probe_ok": True, "status_codes": "200:10", "errors": ""}
    judged = {t: (v, m) for t, v, m in smath.targets([row("virtual", 40.0, 1.0), row("reactive", 38.0, 1.0)])}
    verdict, measured = judged["memory per waiting request (RSS slope): virtual <= 2 x reactive"]
    assert verdict == "PASS" and "95 % interval" in measured
    judged = {t: v for t, v, _ in smath.targets([row("virtual", 70.0, 20.0), row("reactive", 38.0, 1.0)])}
    assert judged["memory per waiting request (RSS slope): virtual <= 2 x reactive"] == "INCONCLUSIVE"
    judged = {t: v for t, v, _ in smath.targets([row("virtual", 90.0, 1.0), row("reactive", 38.0, 1.0)])}
    assert judged["memory per waiting request (RSS slope): virtual <= 2 x reactive"] == "FAIL"


def test_the_probe_window_reads_cpu_and_collector_pauses():
    a = {"t": 0.0, "machine_busy_s": 100.0, "machine_total_s": 200.0, "cpu_ms": 1_000.0,
         "metrics": {"gc_pause_s": 1.0, "gc_pause_max_s": 0.01, "gc_cycles_s": 3.0}}
    b = {"t": 2.0, "machine_busy_s": 103.0, "machine_total_s": 204.0, "cpu_ms": 3_000.0,
         "metrics": {"gc_pause_s": 1.25, "gc_pause_max_s": 0.2, "gc_cycles_s": 4.5}}
    assert jvm.window(a, b) == {"probe_machine_cpu_pct": 75, "probe_app_cores": 1.0, "probe_gc_pause_ms": 250,
                                  "probe_gc_pause_max_ms": 200, "probe_gc_cycles_ms": 1500}


HISTOGRAM = """ num     #instances         #bytes  class name (module)
-------------------------------------------------------
   1:        200000       20971520  [B (java.base@25.0.3)
   2:         10000        1048576  io.vertx.core.http.impl.Http2ClientStream
Total        210000       22020096
"""


def test_class_histogram_growth_names_what_the_heap_kept():
    end = {name: int(size) // 1024 for _, size, name in jvm.HISTO_LINE.findall(HISTOGRAM)}
    assert end == {"[B": 20_480, "io.vertx.core.http.impl.Http2ClientStream": 1_024}
    assert smath.heap_growth({"[B": 480}, end) == [["[B", 480, 20_480],
                                                   ["io.vertx.core.http.impl.Http2ClientStream", 0, 1_024]]
    assert smath.heap_growth(end, end) == []


def test_bursts_cover_every_series_but_the_socket_client_over_h2c():
    got = burst.bursts_of(["virtual", "virtual+socket", "worker", "reactive"], quick=False)
    assert [(s, t, c) for s, t, c, why in got if not why] == [
        ("virtual", "http1", 10_000), ("virtual", "h2c", 100_000), ("virtual+socket", "http1", 10_000),
        ("worker", "http1", 10_000), ("worker", "h2c", 100_000), ("reactive", "http1", 10_000),
        ("reactive", "h2c", 100_000)]
    assert [(s, t) for s, t, _, why in got if why] == [("virtual+socket", "h2c")]
    assert burst.path("virtual+socket", 10_000) == "/virtual/fanout?delay=1000&calls=10000"
    env = burst.raised("h2c", 100_000)
    assert env["BENCH_MAX_FANOUT_CALLS"] == "100000" and env["BENCH_DELAY_HTTP2"] == "true"
    assert "QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE" not in env
    assert burst.raised("http1", 10_000)["QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE"] == "10100"


def test_a_burst_row_has_its_peaks_and_a_refusal_its_reason():
    samples = [{"cpu_ms": 0, "rss_kb": 400_000, "threads": 30, "metrics": {"heap_bytes": 50 * 2 ** 20,
                                                                         "jvm_live_threads": 25}},
               {"cpu_ms": 5_000, "rss_kb": 900_000, "threads": 40, "metrics": {"heap_bytes": 700 * 2 ** 20,
                                                                             "jvm_live_threads": 35}}]
    idle = {"platform_threads": 30, "heap_after_gc_kib": 30 * 1024, "rss_kib": 400_000}
    row = burst.row_of("virtual", "h2c", 100_000, 200, b"{}", 4.5, idle, samples, 5_000.0, 100_000)
    assert row["wall_ms"] == 4_500 and row["over_delay_ms"] == 3_500 and row["cpu_ms_per_call"] == 0.05
    assert (row["peak_os_threads"], row["peak_jvm_threads"], row["peak_heap_mib"]) == (40, 35, 700)
    refused = burst.row_of("worker", "http1", 10_000, 503, json.dumps(
        {"status": 503, "detail": "the fan-out pool cannot queue 10000 more calls"}).encode(), 0.01, idle,
        samples, 1.0, 0)
    assert refused["detail"].startswith("the fan-out pool") and refused["cpu_ms_per_call"] is None
    md = "\n".join(burst.table_md([row, refused], [("virtual+socket", "h2c", 100_000, "HTTP/1.1 only")]))
    assert "30 -> 40" in md and "30 -> 700" in md and "not run: virtual+socket over h2c" in md
