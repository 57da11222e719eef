"""`--experiment coldstart` (issue #44): what a fresh app does with full traffic from its first
ready second. One run's records (Second, Start, Warm, ColdRun), written once as summary.json; per
start the seconds until its p99 stays within SETTLE_X of the warm p99; per series and way the mean
over the starts with a 95 % t interval."""
from __future__ import annotations

import csv
import io
import math
import statistics
from dataclasses import asdict, dataclass, field, fields

import numpy as np
from scipy import stats

SETTLE_X = 1.5          # settled: every later second's p99 within 1.5x of the warm p99
HELD_S = 5              # ... for at least this many seconds before the run ends
LATE_MS = 1000          # an answer later than this is late
WAYS = ("jvm", "warm", "aot", "native")
WAY_NAMES = {"jvm": "the plain JVM", "warm": "the plain JVM ready only once warm (bench.warm-up)",
             "aot": "the JVM with its AOT cache", "native": "the native executable"}


@dataclass(frozen=True)
class Second:
    """One second of one start's load (t = 0: the first second after the app said it was ready)."""
    t: int
    sent: int
    ok: int
    late: int                 # answers (any status) after more than LATE_MS
    refused: int              # a status other than 2xx/3xx, or no answer
    p50_ms: float | None      # of the successes sent in this second
    p99_ms: float | None
    cpu_ms: float             # the app's CPU in this second
    jit_ms: float             # of which its JIT compiler threads


@dataclass
class Start:
    """One fresh start of one series in one way: the time to ready, then each second of the load."""
    series: str
    way: str
    n: int
    ready_ms: int             # the process's start to its first ready answer
    cpu_ready_ms: float       # the app's CPU until then
    seconds: list = field(default_factory=list)

    def settle_s(self, warm_p99_ms):
        """The first second from which every p99 stays within SETTLE_X x WARM_P99_MS, all requests
        answered; None when that holds for less than the last HELD_S seconds (not settled)."""
        limit = SETTLE_X * warm_p99_ms
        settled = None
        for s in reversed(self.seconds):
            if s.p99_ms is None or s.p99_ms > limit or s.ok < s.sent:
                break
            settled = s.t
        return settled if settled is not None and len(self.seconds) - settled >= HELD_S else None

    def from_start_s(self, warm_p99_ms, seconds):
        """Seconds from the process's start until it settled; unsettled: the whole run (a bound)."""
        t = self.settle_s(warm_p99_ms)
        return self.ready_ms / 1000 + (seconds if t is None else t)

    def cpu_until_ms(self, t):
        """The app's CPU from its start until second T of the load (the whole load if T is None)."""
        upto = self.seconds if t is None else self.seconds[:t]
        return self.cpu_ready_ms + sum(s.cpu_ms for s in upto)

    @property
    def late(self):
        return sum(s.late for s in self.seconds)

    @property
    def refused(self):
        return sum(s.refused for s in self.seconds)

    @property
    def sent(self):
        return sum(s.sent for s in self.seconds)


@dataclass(frozen=True)
class Warm:
    """A series warmed up (JIT quiet): its ceiling (None: --rates set the rate), p99 at the rate."""
    series: str
    ceiling: int | None
    p99_ms: float
    jit_pct: float


@dataclass
class ColdRun:
    """The run: rate and duration, the warm figures, every start, the ways not run and why."""
    rate: int
    seconds: int
    warm: list = field(default_factory=list)
    starts: list = field(default_factory=list)
    missing: dict = field(default_factory=dict)     # way -> why it did not run
    facts: dict = field(default_factory=dict)

    def warm_of(self, series):
        return next(w for w in self.warm if w.series == series)

    def groups(self):
        """(series, way) of the starts: the series in the warm figures' order, the ways in WAYS'."""
        order = [w.series for w in self.warm]
        return sorted(dict.fromkeys((s.series, s.way) for s in self.starts),
                      key=lambda g: (order.index(g[0]), WAYS.index(g[1])))

    def of(self, series, way):
        return [s for s in self.starts if s.series == series and s.way == way]

    def as_dict(self):
        """The run as summary.json holds it: each start's seconds as one table (names once)."""
        names = [f.name for f in fields(Second)]
        starts = [{**{k: v for k, v in asdict(s).items() if k != "seconds"},
                   "seconds": {"fields": names,
                               "rows": [[getattr(x, n) for n in names] for x in s.seconds]}}
                  for s in self.starts]
        return {**asdict(self), "starts": starts, "rows": [asdict(r) for r in rows(self)]}


