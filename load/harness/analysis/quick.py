"""What `load/compare.sh --quick` can decide in three minutes (issue #45): effects of 2x to 1,000x,
each decided only when every repetition shows it past a threshold well outside the noise; the
small CPU differences named as not decided, with the run that would decide them. Pure: readings
in, findings out (runs/quick.py measures)."""
from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field

# (a) the ceiling: io with one CEIL_DELAY_MS call at half and twice the worker pool's bound
# (Little's law: threads / delay); (b) waiting: io with one WAIT_DELAY_MS call held at WAIT_LEVELS
# in flight (under the REST client's 1,024 delay connections, so the waits are the app's own)
CEIL_DELAY_MS = 500
BELOW, ABOVE = 0.5, 2.0
WAIT_DELAY_MS = 4000
WAIT_LEVELS = (100, 1000)
# a mode kept up at a rate when every repetition answered >= KEPT_OK with a p99 under SLOWER x its
# p99 below the bound; it fell behind when every one answered < BEHIND_OK or its p99 was over that
KEPT_OK, BEHIND_OK, SLOWER = 0.99, 0.95, 2.0
# no measured step while an app's JIT uses more than this share of a core (or it is said)
JIT_MAX_PCT = 10.0
# what a short run cannot decide, and what would (docs/statistics.md: the A/A half-widths here)
UNDECIDED_CPU = ("load/compare.sh --design duet --modes virtual,reactive --scenario io --budget 5m",
                 "5 minutes", "about +-10 %")
POOLED = ("three plain load/compare.sh runs pooled (load/.venv/bin/vtvr-harness report pool)",
          "an hour", "about +-4 %")


@dataclass(frozen=True)
class Reading:
    """One ceiling trial: a series at a rate, one repetition."""
    series: str
    rate: float
    rep: int
    ok_rate: float
    p50_ms: float | None
    p99_ms: float | None
    cpu_ms: float            # the app's CPU per request
    threads: int
    rss_mib: float
    jit_pct: float


@dataclass(frozen=True)
class Held:
    """One waiting level: a series holding requests of WAIT_DELAY_MS, read after a full GC."""
    series: str
    level: int               # asked: rate x delay
    in_flight: int | None    # the app's own admission gauge at the reading
    ok_rate: float
    heap_mib: float | None   # after a full GC: what the waiting requests hold
    rss_mib: float | None
    threads: int | None
    jit_pct: float


@dataclass(frozen=True)
class Finding:
    topic: str
    decided: bool
    text: str


@dataclass
class QuickRun:
    """Everything a quick run measured, and the bound it tested."""
    facts: dict
    worker_threads: int
    readings: list = field(default_factory=list)     # [Reading]
    held: list = field(default_factory=list)         # [Held]
    thread_facts: list = field(default_factory=list)  # [runs.threadfacts.ThreadFact] as dicts
    warm: dict = field(default_factory=dict)         # {"seconds", "jit_pct"}
    order: list = field(default_factory=list)        # the series as the run names them

    @property
    def bound(self):
        """The worker pool's ceiling at CEIL_DELAY_MS by Little's law, req/s."""
        return self.worker_threads * 1000 / CEIL_DELAY_MS

    @property
    def rates(self):
        return round(self.bound * BELOW), round(self.bound * ABOVE)

    def series(self):
        seen = dict.fromkeys(r.series for r in self.readings)
        return sorted(seen, key=lambda x: (self.order.index(x) if x in self.order
                                           else len(self.order)))

    def as_dict(self):
        return {"facts": self.facts, "worker_threads": self.worker_threads, "bound": self.bound,
                "warm": self.warm, "order": self.order,
                "readings": [asdict(r) for r in self.readings],
                "held": [asdict(h) for h in self.held], "thread_facts": self.thread_facts,
                "findings": [asdict(f) for f in findings(self)]}


def of(run, series, rate):
    return [r for r in run.readings if r.series == series and r.rate == rate]


def kept(run, series):
    """'kept', 'behind' or 'unclear' above the bound, by every repetition (KEPT_OK etc.)."""
    low, high = run.rates
    ref = statistics.median([r.p99_ms for r in of(run, series, low) if r.p99_ms] or [math.inf])
    rs = of(run, series, high)
    slow = [not r.p99_ms or r.p99_ms > SLOWER * ref for r in rs]
    if rs and all(r.ok_rate >= KEPT_OK and not s for r, s in zip(rs, slow, strict=True)):
        return "kept"
    if rs and all(r.ok_rate < BEHIND_OK or s for r, s in zip(rs, slow, strict=True)):
        return "behind"
    return "unclear"


def _span(xs, fmt, unit):
    """'1,507-1,508 ms' over the repetitions (one figure when they agree)."""
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return "-"
    lo, hi = fmt(xs[0]), fmt(xs[-1])
    return f"{lo}{unit}" if lo == hi else f"{lo}-{hi}{unit}"


