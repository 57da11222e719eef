"""The Hyperfoil driver: the benchmark file it writes (read back by Hyperfoil's own parser), the Result and the
Vegeta-shaped report it makes of the runner's output, and a real embedded run against a local server."""
import http.server
import json
import os
import threading
import time

import pytest

from harness.drivers import hyperfoil
from harness.drivers.base import Load, Target, histogram
from harness.drivers.hyperfoil import Hyperfoil, benchmark, from_run, report
from harness.drivers.vegeta import Vegeta
from harness.infra import procs, tools


def encoded(*ms_values):
    h = histogram()
    for ms in ms_values:
        h.record_value(round(ms * 1000))
    return h.encode().decode()


def phase(requests, ms_values, start_ms, duration_ms, status=None, **counts):
    return {"start_ms": start_ms, "duration_ms": duration_ms, "finished_ms": start_ms + duration_ms,
            "terminated_ms": start_ms + duration_ms + 120, "requests": requests, "responses": len(ms_values),
            "invalid": 0, "connection_errors": 0, "request_timeouts": 0, "internal_errors": 0, "blocked_ms": 0,
            "status": status or {"2xx": len(ms_values), "3xx": 0, "4xx": 0, "5xx": 0, "other": 0},
            "histogram_us": encoded(*ms_values), **counts}


def test_the_benchmark_has_a_ramp_in_phase_then_the_measured_one_at_the_rate():
    text = benchmark("io", Target("GET", "http://127.0.0.1:8080/reactive/io?delay=100"),
                     Load(2500, 6000, 10, ramp_ms=1000))
    assert 'host: "http://127.0.0.1:8080"' in text and 'GET: "/reactive/io?delay=100"' in text
    ramp, main = text.split("- ramp:")[1].split("- main:")
    assert "usersPerSec: 2500" in ramp and "startTime: 0ms" in ramp and "duration: 1000ms" in ramp
    assert "usersPerSec: 2500" in main and "startTime: 1000ms" in main and "duration: 5000ms" in main
    assert "timeout: 10000ms" in main and "max: 2500" in text and "agents:" not in text


def test_a_body_is_sent_as_json_and_the_closed_model_holds_users():
    text = benchmark("o", Target("POST", "http://h:1/virtual/orders", '{"a": "b"}'), Load(16, 3000),
                     model="concurrency")
    assert "always:" in text and "users: 16" in text and "constantRate" not in text and "- ramp:" not in text
    assert 'POST: "/virtual/orders"' in text and 'body: "{\\"a\\": \\"b\\"}"' in text
    assert "content-type: application/json" in text


def test_agents_are_listed_with_their_ssh_port_and_threads():
    text = benchmark("io", Target("GET", "http://app:8080/io"), Load(3000, 5000), agents=("h1", "h2:2222", ""))
    assert 'agent-1:\n    host: "h1"\n    port: 22\n    threads: 2' in text
    assert 'agent-2:\n    host: "h2"\n    port: 2222' in text
    assert "agent-3:\n    threads: 2\nhttp:" in text   # a pod of the Kubernetes deployer: no host


def test_the_result_counts_the_measured_phase_and_keeps_the_ramp_in_apart():
    run = {"phases": {"ramp": phase(3, [50, 60, 70], 1000, 1000),
                      "main": phase(5, [10, 20, 30, 40], 2000, 2000, request_timeouts=1)}}
    res = from_run(run, ramp_in_s=1.0)
    assert res.requests == 5 and res.status == {"2xx": 4, "0": 1} and res.errors == {"timeout": 1}
    assert res.all_ms.get_total_count() == 4 and res.every_ms.get_total_count() == 7 and res.ok == 4
    assert res.percentile_ms(50) == pytest.approx(20, rel=0.01) and res.max_ms == pytest.approx(40, rel=0.01)
    assert res.send_rate == 2.5
    # no ramp-in asked: every phase is measured
    assert from_run(run).requests == 8


