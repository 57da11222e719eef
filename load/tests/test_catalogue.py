"""The scenario catalogue as the app serves it (fixtures/scenarios.json, captured from GET /scenarios) turned into
requests, and `vtvr-harness targets`, which hands them to load/vegeta.sh and load/hey.sh (load/lib.sh)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from harness import cli
from harness.infra import catalogue, shape, targets
from harness.infra.errors import Fatal
from harness.runs import options

LOAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LADDER = ("ladder-rest", "ladder-rest-client", "ladder-gateway", "ladder-reactive", "ladder-vt",
          "ladder-vt-rest-client", "ladder-vt-gateway", "ladder-virtual")


def entries(path):
    with open(path) as f:
        return json.load(f)


def test_the_table_of_the_captured_catalogue():
    t = catalogue.table()
    # order needs an id: not a load scenario; pinning's other lock is a scenario of its own
    assert t.scenarios == ("io", "fanout", "db", "slow-query", "checkout", "cpu", "pinning", "pinning-reentrant",
                           "workload")
    assert t.plain == t.scenarios[:-1]   # a workload is measured with its shape only
    assert t.modes == ("virtual", "worker", "reactive")
    assert t.ladder == LADDER
    assert t.series == ("virtual", "worker", "reactive", "floor", "bare", "vt-native", *LADDER)
    assert t.bare == ("bare", "vt-native") and t.kinds["vt-native"] == "helidon"
    assert t.series_for("io") == t.series
    assert t.series_for("fanout") == ("virtual", "worker", "reactive", "floor", "bare", "vt-native")
    # the bare Vert.x process (its own, not the app's) serves the floor's paths under its own name
    assert t.request("bare", "io").path == "/bare/io?delay=100&calls=1"
    assert t.series_for("db") == (*t.modes, "vt-native")
    assert t.series_for("pinning-reentrant") == t.modes_for("pinning") == ("virtual", "worker")
    assert t.request("virtual", "io") == catalogue.Request("GET", "/virtual/io?delay=100&calls=1", 200, "")
    assert t.request("floor", "fanout").path == "/floor/fanout?delay=100&calls=10"
    assert t.request("ladder-vt-gateway", "io").path == "/ladder/vt-gateway/io?delay=100&calls=1"
    assert t.request("worker", "db").path == "/worker/db?queries=1"
    assert t.request("reactive", "slow-query").path == "/reactive/slow-query?delay=500"
    assert t.request("reactive", "cpu").path == "/reactive/cpu?n=100000"
    assert t.request("worker", "pinning").path == "/worker/pinning?delay=100&lock=synchronized"
    assert t.request("worker", "pinning-reentrant").path == "/worker/pinning?delay=100&lock=reentrant"
    assert t.request("reactive", "workload").path == \
        "/reactive/workload?delay=100&calls=0&fanout=0&queries=0&cpu=0&insert=0"
    assert t.series_for("workload") == (*t.modes, "vt-native")
    checkout = t.request("reactive", "checkout")
    assert (checkout.method, checkout.path, checkout.status) == ("POST", "/reactive/orders?delay=100", 201)
    assert json.loads(checkout.body) == {"customer": "alice", "sku": "SKU-1", "quantity": 2}
    assert t.params("io") == "delay=100&calls=1"


def test_every_scenario_parameter_sets_its_own_and_defaults_come_from_the_catalogue():
    t = catalogue.table({"DELAY": 7, "IO_CALLS": 3, "FANOUT_CALLS": 4, "DB_QUERIES": 2, "SLOW_DELAY": 9,
                         "CPU_N": 11, "PINNING_LOCK": "reentrant", "TIMEOUT": "1s"})
    assert t.request("worker", "io").path == "/worker/io?delay=7&calls=3"
    assert t.request("floor", "fanout").path == "/floor/fanout?delay=7&calls=4"
    assert t.request("worker", "db").path == "/worker/db?queries=2"
    assert t.request("worker", "slow-query").path == "/worker/slow-query?delay=9"   # SLOW_DELAY, not DELAY
    assert t.request("worker", "checkout").path == "/worker/orders?delay=7"
    assert t.request("worker", "cpu").path == "/worker/cpu?n=11"
    assert t.request("virtual", "pinning").path == "/virtual/pinning?delay=7&lock=reentrant"
    d = catalogue.table()
    assert {k: d.default(k) for k in catalogue.PARAM_ENV} == {
        "DELAY": "100", "IO_CALLS": "1", "FANOUT_CALLS": "10", "DB_QUERIES": "1", "SLOW_DELAY": "500",
        "CPU_N": "100000", "PINNING_LOCK": "synchronized"}
    assert catalogue.env_params({"DELAY": "5", "HOME": "/"}) == {"DELAY": "5"}


def test_bounds_and_choices_as_the_app_lists_them():
    p = {x.name: x for x in catalogue.table().params_of["io"]}
    assert (p["delay"].min, p["delay"].max, p["calls"].default) == (0, 10000, "1")
    assert catalogue.table().params_of["pinning"][1].choices == ("synchronized", "reentrant")
    # beyond the bounds, what a request must fit: the deadline, and a mode's own lower max
    w = {x.name: x for x in catalogue.table().params_of["workload"]}
    assert w["cpu"].by_mode == (("reactive", 100000),) and w["delay"].by_mode == ()
    assert catalogue.table().deadline_ms["workload"] == 20000


def test_refusals_are_the_apps_rules():
    """calls x delay (+ delay when it fans out) against the deadline, every mode; a mode's own max, that mode."""
    ps = catalogue.table().params_of["workload"]
    sh = {"delay": 100, "calls": 200, "fanout": 0, "queries": 0, "cpu": 0, "insert": 0}
    assert shape.refusals(sh, ("virtual", "reactive"), ps, 20000) == {}
    assert shape.planned_wait_ms({**sh, "fanout": 3}) == 20100
    no = shape.refusals({**sh, "fanout": 3, "cpu": 100001}, ("virtual+socket", "reactive-aa"), ps, 20000)
    assert set(no) == {"virtual+socket", "reactive-aa"} and "20100 ms" in no["virtual+socket"]
    assert "cpu must be at most 100000 in reactive mode" in no["reactive-aa"]
    assert shape.refusals({**sh, "calls": 999}, ("worker",), ps, None) == {}   # a deadline not told


