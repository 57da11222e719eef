"""The scenario catalogue as the app serves it (`GET /scenarios`, src/main/java/org/vtvr/web/
CatalogueResource), turned into requests: a scenario and a series (a mode, the floor, a ladder
rung, the bare process) become method, path with query, expected status and body. load/ keeps no
list of its own: scenarios, series, paths, parameters, defaults and bounds all come from the app.

Where the catalogue comes from, once per process (then cached in memory):
  1. a running app when named: `use(url=...)` (--app-url, `vtvr-harness targets` with APP_URL);
  2. else the built app, before any app of the run is up: the jar (or native runner) started
     briefly as the delay service (QUARKUS_PROFILE=delay: no database, still serves /scenarios),
     asked once and stopped; the answer kept in target/vtvr-catalogue.json with the jar's size
     and mtime until a rebuild (a missing app is built first). It is the jar a run starts, so the
     catalogue is the app's own; only its bounds (max) follow the default configuration;
  3. tests name a captured answer: `use(file=...)` (tests/fixtures/scenarios.json).

Each scenario parameter has one name (PARAMS: `--set io_calls=..` in capitals, and vegeta.sh's
and hey.sh's environment); PARAM_ENV maps each onto the catalogue's parameter, the one place that
does. Unset: the catalogue's default. A word parameter's other choices are scenarios of their own
(`pinning-reentrant`); one with a required parameter the harness can't fill (an order id) is out.

A shape sets several parameters of one scenario in one text (SHAPES): WORKLOAD ('calls=3,delay=50',
--workload), each item checked against the catalogue's bounds and what the app would refuse
(infra/shape.py). A settings file (--settings, TOML) holds a shape, its loads, scenario parameters
and the settings without a flag; `--set NAME=VALUE` gives one on the command line (runs/options.py).
"""
import contextlib
import functools
import json
import os
import re
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass

from harness.infra import procs
from harness.infra.errors import Fatal
from harness.infra.shape import Shape, refuse
from harness.infra.tools import JAR, ROOT, ensure_jar, java_home, native_runner

CACHE = os.path.join(ROOT, "target", "vtvr-catalogue.json")

# environment name -> (the catalogue's parameter, the scenarios it sets; None: every scenario with
# that parameter that no other name claims)
PARAM_ENV = {
    "DELAY": ("delay", None),               # io, fanout, checkout, pinning: ms per downstream call
    "IO_CALLS": ("calls", ("io",)),         # sequential delay calls per io request
    "FANOUT_CALLS": ("calls", ("fanout",)),  # parallel delay calls per fanout request
    "DB_QUERIES": ("queries", ("db",)),
    "SLOW_DELAY": ("delay", ("slow-query",)),  # ms the slow query holds its connection
    "CPU_N": ("n", ("cpu",)),
    "PINNING_LOCK": ("lock", ("pinning",)),
}
# environment name -> the scenario whose parameters its NAME=VALUE items set (Shape)
SHAPES = {"WORKLOAD": "workload"}   # calls, fanout, queries, cpu, insert, delay of one request
PARAMS = tuple(PARAM_ENV) + tuple(SHAPES)
# the kinds of series a process of their own serves, not the app: bare Vert.x, vtnative's Helidon SE
OWN_PROCESS = ("bare", "helidon")

_source = {"url": None, "file": None}


@dataclass(frozen=True)
class Request:
    """One scenario's request in one mode, and the status a correct answer has."""
    method: str
    path: str
    status: int
    body: str

    @property
    def params(self):
        return self.path.partition("?")[2]


@dataclass(frozen=True)
class Param:
    """A parameter as the catalogue lists it: default (None: required), bounds, a word's choices."""
    name: str
    default: str | None
    min: int | None
    max: int | None
    choices: tuple
    by_mode: tuple = ()   # ((mode, max), ...): a lower max in those modes (reactive: the CPU kernel
                          # runs on the event loop, bench.max-n-event-loop)


def shaped(params):
    """The scenarios PARAMS (env name -> value) shapes (SHAPES): ('workload',) with a WORKLOAD."""
    return tuple(scenario for env, scenario in SHAPES.items() if env in params)


