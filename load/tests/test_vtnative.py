"""The series `vt-native` (issue #43): io, fanout, db and workload served by load/vtnative's Helidon SE process, a
virtual thread per request, started by the harness like the bare process. The slow tests run it for real beside the
app's virtual mode: the same answers, delay calls, statements and problems."""
import glob
import json
import os
import subprocess
import urllib.error
import urllib.parse
import urllib.request

import pytest
from fakes import FakePs, settings, system

from harness.infra import catalogue, procs, tools
from harness.infra.database import Database
from harness.runs import interleave, scale
from harness.runs import system as system_mod
from harness.runs.system import System
from harness.sampling.prom import metric_sum, parse

SERVED = ("io", "fanout", "db", "workload")


def test_the_catalogue_names_it_a_process_of_its_own():
    kind, bare = system_mod.kind, system_mod.bare
    assert kind("vt-native") == "helidon" and kind("bare") == "bare" and kind("virtual") == "mode"
    assert bare("vt-native") and bare("vt-native-aa") and not bare("virtual")
    assert catalogue.table().series_for("db") == ("virtual", "worker", "reactive", "vt-native")


def test_it_starts_as_its_jar_with_the_bare_processs_options_and_settings():
    s = system("--modes", "vt-native,bare", "--scenario", "io", "--aa", "none")
    s.db = Database(FakePs(), 3999, "/tmp/db.log")
    s.db.env = {"QUARKUS_DATASOURCE_JDBC_URL": "jdbc:mysql://127.0.0.1:3999/bench"}
    for series in ("vt-native", "bare"):
        s.start_app(f"app {series}", 9101, 9102, "/tmp/app.log", series, java_opts=["-Xmx1g"],
                    env={"BENCH_MAX_CALLS": "7"})
    (_, native, native_kw), (_, bare, bare_kw) = s.ps.started
    assert native == ["/jdk/bin/java", "-Xmx1g", "-jar", tools.VTNATIVE_JAR]
    assert os.path.relpath(tools.VTNATIVE_JAR, tools.ROOT) == "load/vtnative/target/vtvr-vtnative.jar"
    assert bare[:2] == native[:2] and native_kw["env"] == bare_kw["env"]
    env = native_kw["env"]
    assert env["QUARKUS_HTTP_PORT"] == "9101" and env["QUARKUS_REST_CLIENT_DELAY_URL"] == "http://127.0.0.1:9102"
    assert env["BENCH_MAX_CALLS"] == "7" and env["QUARKUS_DATASOURCE_JDBC_URL"].endswith(":3999/bench")


def test_a_native_run_refuses_it():
    s = system("--modes", "vt-native", "--scenario", "io", "--aa", "none")
    s.runner = "/target/app-runner"
    with pytest.raises(Exception, match="runs on the JVM only"):
        s.start_app("app vt-native", 9101, 9102, "/tmp/app.log", "vt-native")


def test_it_is_ready_when_it_serves_and_has_no_metrics_to_scrape():
    url = "http://127.0.0.1:9101"
    assert system_mod.ready_url(url, "vt-native") == url + "/vt-native/io?delay=100&calls=1"
    assert system_mod.metrics_url(url, "vt-native") == ""


def test_its_jar_is_built_when_older_than_its_sources_or_the_apps_it_compiles(monkeypatch):
    seen = {}
    monkeypatch.setattr(tools, "build_when_stale", lambda what, product, argv, sources, *a: seen.update(
        product=product, argv=argv, sources=sources) or product)
    assert tools.vtnative_jar() == tools.VTNATIVE_JAR
    assert seen["argv"] == ["./mvnw", "-B", "-q", "-f", "load/vtnative/pom.xml", "package"]
    assert {"load/vtnative/src", "load/vtnative/pom.xml", "src/main/java/org/vtvr/scenario",
            "src/main/resources/application.properties"} <= set(seen["sources"])
    # every app file its pom compiles lies under the sources watched
    with open(os.path.join(tools.VTNATIVE_DIR, "pom.xml")) as f:
        shared = [line.split(">")[1].split("<")[0] for line in f if "<include>org/vtvr/" in line]
    for path in shared:
        if not path.startswith("org/vtvr/vtnative/"):
            assert any(("src/main/java/" + path).startswith(src) for src in seen["sources"]), path