def test_a_new_scenario_or_series_needs_no_change_here(tmp_path, scenario_catalogue):
    """What the app adds (a scenario, a series, a parameter without an environment name) the table takes as is."""
    data = entries(scenario_catalogue)
    io = next(e for e in data if e["name"] == "io")
    data.append({**io, "name": "io2", "path": "/io2", "params": [*io["params"], {
        "name": "size", "defaultValue": "3", "min": 1, "max": 9, "maxSetting": "bench.max-size", "choices": None}],
        "series": [{"name": "virtual", "kind": "mode", "path": "/virtual/io2"},
                   {"name": "edge", "kind": "floor", "path": "/edge/io2"}]})
    (tmp_path / "c.json").write_text(json.dumps(data))
    catalogue.use(file=str(tmp_path / "c.json"))
    t = catalogue.table({"DELAY": "4"})
    assert t.scenarios[-1] == "io2" and t.series[-1] == "edge" and t.series_for("io2") == ("virtual", "edge")
    assert t.request("edge", "io2").path == "/edge/io2?delay=4&calls=1&size=3"


def test_an_older_app_is_named(tmp_path, scenario_catalogue):
    (tmp_path / "old.json").write_text(json.dumps([{k: v for k, v in e.items() if k != "series"}
                                                   for e in entries(scenario_catalogue)]))
    catalogue.use(file=str(tmp_path / "old.json"))
    with pytest.raises(Fatal, match="an app older than this harness"):
        catalogue.table()


def test_lookup_names_what_exists():
    t = catalogue.table()
    assert t.lookup("floor", "io").path.startswith("/floor/io?")
    with pytest.raises(Fatal, match="unknown scenario 'nope' .*io fanout db"):
        t.lookup("virtual", "nope")
    with pytest.raises(Fatal, match="unknown mode 'turbo' .*virtual worker reactive floor bare vt-native ladder-rest"):
        t.lookup("turbo", "io")
    with pytest.raises(Fatal, match="scenario 'db' has no 'floor' mode .*it has: virtual worker reactive"):
        t.lookup("floor", "db")


def test_read_from_a_running_app(http_server, scenario_catalogue):
    url, routes = http_server
    routes["/scenarios"] = (200, entries(scenario_catalogue))
    catalogue.use(url=url + "/")
    assert catalogue.table().request("reactive", "io").path == "/reactive/io?delay=100&calls=1"
    catalogue.use(url=url + "/gone")
    routes["/gone/scenarios"] = (503, "down")
    with pytest.raises(Fatal, match="no scenario catalogue from .*/gone/scenarios"):
        catalogue.table()


