"""The scale experiment's pure parts: the staircase of levels, the HTTP/1.1 ceiling, the slopes, NMT parsing, the
raised limits and the plan (--dry-run); and a --quick run against the real app (slow)."""
import json
import os
import subprocess

import pytest

from harness import cli, plan, procs, scale


def settings(*argv):
    return plan.settings(cli.compare_parser().parse(["--experiment", "scale", *argv]), {})


def test_levels_keep_the_rate_bounded_and_reach_each_level():
    stairs = scale.plan_levels(scale.LEVELS)
    assert [x.in_flight for x in stairs] == [1_000, 5_000, 10_000, 25_000, 50_000, 100_000]
    for x in stairs:
        assert x.rate <= scale.MAX_RATE and x.delay_ms >= scale.MIN_DELAY_MS
        assert abs(x.rate * x.delay_ms / 1000 - x.in_flight) <= 0.01 * x.in_flight
    delays = [x.delay_ms for x in stairs]
    assert delays == sorted(delays)   # an earlier level's answers are all back when the next one's hold begins
    assert (stairs[-1].rate, stairs[-1].delay_ms) == (2_000, 50_000)


def test_http1_stops_at_the_open_files_ceiling_h2c_does_not():
    assert scale.sockets_per_request("http1") == 2
    assert scale.sockets_per_request("h2c") == 0
    assert scale.sockets_per_request("h2c", "socket") == 1
    top, why = scale.ceiling("http1", "", 20_000)
    assert top == 9_750 and "open files" in why
    # the first level past the ceiling is measured too: how the app fails there is the finding
    assert scale.levels_for(scale.LEVELS, "http1", "", 20_000) == (1_000, 5_000, 10_000)
    assert scale.levels_for(scale.LEVELS, "h2c", "socket", 20_000) == (1_000, 5_000, 10_000, 25_000)
    assert scale.levels_for(scale.LEVELS, "h2c", "", 20_000) == scale.LEVELS
    assert scale.levels_for(scale.QUICK_LEVELS, "http1", "", 20_000) == scale.QUICK_LEVELS


def test_slope_is_the_least_squares_line():
    assert scale.slope([(0, 100), (1000, 600), (2000, 1100)]) == pytest.approx(0.5)
    assert scale.slope([(0, 0), (10, 10), (20, 40)]) == pytest.approx(2.0)
    assert scale.slope([(0, 5)]) is None
    assert scale.slope([(10, 5), (10, 7), (None, 3)]) is None


def test_memory_per_request_uses_the_idle_app_and_the_levels_up_to_each():
    rows = [{"mode": "virtual", "transport": "h2c", "level": lv, "in_flight": n, "rss_kib": 100_000 + 3 * n,
             "heap_after_gc_kib": 50_000 + 2 * n} for lv, n in ((1_000, 1_000), (5_000, 4_990))]
    idle = {("virtual", "h2c"): {"in_flight": 0, "rss_kib": 100_000, "heap_after_gc_kib": 50_000}}
    out = scale.with_slopes(rows, idle)
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
    assert scale.parse_nmt(NMT) == {"Total": 812_345, "Java Heap": 524_288, "Class": 12_000, "Thread": 4_000}
    assert scale.parse_nmt("") == {}


def test_raised_limits_cover_the_longest_level_and_the_transport():
    stairs = scale.plan_levels(scale.LEVELS)
    env = scale.raised(stairs, "h2c")
    assert env["BENCH_MAX_IN_FLIGHT"] == "200000" and env["BENCH_DELAY_HTTP2"] == "true"
    assert env["BENCH_MAX_DELAY"] == "51000" and env["BENCH_REQUEST_DEADLINE"] == "81s"
    assert "QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE" not in env
    env = scale.raised(stairs[:2], "http1")
    assert env["BENCH_DELAY_HTTP2"] == "false" and env["QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE"] == "10000"
    assert scale.raised(stairs[:3], "h2c", "socket")["QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE"] == "20000"
    assert scale.vegeta_args(stairs[-1], "h2c")[0] == "-h2c"
    assert "-h2c" not in scale.vegeta_args(stairs[0], "http1")


def test_the_plan_fits_25_minutes_for_virtual_and_reactive_and_quick_fits_2():
    s = settings("--modes", "virtual,reactive")
    groups = scale.groups_of(s, 20_000)
    assert [(g[0], g[1], len(g[2])) for g in groups] == [("virtual", "http1", 3), ("virtual", "h2c", 6),
                                                        ("reactive", "http1", 3), ("reactive", "h2c", 6)]
    assert scale.estimate_s(groups, plan.warmup_s(s)) <= 25 * 60
    s = settings("--quick", "--modes", "virtual")
    quick = scale.groups_of(s, 20_000)
    assert [[x.in_flight for x in g[2]] for g in quick] == [[1_000, 5_000], [1_000, 5_000]]
    assert scale.estimate_s(quick, plan.warmup_s(s)) < 120