def test_other_answers_make_the_success_latencies_unknown_not_wrong():
    run = {"phases": {"main": phase(3, [10, 20, 30], 0, 1000,
                                    status={"2xx": 2, "3xx": 0, "4xx": 0, "5xx": 1, "other": 0})}}
    res = from_run(run)
    assert res.status == {"2xx": 2, "5xx": 1} and res.ok == 0 and res.percentile_ms(50) is None
    assert res.percentile_ms(50, ok_only=False) == pytest.approx(20, rel=0.01)
    assert any("not 2xx" in e for e in res.errors)


def test_the_report_has_the_shape_of_vegetas():
    run = {"phases": {"ramp": phase(2, [5, 5], 1000, 1000), "main": phase(4, [10, 20, 30, 40], 2000, 2000)}}
    rep = report(run)
    assert rep["requests"] == 6 and rep["success"] == 1.0 and rep["rate"] == 2.0
    assert rep["duration"] == 3000 * 1_000_000 and rep["wait"] == 120 * 1_000_000
    assert rep["throughput"] == pytest.approx(6 / 3.12)
    assert rep["latencies"]["max"] == pytest.approx(40e6, rel=0.01) and rep["status_codes"] == {"2xx": 6}
    assert report({}) == {}


def test_a_missing_or_broken_output_reads_as_none(tmp_path):
    (tmp_path / "r.hf.json").write_text("{not json")
    assert hyperfoil.read(str(tmp_path / "r")) == {} and hyperfoil.read(str(tmp_path / "nothing")) == {}


# ---------------------------------------------------------------------------------------------- real runs
@pytest.fixture(scope="module")
def runner(slow_tools):
    """The Hyperfoil runner's command (slow_tools first: a module's fixture is set up before the per-test one)."""
    java = os.path.join(tools.java_home(), "bin", "java")
    return tools.hyperfoil_command(java)


class Stall:
    """Answers held from START_S (after the first request) until END_S: a stalled app, as a GC pause makes one."""
    def __init__(self, start_s=None, end_s=None):
        self.start_s, self.end_s, self.t0 = start_s, end_s, None

    def wait(self):
        now = time.monotonic()
        self.t0 = self.t0 or now
        if self.start_s is not None and self.start_s <= now - self.t0 < self.end_s:
            time.sleep(self.t0 + self.end_s - now)


@pytest.fixture
def stall():
    return Stall()


@pytest.fixture
def keep_alive_server(stall):
    """A local HTTP/1.1 server (keep-alive, as the app) answering every GET 200 with a small JSON body (held while
    STALL says so)."""
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            stall.wait()
            data = b'{"ok":true}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.slow
def test_an_embedded_run_sends_the_rate_and_reads_back_every_answer(runner, keep_alive_server, tmp_path):
    prefix = str(tmp_path / "results")
    driver = Hyperfoil(runner)
    with procs.Procs() as ps:
        p = driver.start(ps, Target("GET", keep_alive_server + "/io?delay=1"), Load(100, 3000, 5, ramp_ms=1000),
                         prefix, log_path=str(tmp_path / "log.txt"))
        assert p.wait(60) == 0, (tmp_path / "log.txt").read_text()[-2000:]
    rep = driver.finish(prefix, str(tmp_path / "log.txt"))
    res = driver.result(prefix, ramp_in_s=1.0)
    assert rep["success"] == 1.0 and rep["status_codes"] == {"2xx": rep["requests"]}
    assert 285 <= rep["requests"] <= 315 and 190 <= res.requests <= 210 and res.ok == res.requests
    assert 0 < res.percentile_ms(50) < 1000 and "Success [ratio] 100.00%" in (tmp_path / "log.txt").read_text()
    assert json.loads((tmp_path / "results.json").read_text())["requests"] == rep["requests"]


@pytest.mark.slow
def test_hyperfoils_own_parser_reads_the_agents_file_and_splits_the_rate(runner, tmp_path):
    path = tmp_path / "io.hf.yaml"
    path.write_text(benchmark("io", Target("GET", "http://app:8080/io"), Load(3000, 5000, ramp_ms=1000),
                              agents=("h1", "h2:2222", "")))
    out = tmp_path / "parsed.json"
    with procs.Procs() as ps:
        r = ps.run("parse", [*runner, "--parse", str(path), str(out)], log_path=str(tmp_path / "parse.log"),
                   timeout=60)
    assert r == 0, (tmp_path / "parse.log").read_text()[-2000:]
    parsed = json.loads(out.read_text())
    assert [a["name"] for a in parsed["agents"]] == ["agent-1", "agent-2", "agent-3"]
    assert [a["phases"]["main"] for a in parsed["agents"]] == [1000, 1000, 1000]
    assert sum(a["phases"]["ramp"] for a in parsed["agents"]) == 3000