@dataclass(frozen=True)
class Table:
    scenarios: tuple
    modes: tuple     # the product's modes
    # the ladder's rungs (docs/floor.md); with "floor" and the bare ones the measurement-only series
    ladder: tuple
    series: tuple    # every series a URL serves: the modes, the floor, the rungs, the bare process
    bare: tuple      # served by a process of their own without Quarkus (OWN_PROCESS), not the app
    requests: dict   # (series, scenario) -> Request
    params_of: dict  # scenario -> (Param, ...)
    kinds: dict      # series -> kind: mode, floor, ladder, or one of OWN_PROCESS (its process)
    deadline_ms: dict = None   # scenario -> the request deadline (bench.request-deadline), if told

    def modes_for(self, scenario):
        return tuple(m for m in self.modes if (m, scenario) in self.requests)

    def series_for(self, scenario):
        """The modes, the floor, the rungs and the bare series that serve SCENARIO."""
        return tuple(m for m in self.series if (m, scenario) in self.requests)

    def request(self, mode, scenario):
        return self.requests[(mode, scenario)]

    @property
    def plain(self):
        """The scenarios a run measures unless told: all but the shaped ones (they need a shape)."""
        return tuple(x for x in self.scenarios if x not in SHAPES.values())

    def shape(self, env, text):
        """The Shape of TEXT for the scenario SHAPES[ENV] names ('WORKLOAD': workload's parameters);
        Fatal on a bad item or an app without that scenario."""
        scenario = SHAPES[env]
        if scenario not in self.params_of:
            raise Fatal(f"{env}: the app has no {scenario} scenario; "
                        "rebuild it (./mvnw -B -q package -DskipTests)")
        return Shape.of(str(text), self.params_of[scenario])

    def refuse(self, text, series):
        """shape.refuse of the workload TEXT (None: its defaults) in SERIES by this app's rules (its
        deadline, its modes' own bounds): Fatal when it would answer 400 in any of them."""
        ps = self.params_of[SHAPES["WORKLOAD"]]
        sh = Shape.of(text, ps).as_dict() if text else {p.name: int(p.default) for p in ps}
        return refuse(sh, series, ps, (self.deadline_ms or {}).get(SHAPES["WORKLOAD"]))

    def canonical(self, params):
        """PARAMS (env name -> value) with each shape as its canonical Shape.text."""
        return {k: self.shape(k, v).text if k in SHAPES else v for k, v in params.items()}

    def params(self, scenario):
        return self.request(self.modes_for(scenario)[0], scenario).params

    def default(self, env_name):
        """The catalogue's default of the parameter ENV_NAME sets, in its first scenario."""
        name, only = PARAM_ENV[env_name]
        for scenario in self.scenarios:
            if only is None or scenario in only:
                for p in self.params_of[scenario]:
                    if p.name == name and env_of(scenario, name) == env_name:
                        return p.default
        raise KeyError(env_name)

    def lookup(self, mode, scenario):
        """The request of SCENARIO in MODE; Fatal naming what exists when either is unknown."""
        if scenario not in self.scenarios:
            raise Fatal(f"unknown scenario '{scenario}' "
                        f"(expected one of: {' '.join(self.scenarios)})")
        if mode not in self.series:
            raise Fatal(f"unknown mode '{mode}' (expected one of: {' '.join(self.series)})")
        if (mode, scenario) not in self.requests:
            raise Fatal(f"scenario '{scenario}' has no '{mode}' mode "
                        f"(it has: {' '.join(self.series_for(scenario))})")
        return self.request(mode, scenario)


def env_of(scenario, param):
    """The environment name that sets PARAM of SCENARIO; None when none does (default applies)."""
    generic = None
    for env, (name, only) in PARAM_ENV.items():
        if name == param:
            if only and scenario in only:
                return env
            if only is None:
                generic = env
    claimed = any(name == param and only and scenario in only
                  for name, only in PARAM_ENV.values())
    return None if claimed else generic


def env_params(environ):
    """The scenario parameters set in ENVIRON (a dict), as table() takes them."""
    return {k: environ[k] for k in PARAMS if k in environ}


def use(url=None, file=None):
    """Reads the catalogue from the app at URL or the JSON FILE; neither: the built app."""
    _source.update(url=url.rstrip("/") if url else None, file=file)


def fetch(url, timeout=10.0):
    """GET URL/scenarios -> the catalogue (a list of entries); Fatal when the app won't answer."""
    code, body = procs.fetch(url.rstrip("/") + "/scenarios", timeout)
    try:
        if code == 200:
            return json.loads(body)
    except ValueError:
        pass
    raise Fatal(f"no scenario catalogue from {url}/scenarios (status {code}); "
                "is the app running there?")


def _binary():
    """The built app: the jar (built first when missing), else a native runner."""
    return JAR if os.path.isfile(JAR) else native_runner() or ensure_jar(sources=())