@dataclass(frozen=True)
class Mean:
    """A mean over the starts with its 95 % t interval (lo = hi = mean for one start)."""
    mean: float
    lo: float
    hi: float
    n: int

    def text(self, fmt="{:,.0f}"):
        if self.n < 2:
            return fmt.format(self.mean)
        return f"{fmt.format(self.mean)} [{fmt.format(self.lo)}, {fmt.format(self.hi)}]"


def mean(values):
    """The mean of VALUES (none negative) with its 95 % t interval, cut at zero."""
    xs = [float(v) for v in values]
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return Mean(m, m, m, len(xs))
    half = stats.t.ppf(0.975, len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return Mean(m, max(0.0, m - half), m + half, len(xs))


@dataclass(frozen=True)
class Row:
    """One series started one way, over its starts."""
    series: str
    way: str
    starts: int
    settled: int              # starts that settled within the run
    settle_s: Mean | None     # over the starts that settled (None: none did)
    from_start_s: Mean        # the process's start to settled (unsettled: to the run's end)
    late: Mean
    refused: Mean
    cpu_s: Mean               # the app's CPU until it settled (unsettled: until the end)
    ready_ms: Mean
    warm_p99_ms: float


def rows(run):
    out = []
    for series, way in run.groups():
        starts, warm = run.of(series, way), run.warm_of(series).p99_ms
        settle = [s.settle_s(warm) for s in starts]
        done = [t for t in settle if t is not None]
        out.append(Row(series, way, len(starts), len(done), mean(done) if done else None,
                       mean([s.from_start_s(warm, run.seconds) for s in starts]),
                       mean([s.late for s in starts]), mean([s.refused for s in starts]),
                       mean([s.cpu_until_ms(t) / 1000
                             for s, t in zip(starts, settle, strict=True)]),
                       mean([s.ready_ms for s in starts]), warm))
    return out


def seconds_of(vegeta_csv, cpu, seconds):
    """[Second] of one start from `vegeta encode -to csv` (timestamp ns, code, latency ns, ...,
    error, ...) and CPU [(t, cpu_ms, jit_ms)] per second; a request counts in the second sent."""
    sent = [(int(r[0]), int(r[1]), int(r[2]) / 1e6, r[5])
            for r in csv.reader(io.StringIO(vegeta_csv)) if len(r) >= 6]
    if not sent:
        return []
    t0 = min(t for t, *_ in sent)
    by = [[] for _ in range(seconds)]
    for t, code, ms, err in sent:
        k = int((t - t0) // 1e9)
        if k < seconds:
            by[k].append((ms, 200 <= code < 400 and not err))
    used = dict((t, (c, j)) for t, c, j in cpu)
    out = []
    for k, reqs in enumerate(by):
        ok = np.array([ms for ms, good in reqs if good])
        p50, p99 = ((round(float(np.percentile(ok, p)), 1) for p in (50, 99)) if len(ok)
                    else (None, None))
        c, j = used.get(k, (0.0, 0.0))
        out.append(Second(k, len(reqs), int(len(ok)), sum(ms > LATE_MS for ms, _ in reqs),
                          sum(not good for _, good in reqs), p50, p99, round(c, 1), round(j, 1)))
    return out


def of_json(d):
    """A ColdRun from its summary.json."""
    run = ColdRun(d["rate"], d["seconds"], [Warm(**w) for w in d["warm"]], [], d.get("missing", {}),
                  d.get("facts", {}))
    for s in d["starts"]:
        table = s["seconds"]
        run.starts.append(Start(s["series"], s["way"], s["n"], s["ready_ms"], s["cpu_ready_ms"],
                                [Second(**dict(zip(table["fields"], row, strict=True)))
                                 for row in table["rows"]]))
    return run
