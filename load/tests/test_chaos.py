"""Tests of harness/chaos: the probes (recover, smoke) against a local HTTP server, the checkout bookkeeping (verify)
on crafted Vegeta results, check records, the summary, and the hostile client's metric reading."""
import base64
import json
import time

import pytest

from harness.runs.chaos import chaos, hostile
from harness.runs.chaos.params import SHUTDOWN_S, stretch_limits
from harness.sampling.yardstick import REFERENCE_US, stretch


def test_targets_tag_every_request_and_round_robin_the_modes(tmp_path):
    out = tmp_path / "targets.jsonl"
    chaos.write_targets("http://h", ["virtual=/virtual/orders", "reactive=/reactive/orders?delay=0"], "r1", 4, out)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [t["url"] for t in lines] == ["http://h/virtual/orders?tag=chaos-r1-0",
                                         "http://h/reactive/orders?delay=0&tag=chaos-r1-1",
                                         "http://h/virtual/orders?tag=chaos-r1-2",
                                         "http://h/reactive/orders?delay=0&tag=chaos-r1-3"]
    assert json.loads(base64.b64decode(lines[1]["body"]))["customer"] == "chaos-r1-1"


def test_the_command_line_takes_mode_equals_path(tmp_path):
    out = tmp_path / "t.jsonl"
    chaos.main(["targets", "--base", "http://h", "--path", "worker=/worker/orders?delay=100", "--runid", "r",
                "--count", "1", "--out", str(out)])
    assert json.loads(out.read_text())["url"] == "http://h/worker/orders?delay=100&tag=chaos-r-0"


def test_report_figures_of_a_vegeta_report():
    f = chaos.report_figures({"requests": 10, "rate": 9.99, "throughput": 8.0, "success": 0.8,
                              "status_codes": {"200": 8, "503": 2}, "latencies": {"50th": 2e6, "99th": 9e6},
                              "errors": ["x" * 200]})
    assert f["p50_ms"] == 2.0 and f["p99_ms"] == 9.0 and f["codes"] == {"200": 8, "503": 2}
    assert len(f["errors"][0]) == 100


def test_smoke_passes_on_the_expected_code_and_fails_on_another(http_server):
    base, routes = http_server
    routes["/ok"] = (503, "down")
    routes["/other"] = (200, "up")
    assert chaos.smoke(base, ["/ok"], 503, 5, tries=2)["pass"]
    res = chaos.smoke(base, ["/ok", "/other"], 503, 5, tries=1)
    assert not res["pass"] and res["paths"]["/other"]["codes"] == [200]
    assert not chaos.smoke(base, ["/ok"], 503, -1, tries=1)["pass"]       # slower than the limit


def test_recover_times_the_first_200_and_confirms(http_server):
    base, routes = http_server
    since = time.time()
    routes["/a"] = lambda: (200, "ok") if time.time() > since + 0.3 else (500, "not yet")
    routes["/b"] = (200, "ok")
    res = chaos.recover(base, ["/a", "/b"], since, limit=5, give_up=5)
    assert res["pass"] and 0.3 <= res["recovery_s"] < 5 and res["confirm"] == {"/a": [200] * 3, "/b": [200] * 3}
    late = chaos.recover(base, ["/a"], since, limit=0.1, give_up=5)
    assert not late["pass"]                                               # recovered, but after the limit


def test_recover_gives_up_and_names_what_still_fails(http_server):
    base, routes = http_server
    routes["/down"] = (503, "no")
    res = chaos.recover(base, ["/down"], time.time(), limit=1, give_up=0.5)
    assert not res["pass"] and res["recovery_s"] is None and res["still_failing"] == {"/down": 503}


def result(tag, code, mode="virtual", order_id=None, customer=None, ts="2026-11-22T20:00:00.5Z"):
    body = b""
    if order_id is not None:
        body = base64.b64encode(json.dumps({"orderId": order_id, "order": {"customer": customer or tag}}).encode())
    return {"url": f"http://h/{mode}/orders?tag={tag}", "code": code, "body": body.decode(), "timestamp": ts}


@pytest.fixture
def orders(http_server):
    """The app's order store as the local server answers it: order id -> customer."""
    base, routes = http_server
    store = {}

    def add(mode, oid, customer):
        routes[f"/{mode}/orders/{oid}"] = (200, {"order": {"customer": customer}})
        store[oid] = customer
    return base, add


