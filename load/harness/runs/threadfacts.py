"""What a platform and a virtual thread cost, measured here against what the write-ups state:
the time to start one, to switch (one one-way hand-off in a ping-pong) and the memory one
keeps while parked.

Times come from JMH (load/jmh: ThreadStart, HandOff; one fork), memory from load/jmh's
ParkedThreads main, one fresh JVM per kind and run: the RSS plus used heap after a full GC
that N parked threads add, divided by N.

- Each figure: the geometric mean of the per-iteration scores (or memory runs) with a 95 %
  t interval on their logs: the noise is multiplicative and one-sided, which a t interval on
  raw values turns into a negative lower bound.
- Ratio platform / virtual: conservative interval, low = platform_low / virtual_high and
  high = platform_high / virtual_low.
- Decided: the ratio's interval excludes 1; fewer than two values, or one not positive, give
  NaN and are never decided. A time's interval is one JVM's: it misses what changes between
  JVMs (the platform hand-off took 2-5 us in some runs here, 40 us in others).
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import statistics
from dataclasses import dataclass

from scipy import stats as sps

from harness.infra import tools
from harness.infra.errors import Fatal
from harness.infra.procs import Procs, log

JMH_DIR = os.path.join(tools.LOAD_DIR, "jmh")
JAR = os.path.join(JMH_DIR, "target", "benchmarks.jar")
PARKED_MAIN = "org.vtvr.jmh.ParkedThreads"
KINDS = ("platform", "virtual")
LEVEL = 0.95
# Heap pre-touched: the RSS delta is native memory only, the heap delta the threads' objects;
# Serial GC: least native memory of its own; -Xbatch, no inlining: every thread parks under
# the same compiled frames (ParkedThreads' Javadoc says why)
PARKED_JVM = ("-XX:+UseSerialGC", "-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch",
              "-XX:NativeMemoryTracking=summary", "-Xbatch", "-XX:CompileCommand=quiet",
              f"-XX:CompileCommand=dontinline,{PARKED_MAIN}::descend")
# name -> (JMH class or None for the memory main, the sentence's name, the write-ups' figure)
FACTS = {"start": ("ThreadStart", "Starting a thread", "about 1 ms vs 1 us"),
         "switch": ("HandOff", "Switching (one hand-off)", "100 us vs 10 us"),
         "parked memory": (None, "Memory per parked thread", "1-2 MiB vs about 10 KB of stack")}
UNITS = {"us/op": "us", "ns/op": "ns", "ms/op": "ms"}   # JMH's AverageTime units, as written


@dataclass(frozen=True)
class ThreadFact:
    """One cost of a platform and of a virtual thread: intervals, their ratio, whether decided."""
    name: str
    unit: str
    platform: float
    platform_low: float
    platform_high: float
    virtual: float
    virtual_low: float
    virtual_high: float
    ratio: float
    ratio_low: float
    ratio_high: float
    stated: str
    decided: bool

    def sentence(self) -> str:
        """One line: 'Starting a thread: platform 132 us [127, 137], virtual 0.764 us [0.709,
        0.823], 173x [154, 194] (the write-ups: about 1 ms vs 1 us)', and why not if undecided."""
        u = self.unit
        line = (f"{FACTS[self.name][1]}: platform {_num(self.platform)} {u} "
                f"[{_num(self.platform_low)}, {_num(self.platform_high)}], "
                f"virtual {_num(self.virtual)} {u} [{_num(self.virtual_low)}, "
                f"{_num(self.virtual_high)}], {_num(self.ratio)}x "
                f"[{_num(self.ratio_low)}, {_num(self.ratio_high)}] (the write-ups: {self.stated})")
        return line if self.decided else line + "; not decided: the ratio's interval includes 1"


