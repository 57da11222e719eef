"""Shared pytest fixtures of the harness package's tests: a local HTTP server whose answers a test sets, the app's
scenario catalogue as captured from it, and for the slow tests what their launchers need: the tools built once, and
an environment of their own (free ports, a mark on every process they start)."""
import fcntl
import http.server
import json
import os
import sys
import threading
import uuid

import psutil
import pytest

from harness.infra import catalogue, procs, profiler, tools
from harness.runs import threadfacts

# GET /scenarios of the real app (java -jar target/quarkus-app/quarkus-run.jar), saved as it answered
CATALOGUE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "scenarios.json")

sys.dont_write_bytecode = True  # no __pycache__ in the source tree


class Routes(dict):
    """path (query included) -> (status, body text or a callable returning (status, body)); unknown paths 404."""

    def __init__(self):
        super().__init__()
        self.hits = []


@pytest.fixture
def http_server():
    """(base URL, routes) of a server on 127.0.0.1 that answers GETs from ROUTES; stopped after the test."""
    routes = Routes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            routes.hits.append(self.path)
            answer = routes.get(self.path) or routes.get(self.path.split("?")[0]) or (404, "not found")
            status, body = answer() if callable(answer) else answer
            data = (body if isinstance(body, str) else json.dumps(body)).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", routes
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def scenario_catalogue():
    """Every test in this process reads the captured catalogue, not a built app; the processes a slow test starts
    read the app's own (harness/infra/catalogue.py)."""
    catalogue.use(file=CATALOGUE)
    yield CATALOGUE
    catalogue.use()


@pytest.fixture(autouse=True)
def slow_tools_built(request):
    """A slow test starts only once slow_tools has run (in this worker or another)."""
    if request.node.get_closest_marker("slow"):
        request.getfixturevalue("slow_tools")


@pytest.fixture(scope="session")
def slow_tools(tmp_path_factory):
    """What the slow tests and their launchers build or fetch when it is missing or stale (the app's jar, the
    vt-native server, the JMH benchmarks, Vegeta, hey, the Hyperfoil runner, async-profiler), made once before the
    first slow test: .ci/run runs them in two pytest-xdist workers, and two builds of one thing at the same moment
    fail or overwrite each other's (two Maven builds of load/vtnative copying its libraries into one folder failed
    one fresh-clone CI run). The workers share the lock file (the run's temporary folder); the second finds
    everything built."""
    with open(tmp_path_factory.getbasetemp().parent / "slow-tools.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        tools.ensure_jar()
        build_slow_tools()


def build_slow_tools():
    """The slow tests' tools but the app's jar: .ci/run builds them beside `mvnw verify` (which builds the jar),
    `cd load/tests && python -c 'import conftest; conftest.build_slow_tools()'`, so that no slow test waits on them."""
    tools.vtnative_jar()
    threadfacts.jmh_jar()
    tools.bash_env("ensure_vegeta && ensure_hey", "VEGETA", "HEY")
    tools.hyperfoil_command(os.path.join(tools.java_home(), "bin", "java"))
    profiler.library()


class Launcher:
    """What a slow test gives a launcher it starts (compare.sh, chaos.sh, startup.sh): this process' environment
    without PYTHON (the launcher finds load/.venv's), a MariaDB folder under the test's own, free ports for its
    database, app and delay service (another worker's run or a user's may hold the defaults), and a mark every
    process it starts inherits, by which the test finds what is still running."""

    def __init__(self, tmp_path):
        self.mark = uuid.uuid4().hex
        self.env = {**os.environ, "VTVR_TEST_MARK": self.mark, "DB_DIR": str(tmp_path / "db"),
                    **{name: str(procs.free_port()) for name in ("DB_PORT", "APP_PORT", "DELAY_PORT")}}
        self.env.pop("PYTHON", None)

    def running(self):
        """The live processes whose environment carries the mark: everything the launcher started, daemons
        included."""
        found = []
        for p in psutil.process_iter():
            try:
                if p.environ().get("VTVR_TEST_MARK") == self.mark and p.status() != psutil.STATUS_ZOMBIE:
                    found.append(p)
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                pass
        return found


@pytest.fixture
def launcher(tmp_path):
    return Launcher(tmp_path)