def test_the_interleaved_design_measures_it_where_it_serves():
    s = settings("--design", "interleaved", "--modes", "vt-native,virtual", "--scenario", "io,db", "--rates", "800",
                 "--aa", "none")
    tp, _ = interleave.trial_plan(s, 7)
    assert "vt-native" in tp.series
    assert all(interleave.serves("vt-native", x) for x in SERVED) and not interleave.serves("vt-native", "cpu")


def test_the_scale_experiment_holds_it_over_both_transports_and_hyperfoil_over_http1_only():
    s = settings("--experiment", "scale", "--modes", "virtual,vt-native")
    groups = {(series, transport) for series, transport, levels in scale.groups_of(s, 20_000) if levels}
    assert groups == {(series, t) for series in ("virtual", "vt-native") for t in ("http1", "h2c")}
    assert {(series, t) for series, t, _, skip in scale.burst.bursts_of(s.modes, s.quick) if not skip} == groups
    s = settings("--experiment", "scale", "--modes", "virtual,vt-native", "--tools", "hyperfoil")
    assert {t for _, t, levels in scale.groups_of(s, 20_000) if levels} == {"http1"}


# ------------------------------------------------------------------------------------ run for real (slow)

def mariadb_client():
    cache = os.environ.get("VTVR_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "vt-vs-reactive")
    found = sorted(glob.glob(os.path.join(cache, "mariadb-*", "bin", "mariadb")))
    return found[-1] if found else None


class Live:
    """The database, the delay service, the app (its virtual mode) and vt-native, started by System as a run does."""

    def __init__(self, tmp, ps):
        self.ps = ps
        self.sys = System(settings("--modes", "virtual,vt-native", "--scenario", "io", "--aa", "none"), str(tmp), ps)
        self.sys.java = os.path.join(tools.java_home(), "bin", "java")
        os.makedirs(tmp / "logs", exist_ok=True)
        assert tools.ensure_jar() and tools.vtnative_jar()
        self.db_port = procs.free_port()
        self.sys.db = Database(ps, self.db_port, str(tmp / "logs" / "db.log"))
        self.sys.db.start()
        delay_port = procs.free_port()
        self.delay = f"http://127.0.0.1:{delay_port}"
        self.sys.start_delay(delay_port, str(tmp / "logs" / "delay.log"))
        self.urls = {}
        for series in ("virtual", "vt-native"):
            port = procs.free_port()
            proc = self.sys.start_app(series, port, delay_port, str(tmp / "logs" / f"{series}.log"), series,
                                      env={"BENCH_REQUEST_DEADLINE": "5s"})   # a deadline a test can pass
            self.urls[series] = f"http://127.0.0.1:{port}"
            self.sys.wait_app(proc, self.urls[series], series, 180, series)

    def get(self, series, query):
        """(status, content type, JSON body) of GET /SERIES/QUERY."""
        try:
            with urllib.request.urlopen(f"{self.urls[series]}/{series}/{query}", timeout=30) as r:
                return r.status, r.headers["Content-Type"], json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], json.loads(e.read())

    def delay_calls(self):
        text = procs.fetch(self.delay + "/q/metrics", 5)[1].decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith("delay_service_calls_total"))

    def counters(self):
        """MariaDB's statement counters (Questions, Com_*), read by its own client (one connection, one query)."""
        out = subprocess.run([mariadb_client(), "--no-defaults", "-h127.0.0.1", f"-P{self.db_port}", "-ubench",
                              "-pbench", "-N", "-e", "SHOW GLOBAL STATUS WHERE Variable_name = 'Questions' "
                              "OR Variable_name LIKE 'Com\\_%'"], capture_output=True, text=True, check=True).stdout
        return {name: int(value) for name, value in (line.split("\t") for line in out.splitlines())}


@pytest.fixture(scope="module")
def live(tmp_path_factory, slow_tools):   # slow_tools first: a module's fixture precedes the per-test one
    if not mariadb_client():
        pytest.skip("no MariaDB client (load/db.sh start fetches it)")
    with procs.Procs() as ps:
        yield Live(tmp_path_factory.mktemp("vtnative"), ps)