@pytest.mark.slow
@pytest.mark.alone   # its bounds are a 0.6-s stall's on the wall clock: beside another worker both tools slipped
@pytest.mark.parametrize("tool", ["hyperfoil", "vegeta"])
def test_a_stall_is_measured_from_when_each_request_was_due(tool, runner, keep_alive_server, stall, tmp_path):
    """The open model with room to grow its connections: requests due during a 0.6 s stall are still sent on time and
    their latencies include the wait (no coordinated omission), by Hyperfoil as by Vegeta."""
    stall.start_s, stall.end_s = 1.5, 2.1
    prefix = str(tmp_path / "results")
    driver = Hyperfoil(runner) if tool == "hyperfoil" else Vegeta(tools.bash_env("ensure_vegeta", "VEGETA")[0])
    with procs.Procs() as ps:
        p = driver.start(ps, Target("GET", keep_alive_server + "/io"), Load(100, 3000, 5), prefix,
                         log_path=str(tmp_path / "log.txt"))
        assert p.wait(60) == 0, (tmp_path / "log.txt").read_text()[-2000:]
    driver.finish(prefix)
    res = driver.result(prefix)
    assert 290 <= res.requests <= 310 and res.ok == res.requests
    # a fifth of the requests (60) were due in the stall and waited 0-0.6 s: the slowest about 0.6 s, the 90th
    # percentile half of that; the mean holds their waits (about 60 ms a request over the step)
    assert 500 <= res.max_ms <= 1000 and res.percentile_ms(90) >= 200 and res.percentile_ms(50) < 100
    assert res.mean_ms >= 45


# ---------------------------------------------------------------------------------------------- many machines
def controller_all_json(phase_name, values_ms, status_2xx, requests, start=1000, end=7000):
    """An all.json as Hyperfoil's controller writes it (clustering/controller/JsonWriter): per phase and metric the
    total summary over the agents and the percentile buckets of its histogram (nanoseconds)."""
    buckets, total = [], 0
    for ms in sorted(set(values_ms)):
        n = values_ms.count(ms)
        total += n
        buckets.append({"from": ms * 1e6 - 1, "to": ms * 1e6, "percentile": 0, "count": n, "totalCount": total})
    summary = {"startTime": start, "endTime": end, "requestCount": requests, "responseCount": len(values_ms),
               "invalid": 0, "connectionErrors": 0, "requestTimeouts": requests - len(values_ms), "internalErrors": 0,
               "blockedTime": 0, "percentileResponseTime": {"50.0": 0},
               "extensions": {"http": {"status_2xx": status_2xx, "status_5xx": len(values_ms) - status_2xx}}}
    return {"$schema": "http://hyperfoil.io/run-schema/v3.0", "info": {"benchmark": "io"}, "failures": [],
            "stats": [{"name": phase_name, "phase": phase_name, "metric": "request", "isWarmup": False,
                       "total": {"phase": phase_name, "metric": "request", "start": start, "end": end,
                                 "summary": summary},
                       "histogram": {"percentiles": buckets, "linear": []}, "series": []}]}


def test_a_controllers_all_json_reads_like_an_embedded_run():
    doc = controller_all_json("main", [10, 20, 20, 30], status_2xx=4, requests=5)
    run = hyperfoil.from_controller(doc)
    res = from_run(run)
    assert res.requests == 5 and res.status == {"2xx": 4, "0": 1} and res.errors == {"timeout": 1}
    assert res.percentile_ms(50) == pytest.approx(20, rel=0.01) and res.max_ms == pytest.approx(30, rel=0.01)
    assert report(run)["duration"] == 6000 * 1_000_000