def from_app(binary, timeout_s=120):
    """Starts BINARY as the delay service on a free port, reads its catalogue, stops it."""
    cmd = ([os.path.join(java_home(), "bin", "java"), "-jar", binary] if binary.endswith(".jar")
           else [binary])
    env = procs.child_env({"QUARKUS_PROFILE": "delay", "QUARKUS_HTTP_HOST": "127.0.0.1",
                           "QUARKUS_HTTP_PORT": "0"})
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline and proc.poll() is None:
                out.seek(0)
                m = re.search(r"Listening on: (http://[^\s]+)", out.read())
                if m:
                    return fetch(m.group(1))
                time.sleep(0.1)
            out.seek(0)
            raise Fatal(f"{binary} did not serve its scenario catalogue (QUARKUS_PROFILE=delay):\n"
                        f"{out.read()[-3000:]}")
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _stamp(path):
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns]


def _built():
    """The built app's catalogue, from target/vtvr-catalogue.json while the app is unchanged."""
    binary = _binary()
    stamp = [binary, *_stamp(binary)]
    with contextlib.suppress(OSError, ValueError, KeyError):
        with open(CACHE) as f:
            cached = json.load(f)
        if cached["app"] == stamp:
            return cached["scenarios"]
    entries = from_app(binary)
    with contextlib.suppress(OSError):
        with open(CACHE + ".tmp", "w") as f:
            json.dump({"app": stamp, "scenarios": entries}, f)
        os.replace(CACHE + ".tmp", CACHE)
    return entries


@functools.cache
def _entries(key):
    """The catalogue's JSON text from the source KEY names."""
    if key[0] == "url":
        return json.dumps(fetch(key[1]))
    if key[0] == "file":
        with open(key[1]) as f:
            return f.read()
    return json.dumps(_built())


def _key():
    if _source["url"]:
        return ("url", _source["url"])
    if _source["file"]:
        return ("file", _source["file"])
    # read again after a rebuild
    return ("app", JAR, *(_stamp(JAR) if os.path.isfile(JAR) else ()))


def catalogue():
    """The catalogue's entries (the JSON of GET /scenarios) from the current source."""
    return json.loads(_entries(_key()))


def build(entries, overrides):
    """The Table of the catalogue ENTRIES with the scenario parameters OVERRIDES (env -> value)."""
    scenarios, series, kinds, requests, params_of, deadline = [], [], {}, {}, {}, {}
    for e in entries:
        if "series" not in e or "status" not in e:
            raise Fatal("the app's GET /scenarios has no 'series' and 'status': an app older than "
                        "this harness (rebuild it: ./mvnw -B -q package -DskipTests)")
        ps = tuple(Param(p["name"], p.get("defaultValue"), p.get("min"), p.get("max"),
                         tuple(p.get("choices") or ()),
                         tuple(sorted((p.get("maxByMode") or {}).items()))) for p in e["params"])
        if (any(p.default is None and env_of(e["name"], p.name) is None for p in ps)
                or "{" in e["path"]):
            # needs a value the harness has no name for (an order id): not a load scenario
            continue
        variants = [(e["name"], {})]
        for p in ps:
            variants += [(f"{e['name']}-{c}", {p.name: c}) for c in p.choices if c != p.default]
        shape = {n: str(v) for env in SHAPES if SHAPES[env] == e["name"] and env in overrides
                 for n, v in Shape.of(str(overrides[env]), ps).items}
        for name, fixed in variants:
            scenarios.append(name)
            params_of[name] = ps
            deadline[name] = e.get("deadlineMs")
            query = []
            for p in ps:
                env = env_of(e["name"], p.name)
                value = (fixed.get(p.name) or shape.get(p.name)
                         or (overrides.get(env) if env else None) or p.default)
                query.append(f"{p.name}={urllib.parse.quote(str(value), safe='')}")
            for s in e["series"]:
                if s["name"] not in kinds:
                    kinds[s["name"]] = s["kind"]
                    series.append(s["name"])
                path = s["path"] + ("?" + "&".join(query) if query else "")
                requests[(s["name"], name)] = Request(e["method"], path, int(e["status"]),
                                                      e.get("body") or "")
    of = lambda kind: tuple(s for s in series if kinds[s] == kind)   # noqa: E731
    own = tuple(s for s in series if kinds[s] in OWN_PROCESS)
    return Table(tuple(scenarios), of("mode"), of("ladder"), tuple(series), own, requests,
                 params_of, kinds, deadline)


@functools.cache
def _table(key, overrides):
    return build(json.loads(_entries(key)), dict(overrides))


def table(params=None):
    """The table for the scenario parameters PARAMS (DELAY, IO_CALLS, ...; the rest: defaults)."""
    return _table(_key(), tuple(sorted((k, str(v)) for k, v in (params or {}).items()
                                       if k in PARAMS)))