def work(live, series, query, n=10):
    """The delay calls and the statements (counters that moved, less what reading them costs) of N requests."""
    for _ in range(3):   # warm-up: pooled connections open, statement caches filled
        assert live.get(series, query)[0] == 200
    idle_a = live.counters()
    idle = {k: v - idle_a[k] for k, v in live.counters().items()}
    before, calls = live.counters(), live.delay_calls()
    for _ in range(n):
        assert live.get(series, query)[0] == 200
    calls, after = live.delay_calls() - calls, live.counters()
    return calls, {k: after[k] - before[k] - idle[k] for k in after if after[k] - before[k] - idle[k]}


@pytest.mark.slow
@pytest.mark.parametrize("query", ["io?delay=0&calls=3", "fanout?delay=0&calls=8", "db?queries=5", "io",
                                   "workload?delay=0&calls=2&fanout=3&queries=3&cpu=1000&insert=1"])
def test_it_answers_as_the_virtual_mode_with_the_same_delay_calls_and_statements(live, query):
    virtual, native = live.get("virtual", query), live.get("vt-native", query)
    assert virtual[:2] == native[:2] == (200, "application/json;charset=UTF-8")
    assert list(native[2]) == list(virtual[2])
    assert native[2]["mode"] == "vt-native" and native[2]["virtual"] is True
    for same in set(virtual[2]) - {"mode", "thread", "elapsedMs", "checksum", "orderId"}:
        assert native[2][same] == virtual[2][same], same
    calls, statements = work(live, "vt-native", query)
    assert (calls, statements) == work(live, "virtual", query)
    assert calls >= 10 if "delay" in query or query == "io" else statements.get("Questions", 0) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("query", ["io?delay=abc", "io?calls=0", "io?delay=10001", "fanout?delay=10&calls=101",
                                   "io?delay=10000&calls=3", "db?queries=501", "db?queries=", "db?queries",
                                   "workload?insert=2", "workload?calls=900&delay=100", "fanout?delay=%20%2B5x",
                                   "io?delay=99999999999999999999", "nothing-here"])
def test_bad_input_gets_the_virtual_modes_problem(live, query):
    (status, kind, virtual), (status_n, kind_n, native) = live.get("virtual", query), live.get("vt-native", query)
    assert (status_n, kind_n) == (status, kind) and status in (400, 404) and kind == "application/problem+json"
    path = urllib.parse.urlsplit("/x/" + query).path.split("/", 2)[2]
    assert native == {**virtual, "instance": f"/vt-native/{path}"}


@pytest.mark.slow
@pytest.mark.parametrize("query", ["io?delay=10&calls=500", "workload?delay=10&calls=499&fanout=2"])
def test_a_call_past_the_deadline_gets_the_virtual_modes_504(live, query):
    """The plan fits the deadline (5 s here: 500 x 10 ms), the calls' wait does not: each call's own overhead adds up
    past it, so the request answers 504 with the call given up. (A plan of one call as long as the deadline was a
    race each side could win: on 2026-11-29 io?delay=5000 answered 200 once, in CI. At a 2-s deadline a 100-ms io
    request answered 504 while the other pytest worker ran JMH's thread benchmarks on the same two cores.)"""
    virtual, native = live.get("virtual", query), live.get("vt-native", query)
    assert virtual[0] == native[0] == 504 and virtual[1] == native[1] == "application/problem+json"
    assert native[2] == {**virtual[2], "instance": native[2]["instance"]}
    assert native[2]["type"] == "urn:vtvr:problem:delay-timeout"


@pytest.mark.slow
def test_its_metrics_carry_what_the_scale_experiment_reads_under_the_apps_names(live):
    """/q/metrics as on the app: requests in progress by admission's gauge, heap, live threads, collector pauses."""
    assert live.get("vt-native", "io?delay=0")[0] == 200
    for series in ("virtual", "vt-native"):
        code, body = procs.fetch(live.urls[series] + "/q/metrics", 5)
        m = parse(body.decode())
        assert code == 200, series
        assert metric_sum(m, "admission_in_flight", mode=series) == 0, series
        assert metric_sum(m, "jvm_memory_used_bytes", area="heap") > 0 and metric_sum(m, "jvm_threads_live_threads")