def test_the_agents_dry_run_writes_step_folders_that_read_back_a_controllers_results(tmp_path, capsys):
    from harness import cli
    out = tmp_path / "run"
    assert cli.main(["compare", "--dry-run", "--design", "sequential", "--scenario", "io", "--modes", "reactive",
                     "--aa", "none", "--rates", "3000", "--tools", "vegeta,hyperfoil", "--set", "agents=h1,h2",
                     "--out", str(out)]) == 0
    steps = sorted((out / "steps").iterdir())
    assert [p.name for p in steps] == ["002-io-reactive-hyperfoil-3000"]   # Vegeta's step runs here, not there
    text = (steps[0] / "results.hf.yaml").read_text()
    assert 'host: "http://127.0.0.1:8080"' in text and "agent-2:" in text and "usersPerSec: 3000" in text
    (tmp_path / "all.json").write_text(json.dumps(controller_all_json("main", [100] * 10, 10, 10)))
    from harness.report import summaries
    assert summaries.main(["hyperfoil", str(steps[0]), str(tmp_path / "all.json")]) == 0
    assert "hyperfoil io reactive 3,000 req/s" in capsys.readouterr().out.replace("3000", "3,000")
    assert json.loads((steps[0] / "results.json").read_text())["success"] == 1.0


def test_agents_need_a_hyperfoil_dry_run(capsys):
    from harness import cli
    assert cli.main(["compare", "--design", "sequential", "--tools", "hyperfoil", "--set", "agents=h1"]) != 0
    assert "written, not run, by a --dry-run" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- the designs
def settings(*argv):
    from harness import cli
    from harness.runs import plan
    return plan.settings(cli.compare_parser().parse(["--seed", "7", *argv]))


def test_the_sequential_plan_drives_each_rate_step_with_each_rate_tool_alternating_by_run():
    from harness.runs import plan
    argv = ("--design", "sequential", "--scenario", "io", "--modes", "reactive", "--rates", "2500,6000",
            "--tools", "vegeta,hyperfoil,hey", "--concurrency", "16")
    first = [(st.series, st.tool, st.level) for st in plan.build_plan(settings(*argv, "--set", "rotate=0"))]
    assert first[:5] == [("reactive", "vegeta", 2500), ("reactive", "vegeta", 6000), ("reactive", "hyperfoil", 2500),
                         ("reactive", "hyperfoil", 6000), ("reactive", "hey", 16)]
    assert ("reactive-aa", "hyperfoil", 2500) not in first          # the A/A row: the first rate tool only
    second = [st.tool for st in plan.build_plan(settings(*argv, "--set", "rotate=1")) if st.series == "reactive"]
    assert second[:4] == ["hyperfoil", "hyperfoil", "vegeta", "vegeta"]


def test_the_interleaved_design_takes_hyperfoil_for_its_rate_steps_but_one_rate_tool_a_run():
    from harness.infra.errors import Fatal
    from harness.runs import trial_plan
    _, tools = trial_plan.trial_plan(settings("--tools", "hyperfoil,hey"), 7)
    assert tools[("io", 2500.0)] == "hyperfoil" and set(tools.values()) == {"hyperfoil"}
    with pytest.raises(Fatal, match="one rate tool"):
        trial_plan.trial_plan(settings("--tools", "vegeta,hyperfoil"), 7)


def test_the_scale_levels_give_hyperfoil_a_connection_and_a_session_for_every_waiting_request():
    from harness.analysis.scale import Level, tool_args
    from harness.runs import scale
    lv = Level(10_000, 2000, 5_000, 15.0)
    text = benchmark("s", Target("GET", "http://127.0.0.1:8080/io"), Load(2000, 20_000, 45,
                                                                        tuple(tool_args("hyperfoil", lv, "http1"))))
    assert "max: 10100" in text and "maxSessions: 10100" in text and "directHttp2" not in text
    assert tool_args("vegeta", lv, "h2c")[0] == "-h2c"
    # Hyperfoil 0.25.2 has no h2c: the experiment drives HTTP/1.1 only with it
    s = settings("--experiment", "scale", "--modes", "reactive", "--tools", "hyperfoil")
    assert {t for _, t, _ in scale.groups_of(s, 20_000)} == {"http1"}