def test_dry_run_prints_the_staircase(capsys):
    s = settings("--dry-run", "--modes", "virtual+socket")
    assert scale.run(s, []) == 0
    out = capsys.readouterr().out
    assert "virtual+socket h2c: 1,000" in out and "25,000 (2,000 req/s x 12500 ms)" in out and "50,000" not in out


def test_targets_judge_the_top_level_the_memory_ratio_the_worker_and_the_probe():
    def row(mode, level, **kw):
        return {"mode": mode, "transport": "h2c", "level": level, "in_flight": level, "success_pct": 100.0,
                "mem_kib_per_request": 2.0, "probe_ok": True, "status_codes": "200:10", "errors": "", **kw}
    rows = [row("virtual", 100_000, mem_kib_per_request=3.0), row("reactive", 100_000),
            row("worker", 100_000, success_pct=1.0, in_flight=600, status_codes="200:10 503:990",
                errors="503 Service Unavailable", probe_ok=False)]
    verdicts = {t: v for t, v, _ in scale.targets(rows)}
    assert list(verdicts.values()) == ["PASS", "PASS", "PASS", "PASS", "FAIL"]
    rows[0].update(mem_kib_per_request=5.0, success_pct=99.0)
    rows[2].update(status_codes="200:10 0:990", errors="Get timeout")
    assert [v for _, v, _ in scale.targets(rows)] == ["FAIL", "PASS", "FAIL", "FAIL", "FAIL"]
    assert [v for _, v, _ in scale.targets([])] == ["n/a"] * 5


def test_report_holds_rows_limits_leaks_and_two_charts(tmp_path):
    rows = [{"mode": "virtual", "transport": t, "level": n, "in_flight": n, "rss_kib": 300_000 + 3 * n,
             "heap_after_gc_kib": 50_000 + 2 * n, "probe_ok": True, "flags": ""}
            for t in scale.TRANSPORTS for n in (1_000, 5_000)]
    start = {"platform_threads": 30, "heap_after_gc_kib": 50_000, "open_files": 44, "rss_kib": 300_000}
    ends = [{"series": "virtual", "transport": t, "start": start, "end": {**start, "open_files": 4_000},
             "delay_calls": {"h2" if t == "h2c" else "http/1.1": 6_000}} for t in scale.TRANSPORTS]
    limits = {"virtual h2c": {"BENCH_DELAY_HTTP2": "true", "http1_ceiling": [None, "none"]}}
    scale.write_report(str(tmp_path), rows, {"cores": 2, "settings": {"bench.delay-http2": "true"}}, limits, ends,
                       20_000)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["experiment"] == "scale" and len(data["rows"]) == 4 and data["limits"] == limits
    assert [x["within_10_pct"] for x in data["leak_check"] if x["what"] == "open_files"] == [False, False]
    md = (tmp_path / "summary.md").read_text()
    assert "BENCH_DELAY_HTTP2=true" in md and "at most 9,750 waiting requests" in md
    assert "delay calls over h2c true" in md and "virtual h2c: h2 6,000" in md
    assert (tmp_path / "report.html").read_text().count("<svg") == 2


@pytest.mark.slow
def test_quick_run_holds_both_transports(tmp_path):
    """The real thing, small: MariaDB, the delay service, the app and Vegeta, 1,000 and 5,000 in flight."""
    out, load = tmp_path / "scale", os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "DB_PORT": str(procs.free_port()), "DB_DIR": str(tmp_path / "db")}
    env.pop("PYTHON", None)
    r = subprocess.run([os.path.join(load, "compare.sh"), "--experiment", "scale", "--quick", "--modes", "reactive",
                        "--out", str(out)], cwd=load, env=env, timeout=300)
    assert r.returncode == 0
    data = json.loads((out / "summary.json").read_text())
    rows = data["rows"]
    assert {(r["transport"], r["level"]) for r in rows} == {(t, n) for t in scale.TRANSPORTS for n in (1_000, 5_000)}
    # what a loaded machine cannot change: every level measured, held and probed (the figures are the lead's run)
    for row in rows:
        assert row["requests"] > 0 and row["success_pct"] > 0 and row["in_flight"] > 0, row
        assert row["heap_after_gc_kib"] > 0 and row["nmt_committed_kib"]["Total"] > 0, row
        assert row["mem_kib_per_request"] is not None and row["probe_ready_max_ms"] > 0, row
    assert {x["transport"] for x in data["leak_check"]} == set(scale.TRANSPORTS)
    calls = data["delay_calls"]   # the app's calls went over the transport the row names
    assert calls["reactive h2c"].get("h2", 0) > 0 and calls["reactive http1"].get("h2", 0) == 0, calls
    assert "BENCH_DELAY_HTTP2=true" in (out / "summary.md").read_text()
    assert (out / "report.html").read_text().count("<svg") == 2