def write(tmp_path, results, db_rows):
    (tmp_path / "r.json").write_text("".join(json.dumps(r) + "\n" for r in results))
    (tmp_path / "db.tsv").write_text("".join(f"{t}\t1\n" for t in db_rows))
    return str(tmp_path / "r.json"), str(tmp_path / "db.tsv")


def test_verify_passes_when_every_acknowledged_order_is_there_once(tmp_path, orders):
    base, add = orders
    add("virtual", 1, "t-1")
    add("reactive", 2, "t-2")
    results = [result("t-1", 201, "virtual", 1), result("t-2", 201, "reactive", 2,
                                                        ts="2026-11-22T20:00:01.75+00:00"),
               result("t-3", 503), result("t-4", 0)]
    r, db = write(tmp_path, results, ["t-1", "t-2", "t-4"])     # t-4: no answer, committed: "unknown"
    timeline = tmp_path / "timeline.csv"
    f = chaos.verify(r, base, db, db_back=0, timeline=str(timeline))
    assert f["pass"], f
    assert f["acknowledged"] == 2 and f["acknowledged_by_mode"] == {"reactive": 1, "virtual": 1}
    assert f["found_unknown_client_gave_up"] == 1 and f["errors_by_status"] == {"0": 1, "503": 1}
    assert f["after_db_back"] == {"requests": 4, "2xx": 2}
    assert timeline.read_text().splitlines() == ["second,0,201,503", "0,1,1,1", "1,0,1,0"]


def test_verify_fails_on_an_order_without_acknowledgement_a_missing_one_or_a_duplicate(tmp_path, orders):
    base, add = orders
    add("virtual", 1, "t-1")
    r, db = write(tmp_path, [result("t-1", 201, "virtual", 1), result("t-2", 500)], ["t-1", "t-2"])
    f = chaos.verify(r, base, db)
    assert not f["pass"] and f["found_without_ack"] == 1 and "t-2: in DB, request answered 500" in f["examples"]
    r, db = write(tmp_path, [result("t-1", 201, "virtual", 1)], [])
    assert chaos.verify(r, base, db)["acknowledged_missing_in_db"] == 1
    r, db = write(tmp_path, [result("t-1", 201, "virtual", 1)], ["t-1", "t-1"])
    assert chaos.verify(r, base, db)["duplicate_rows"] == 1


def test_verify_fails_when_an_acknowledged_order_reads_back_wrong_or_not_at_all(tmp_path, orders):
    base, add = orders
    add("virtual", 1, "someone-else")
    r, db = write(tmp_path, [result("t-1", 201, "virtual", 1), result("t-9", 201, "virtual", 9)], ["t-1", "t-9"])
    f = chaos.verify(r, base, db)
    assert not f["pass"] and f["acknowledged_not_readable"] == 2
    assert any("names customer someone-else" in x for x in f["examples"])
    assert any("answered 404" in x for x in f["examples"])
    r, db = write(tmp_path, [result("t-1", 201, "virtual", 1, customer="wrong"), result("t-1", 201, "virtual", 1)],
                  ["t-1"])
    f = chaos.verify(r, base, db)
    assert not f["pass"] and f["duplicate_tags_sent"] == 1


def test_vegeta_timestamps_keep_their_nanoseconds():
    assert chaos._ts_ns("1970-01-01T00:00:01.000000002Z") == 1_000_000_002
    assert chaos._ts_ns("1970-01-01T01:00:01+01:00") == 1_000_000_000