def test_read_from_the_built_app_started_briefly(tmp_path, scenario_catalogue):
    """A stand-in for the native runner: says where it listens as Quarkus does, serves /scenarios; stopped after."""
    app = tmp_path / "app-runner"
    pidfile = tmp_path / "pid"
    app.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import http.server, os, sys
        assert os.environ["QUARKUS_PROFILE"] == "delay" and os.environ["QUARKUS_HTTP_PORT"] == "0"
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        body = open({scenario_catalogue!r}, "rb").read()
        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200 if self.path == "/scenarios" else 404)
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *a):
                pass
        s = http.server.HTTPServer(("127.0.0.1", 0), H)
        print("started in 0.1s. Listening on: http://127.0.0.1:%d" % s.server_address[1], flush=True)
        s.serve_forever()
        """))
    app.chmod(0o755)
    assert catalogue.from_app(str(app)) == entries(scenario_catalogue)
    pid = int(pidfile.read_text())
    assert not os.path.exists(f"/proc/{pid}") or "zombie" in open(f"/proc/{pid}/status").read().lower()
    app.write_text(f"#!{sys.executable}\nprint('boom')\n")
    with pytest.raises(Fatal, match="(?s)did not serve its scenario catalogue.*boom"):
        catalogue.from_app(str(app), timeout_s=10)


def test_targets_prints_the_request_of_the_app_at_app_url(http_server, scenario_catalogue, monkeypatch, capsys):
    url, routes = http_server
    routes["/scenarios"] = (200, entries(scenario_catalogue))
    given = ["--app-url", url, "--param", "DELAY=25"]
    assert cli.main(["targets", *given, "checkout", "worker"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "POST", "/worker/orders?delay=25", "201", '{"customer":"alice","sku":"SKU-1","quantity":2}']
    assert cli.main(["targets", *given, "io", "ladder-vt"]) == 0
    assert capsys.readouterr().out == "GET\n/ladder/vt/io?delay=25&calls=1\n200\n\n"
    assert cli.main(["targets", *given, "db", "floor"]) == 1
    assert "scenario 'db' has no 'floor' mode" in capsys.readouterr().err
    assert cli.main(["targets", "-h"]) == 0
    assert "usage: vtvr-harness targets" in capsys.readouterr().out
    with pytest.raises(Fatal, match="spans lines"):
        targets.lines(catalogue.Request("POST", "/x", 201, "{\n}"))


def test_the_scripts_take_their_request_from_targets(http_server, scenario_catalogue, tmp_path):
    """load/lib.sh vtvr_request and vtvr_target, as vegeta.sh and hey.sh call them."""
    url, routes = http_server
    routes["/scenarios"] = (200, entries(scenario_catalogue))
    script = textwrap.dedent("""\
        . ./lib.sh
        base="$1" work="$2"
        vtvr_request reactive checkout
        printf '%s|%s|%s|%s\\n' "$REQ_METHOD" "$REQ_PATH" "$REQ_STATUS" "$REQ_BODY"
        vtvr_target floor io "$work"
        vtvr_target worker checkout "$work" && cat "$work/checkout.json" && echo
        vtvr_request floor db || echo "refused"
        """)
    r = subprocess.run(["bash", "-c", script, "test", url, str(tmp_path)], cwd=LOAD, capture_output=True, text=True,
                       env={**os.environ, "PYTHON": sys.executable, "DELAY": "3"})
    assert r.stdout.splitlines() == [
        'POST|/reactive/orders?delay=3|201|{"customer":"alice","sku":"SKU-1","quantity":2}',
        f"GET {url}/floor/io?delay=3&calls=1", "",
        f"POST {url}/worker/orders?delay=3", "Content-Type: application/json", f"@{tmp_path}/checkout.json", "",
        '{"customer":"alice","sku":"SKU-1","quantity":2}',
        "refused"], r.stderr
    assert "scenario 'db' has no 'floor' mode" in r.stderr


def workload():
    return catalogue.table().params_of["workload"]


def test_a_workload_shape_in_the_catalogues_order():
    w = shape.Shape.of(" queries = 2 & calls=3,, delay=50 ", workload())
    assert w.items == (("delay", 50), ("calls", 3), ("queries", 2))
    assert w.text == "delay=50,calls=3,queries=2"
    assert w.as_dict() == {"delay": 50, "calls": 3, "fanout": 0, "queries": 2, "cpu": 0, "insert": 0}
    assert w.query == "delay=50&calls=3&fanout=0&queries=2&cpu=0&insert=0"
    assert shape.Shape.of("calls=3,delay=100,insert=0,cpu=1", workload()).label == "calls=3, cpu=1"
    assert shape.Shape.of(w.text, workload()) == w
    assert catalogue.shaped({"WORKLOAD": w.text, "DELAY": "5"}) == ("workload",) and catalogue.shaped({}) == ()


@pytest.mark.parametrize("text, message", [
    ("calls=3,loops=2", "unknown item 'loops=2' .*NAME one of: delay, calls, fanout, queries, cpu, insert"),
    ("calls", "unknown item 'calls'"),
    ("calls=three", "'calls=three': 'three' is not a whole number"),
    ("delay=1.5", "'1.5' is not a whole number"),
    ("calls=1001", r"'calls=1001': calls lies in 0\.\.1000 \(the app's bounds"),
    ("insert=2", r"insert lies in 0\.\.1 "),
    ("delay=-1", r"delay lies in 0\.\.10000 "),
    ("calls=1,calls=2", "'calls=2': calls given twice"),
    (" , ", "names nothing"),
])
def test_a_bad_workload_names_its_item(text, message):
    with pytest.raises(Fatal, match=message):
        shape.Shape.of(text, workload())


def test_a_workloads_request_takes_its_shape_then_delay_then_the_defaults():
    t = catalogue.table({"WORKLOAD": "calls=3,delay=50,queries=2", "DELAY": "7", "IO_CALLS": "9"})
    assert t.request("virtual", "workload").path == \
        "/virtual/workload?delay=50&calls=3&fanout=0&queries=2&cpu=0&insert=0"
    assert t.request("virtual", "io").path == "/virtual/io?delay=7&calls=9"   # the shape sets the workload only
    t = catalogue.table({"WORKLOAD": "fanout=4&insert=1", "DELAY": "7"})
    assert t.params("workload") == "delay=7&calls=0&fanout=4&queries=0&cpu=0&insert=1"
    assert catalogue.table().canonical({"WORKLOAD": "cpu=5, calls=1", "DELAY": "7"}) == \
        {"WORKLOAD": "calls=1,cpu=5", "DELAY": "7"}
    with pytest.raises(Fatal, match="unknown item 'n=5'"):
        catalogue.table({"WORKLOAD": "n=5"})


def test_an_app_without_the_workload_scenario_is_named(tmp_path, scenario_catalogue):
    (tmp_path / "c.json").write_text(json.dumps([e for e in entries(scenario_catalogue) if e["name"] != "workload"]))
    catalogue.use(file=str(tmp_path / "c.json"))
    with pytest.raises(Fatal, match="WORKLOAD: the app has no workload scenario; rebuild it"):
        catalogue.table().canonical({"WORKLOAD": "calls=1"})


def test_targets_takes_a_workload(http_server, scenario_catalogue, capsys):
    url, routes = http_server
    routes["/scenarios"] = (200, entries(scenario_catalogue))
    assert cli.main(["targets", "--app-url", url, "--param", "WORKLOAD=calls=3,delay=50", "workload", "virtual"]) == 0
    assert capsys.readouterr().out.splitlines()[:3] == [
        "GET", "/virtual/workload?delay=50&calls=3&fanout=0&queries=0&cpu=0&insert=0", "200"]
    assert cli.main(["targets", "--app-url", url, "--param", "WORKLOAD=calls=x", "workload", "virtual"]) == 1
    assert "'x' is not a whole number" in capsys.readouterr().err


@pytest.mark.parametrize("text, expected", [
    ('workload = "calls=3, delay=50"\nrates = [800]\nmodes = ["virtual", "reactive"]\nconcurrency = [10, 100]\n',
     {"workload": "calls=3, delay=50", "rates": "800", "modes": "virtual,reactive", "concurrency": "10,100"}),
    ("rates = 800\n[workload]\ncalls = 3\ndelay = 50\n", {"rates": "800", "workload": "calls=3,delay=50"}),
    ('warmup-max = 0\nreuse = false\ntimeout = "30s"\n', {"warmup_max": "0", "reuse": "false", "timeout": "30s"}),
])
def test_a_settings_file(tmp_path, text, expected):
    (tmp_path / "w.toml").write_text(text)
    assert options.settings_file(str(tmp_path / "w.toml")) == expected


@pytest.mark.parametrize("text, message", [
    (None, "w.toml: No such file or directory"),
    ("workload = calls=3", "w.toml: not TOML"),
    (b"\xff\xfe", "w.toml: not TOML .'utf-8' codec"),   # not UTF-8: argparse once hid why
    ('workload = "calls=3"\nrate = [800]', "unknown key rate .known: workload, rates, modes, concurrency, delay"),
    ('workload = "calls=3"\nmodes = [["virtual"]]', "modes = .*a text, a number, true/false or a list of them"),
])
def test_a_bad_settings_file_is_named(tmp_path, text, message):
    if isinstance(text, bytes):
        (tmp_path / "w.toml").write_bytes(text)
    elif text is not None:
        (tmp_path / "w.toml").write_text(text)
    with pytest.raises(Fatal, match=message):
        options.settings_file(str(tmp_path / "w.toml"))