def _num(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def t_interval(values: list[float], level: float = LEVEL) -> tuple[float, float, float]:
    """(geometric mean, low, high): Student's t interval on the logs of VALUES, mapped back; NaN
    bounds for fewer than two values or one not positive (the point: the arithmetic mean)."""
    if len(values) < 2 or min(values) <= 0:
        return statistics.fmean(values), math.nan, math.nan
    logs = [math.log(x) for x in values]
    m = statistics.fmean(logs)
    half = sps.t.ppf((1 + level) / 2, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def fact(name: str, unit: str, platform: list[float], virtual: list[float]) -> ThreadFact:
    """The fact NAME from the platform and virtual values (in UNIT): intervals, ratio, decision."""
    p, v = t_interval(platform), t_interval(virtual)
    low = p[1] / v[2] if v[2] > 0 else math.nan
    high = p[2] / v[1] if v[1] > 0 else math.inf
    return ThreadFact(name, unit, *p, *v, ratio=p[0] / v[0] if v[0] else math.inf, ratio_low=low,
                      ratio_high=high, stated=FACTS[name][2], decided=bool(low > 1 or high < 1))


def jmh_scores(results: list[dict]) -> dict[tuple[str, str], tuple[str, list[float]]]:
    """(benchmark class, method) -> (unit, every fork's per-iteration scores) from JMH's JSON."""
    out = {}
    for b in results:
        cls, method = b["benchmark"].split(".")[-2:]
        metric = b["primaryMetric"]
        unit = metric["scoreUnit"]
        out[(cls, method)] = (UNITS.get(unit, unit),
                              [float(x) for fork in metric["rawData"] for x in fork])
    return out


def time_facts(results: list[dict]) -> list[ThreadFact]:
    """The start and switch facts from JMH's JSON result."""
    scores, facts = jmh_scores(results), []
    for name, (cls, _, _) in FACTS.items():
        if cls is None:
            continue
        missing = [k for k in KINDS if (cls, k) not in scores]
        if missing:
            raise Fatal(f"the JMH result has no {cls}.{', '.join(missing)}")
        (unit, p), (unit_v, v) = scores[(cls, "platform")], scores[(cls, "virtual")]
        if unit != unit_v:
            raise Fatal(f"{cls}: platform in {unit}, virtual in {unit_v}")
        facts.append(fact(name, unit, p, v))
    return facts


def kib_per_thread(run: dict) -> float:
    """A ParkedThreads run's memory per parked thread (KiB): RSS plus heap delta, per thread."""
    rss = run["rss_kib_after"] - run["rss_kib_before"]
    heap = (run["heap_used_after"] - run["heap_used_before"]) / 1024
    return (rss + heap) / run["threads"]


def memory_fact(runs: list[dict]) -> ThreadFact:
    """The parked memory fact from ParkedThreads' JSON records (one per kind and run)."""
    per = {k: [kib_per_thread(r) for r in runs if r["kind"] == k] for k in KINDS}
    if not all(per.values()):
        raise Fatal(f"parked memory: runs of {', '.join(k for k, v in per.items() if v)} only")
    return fact("parked memory", "KiB", per["platform"], per["virtual"])


def last_json(path: str) -> dict:
    """The last line of PATH that is a JSON object (the JVM may print warnings before it)."""
    with open(path) as f:
        lines = [ln for ln in f.read().splitlines() if ln.startswith("{")]
    if not lines:
        raise Fatal(f"no JSON line in {path}")
    return json.loads(lines[-1])


def jmh_jar(ps: Procs | None = None, build_log: str | None = None) -> str:
    """load/jmh's benchmarks jar, built when missing or older than its sources -> its path."""
    rel = os.path.relpath(JMH_DIR, tools.ROOT)
    return tools.build_when_stale("the JMH benchmarks", JAR,
                                  ["./mvnw", "-B", "-q", "-f", f"{rel}/pom.xml", "package"],
                                  (f"{rel}/src", f"{rel}/pom.xml"), ps, build_log)


def measure(java: str, ps: Procs, out_dir: str, build_log: str | None = None,
            threads: int = 2000, runs: int = 3) -> list[ThreadFact]:
    """Builds load/jmh when stale, runs its benchmarks on JAVA and ParkedThreads RUNS times per
    kind with THREADS threads in fresh JVMs; writes jmh.json, parked.json and logs to OUT_DIR."""
    os.makedirs(out_dir, exist_ok=True)
    jar = jmh_jar(ps, build_log)
    result = os.path.join(out_dir, "jmh.json")
    jmh_log = os.path.join(out_dir, "jmh.log")
    log(f"JMH: {', '.join(c for c, _, _ in FACTS.values() if c)}, "
        "platform and virtual (about 30 s)")
    rc = ps.run("jmh", [java, "-jar", jar, "-foe", "true", "-rf", "json", "-rff", result],
                log_path=jmh_log, timeout=300)
    if rc:
        raise Fatal(f"JMH failed (exit status {rc}), see {jmh_log}")
    with open(result) as f:
        facts = time_facts(json.load(f))
    log(f"parked memory: {threads} threads, {runs} runs per kind, each in a fresh JVM")
    records = []
    for r in range(runs):
        # alternating, so a drift of the machine hits both kinds
        for kind in KINDS if r % 2 == 0 else KINDS[::-1]:
            path = os.path.join(out_dir, f"parked-{kind}-{r + 1}.log")
            rc = ps.run(f"parked-{kind}",
                        [java, *PARKED_JVM, "-cp", jar, PARKED_MAIN, kind, str(threads)],
                        log_path=path, timeout=120)
            if rc:
                raise Fatal(f"ParkedThreads {kind} failed (exit status {rc}), see {path}")
            records.append(last_json(path))
    with open(os.path.join(out_dir, "parked.json"), "w") as f:
        json.dump(records, f, indent=1)
    return [*facts, memory_fact(records)]


def write(facts: list[ThreadFact], out_dir: str) -> str:
    """Writes OUT_DIR/thread-facts.json (a list of the facts' fields) -> its path."""
    path = os.path.join(out_dir, "thread-facts.json")
    with open(path, "w") as f:
        json.dump([dataclasses.asdict(x) for x in facts], f, indent=1)
    return path


def read(path: str) -> list[ThreadFact]:
    """The facts `write` wrote to PATH."""
    with open(path) as f:
        return [ThreadFact(**d) for d in json.load(f)]