def _pct(x):
    return f"{100 * x:.0f}"


def _ms(x):
    return f"{x:,.0f}"


def ceiling(run):
    low, high = run.rates
    verdict = {x: kept(run, x) for x in run.series()}
    parts = [f"{x} answered {_span([r.ok_rate for r in of(run, x, high)], _pct, ' %')} with p99 "
             f"{_span([r.p99_ms for r in of(run, x, high)], _ms, ' ms')}" for x in run.series()]
    worker, others = verdict.get("worker"), [v for x, v in verdict.items() if x != "worker"]
    decided = worker == "behind" and others and all(v == "kept" for v in others)
    head = (f"Above the worker pool's bound ({run.worker_threads} threads / {CEIL_DELAY_MS} ms = "
            f"{run.bound:,.0f} req/s), at {high:,} req/s of io: ")
    if decided:
        text = (head + "the worker pool fell behind, the others kept up ("
                + "; ".join(parts) + ").")
    else:
        text = head + "no clear split in every repetition (" + "; ".join(
            f"{p}: {verdict[x]}" for x, p in zip(run.series(), parts, strict=True)) + ")."
    return Finding("ceiling", bool(decided), text)


def held_at(run, series, level):
    return next((h for h in run.held if h.series == series and h.level == level), None)


def waiting(run):
    """Threads: at the higher level virtual threads and reactive hold every request on a few OS
    threads, the worker pool no more than its threads and queue (decided when every series shows
    it, an order of magnitude apart). Memory per waiting request: the heap after a full GC between
    the two levels (one reading each: not decided)."""
    lo, hi = WAIT_LEVELS
    out, rows = [], {}
    for x in run.order or dict.fromkeys(h.series for h in run.held):
        a, b = held_at(run, x, lo), held_at(run, x, hi)
        if a and b and b.threads is not None and b.in_flight is not None:
            rows[x] = (a, b)
    if not rows:
        return out
    few = {x: b.in_flight >= 0.9 * hi and b.threads <= 0.1 * b.in_flight
           for x, (_, b) in rows.items() if x != "worker"}
    w = rows.get("worker")
    bound = bool(w) and w[1].in_flight < 0.9 * hi and w[1].threads >= run.worker_threads
    decided = bool(w) and bool(few) and bound and all(few.values())
    parts = [f"{x} held {b.in_flight:,} on {b.threads} OS threads" for x, (_, b) in rows.items()]
    tail = (f"; the worker pool cannot hold more than its {run.worker_threads} threads and its "
            "queue, a platform thread per running request, and refused the rest" if decided else "")
    out.append(Finding("threads", decided, f"Asked to hold {hi:,} requests waiting "
                       f"{WAIT_DELAY_MS / 1000:g} s each: " + "; ".join(parts) + tail + "."))
    kib = {}
    for x, (a, b) in rows.items():
        n = (b.in_flight or 0) - (a.in_flight or 0)
        if x != "worker" and a.heap_mib is not None and b.heap_mib is not None and n > 0:
            kib[x] = (b.heap_mib - a.heap_mib) * 1024 / n
    if kib:
        out.append(Finding("memory", False, f"Heap per waiting request, from {lo:,} to {hi:,} "
                           "waiting (one reading per level, after a full GC): "
                           + ", ".join(f"{x} {v:.1f} KiB" for x, v in kib.items())
                           + "; whether they differ is not decided by one reading "
                           "(docs/scale.md: about the same)."))
    return out


def jit_note(run):
    """The JIT's share of every measured step: the highest, and the steps over JIT_MAX_PCT."""
    steps = ([(f"{r.series} {r.rate:,.0f} req/s", r.jit_pct) for r in run.readings]
             + [(f"{h.series} {h.level:,} waiting", h.jit_pct) for h in run.held])
    over = [f"{name} {pct:.0f} %" for name, pct in steps if pct > JIT_MAX_PCT]
    top = max((p for _, p in steps), default=0.0)
    return top, over


def findings(run):
    out = [ceiling(run), *waiting(run)]
    return out + [Finding(f["name"], f["decided"], f["sentence"].rstrip(".") + ".")
                  for f in run.thread_facts]


# a finding's topic in the words of the line that says it was not decided
TOPIC_WORDS = {"ceiling": "the worker pool's ceiling", "threads": "threads per waiting request",
               "memory": "memory per waiting request between the modes",
               "cpu": "CPU per request (the 10-30 % differences between the modes)"}


def not_decided_line(topics=("cpu",)):
    """One line: what was not decided (TOPICS) and the runs that would decide CPU differences."""
    cmd, took, width = UNDECIDED_CPU
    pooled, ptook, pwidth = POOLED
    words = ", ".join(dict.fromkeys(TOPIC_WORDS.get(t, f"what a thread costs ({t})")
                                    for t in topics))
    return (f"Not decided in three minutes: {words}. `{cmd}` resolves {width} in {took}; "
            f"{pooled} {pwidth} in {ptook}.")