def test_check_records_and_the_summary(tmp_path, capsys):
    (tmp_path / "checks").mkdir()
    (tmp_path / "params.json").write_text(json.dumps({"started": "now", "modes": "virtual"}))
    (tmp_path / "fig.json").write_text(json.dumps({"recovery_s": 1.5, "limit_s": 10, "still_failing": {}}))
    assert chaos.main(["check", str(tmp_path / "checks" / "1.json"), "1", "overload", "pass", "rate=300",
                       "recover=@" + str(tmp_path / "fig.json"), "note=plain text"]) == 0
    chaos.write_check(tmp_path / "checks" / "2.json", "2", "sigterm", False,
                      {"smoke": {"expect": 503, "paths": {"/a?x=1": {"codes": [503], "median_s": 0.1}}},
                       "run": {"requests": 10, "rate": 5, "codes": {"200": 10}}})
    passed, lines = chaos.summary(tmp_path)
    assert not passed and lines[-1] == "FAIL  1/2 checks"
    assert lines[0] == "PASS  1 overload: rate 300; recovery 1.5 s (limit 10 s); note plain text"
    assert "smoke: /a [503] median 0.1 s" in lines[1] and "run: 10 req at 5/s" in lines[1]
    md = (tmp_path / "summary.md").read_text()
    assert md.startswith("# Chaos run now: FAIL") and "| 2 sigterm | **FAIL** |" in md
    assert json.loads((tmp_path / "summary.json").read_text())["complete"] is True
    assert chaos.summary(tmp_path, incomplete=True)[1][-1].endswith("(run cut short)")
    chaos.main(["summary", "--dir", str(tmp_path)])
    assert "FAIL  1/2 checks" in capsys.readouterr().out


def test_hostile_reads_one_mode_of_a_series_and_takes_hdr_percentiles(http_server):
    base, routes = http_server
    routes["/q/metrics"] = (200, 'admission_limit{mode="reactive"} 7.0\nadmission_limit{mode="virtual"} 9.0\n')
    assert hostile.metric(base, "admission_limit", "reactive") == 7.0
    assert hostile.metric(base, "admission_in_flight", "reactive") is None
    assert hostile.pct([0.001 * i for i in range(1, 101)], 99) == pytest.approx(99.0, rel=0.01)
    assert hostile.pct([], 50) is None
    assert hostile.get(base + "/nope")[0] == 404 and hostile.get("http://127.0.0.1:9/", timeout=1)[0] == 0


def test_hostile_idle_and_cpu_flood_checks_judge_what_a_server_answers(http_server, tmp_path):
    base, routes = http_server
    routes["/virtual/io"] = routes["/worker/io"] = (200, "ok")
    routes["/reactive/cpu"] = (400, '{"detail": "n must be in 1..100000 in reactive mode"}')
    host, port = base.rsplit("/", 1)[1].split(":")
    assert hostile.check_idle(base, host, int(port), tmp_path, 5)
    rec = json.loads((tmp_path / "5a-hostile-idle.json").read_text())
    assert rec["pass"] and rec["figures"]["idle_connections"] == 5 and len(rec["figures"]["probes"]) == 4
    assert hostile.check_cpu_flood(base, tmp_path, 0.5)
    rec = json.loads((tmp_path / "5b-hostile-cpu.json").read_text())
    flood = rec["figures"]["flood"]
    assert rec["figures"]["reactive_n"] == 100000 and flood["codes"] == {"400": flood["requests"]}
    routes["/worker/io"] = (503, "busy")
    assert not hostile.check_cpu_flood(base, tmp_path, 0.2)          # one mode not answering 200 fails it
    assert not hostile.check_admission(base, host, int(port), tmp_path)   # no admission_limit in /q/metrics


def test_timed_limits_stretch_on_a_machine_slower_than_where_they_were_set():
    """A machine whose yardstick reads three times the reference's gets three times the recovery limit and three
    times SIGTERM's part past the app's shutdown timeout; a faster one, or one without a reading, keeps them."""
    assert stretch(REFERENCE_US * 3) == 3.0
    assert stretch(REFERENCE_US / 2) == stretch(None) == 1.0
    p = stretch_limits({"RECOVERY_LIMIT": 10, "RECOVERY_GIVE_UP": 40, "SIGTERM_LIMIT": SHUTDOWN_S + 2}, 3.0)
    assert p == {"RECOVERY_LIMIT": 30.0, "RECOVERY_GIVE_UP": 40.0, "SIGTERM_LIMIT": SHUTDOWN_S + 6.0}
    assert stretch_limits({"RECOVERY_LIMIT": 10, "RECOVERY_GIVE_UP": 40, "SIGTERM_LIMIT": 12}, 1.0) == \
        {"RECOVERY_LIMIT": 10, "RECOVERY_GIVE_UP": 40, "SIGTERM_LIMIT": 12}
    assert stretch_limits({"RECOVERY_LIMIT": 40, "RECOVERY_GIVE_UP": 40, "SIGTERM_LIMIT": 5}, 2.0) == \
        {"RECOVERY_LIMIT": 80, "RECOVERY_GIVE_UP": 90, "SIGTERM_LIMIT": 5}
