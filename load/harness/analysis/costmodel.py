"""The cost model of `calibrate` and `advise` (docs/advise.md): a request's CPU, latency, memory and
threads as linear sums of what it does, fitted per series, and the highest rate each bound allows.

CPU per request (ms) = (the request's own cost + per call x calls + per fan-out x (fanout > 0)
                        + per concurrent call x fanout + per query x queries + per insert x insert)
                       x (1 + beta x (1 - u))
                       + per million divisions x the CPU kernel's divisions
                       + per_second (cores) x 1,000 / rate
                       + per second waited x the request's waits (the app's CPU only)
u: the machine's busy share; on an idle machine each event wakes a sleeping thread, so operations
cost more (divisions do not). beta is fitted per series on a grid, the rest by least squares, both
on relative errors (a trial's noise grows with its CPU; advise's targets are relative). The
same form on the machine's CPU gives u (busy_share) and the cores a rate needs (at least the app's
CPU: the machine's holds it); the ceiling keeps
the machine as busy as the sweep was where p99 grew by the shape's unloaded p99 (latency-aware: a
request that waits long tolerates more queueing)."""
from __future__ import annotations

import functools
import json
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from harness.analysis.costrecords import (
    Figure,
    Fit,
    Trial,
    busy,
    confirmed_ceiling,
    settled,
    sweep_ceiling,
)
from harness.infra.errors import Fatal
from harness.infra.shape import planned_wait_ms

# the shape's items, in the catalogue's order (GET /scenarios, workload)
SHAPE_KEYS = ("delay", "calls", "fanout", "queries", "cpu", "insert")
# a request's parts, costed on a full machine (u = 1), then mdiv and per_second (docs/advise.md);
# 2026-11-27/28 sweeps: as the machine filled a shape's CPU fell with its operations, not log(rate)
PARTS = ("fixed", "call", "fanout_step", "concurrent_call", "query", "insert")
CPU_TERMS = PARTS + ("mdiv", "per_second")
# the app's CPU also grows with how long a request waits (the calibration's 1-s call: timers, parked
# requests, a heap of more of them); on the machine's the term made ceilings worse (docs/advise.md)
APP_TERMS = CPU_TERMS + ("per_s_waited",)
LAT_TERMS = PARTS + ("mdiv",)
BETAS = tuple(k / 4 for k in range(41))   # the grid beta is fitted on: 0 to 10
REL_FLOOR_MS = 0.02   # a trial's CPU under it weighs as it (relative errors; none so low so far)
FIT = "relative"      # how the CPU terms are fitted: calibrations fitted otherwise are refitted


@functools.cache
def divisions(n):
    """The CPU kernel's trial divisions for primes up to N (org.vtvr.cpu.Primes, exactly): its
    work grows as n^1.5 / ln n, so the model counts divisions, not n."""
    if n < 3:
        return 0
    odd = np.arange(3, n + 1, 2, dtype=np.int64)
    spf = np.zeros(len(odd), dtype=np.int64)   # smallest odd factor per candidate (0: prime)
    for d in range(3, math.isqrt(n) + 1, 2):
        i = (d * d - 3) // 2
        sl = spf[i::d]
        sl[sl == 0] = d
    root = np.sqrt(odd.astype(np.float64)).astype(np.int64)
    root += (root + 1) * (root + 1) <= odd
    prime_loops = np.maximum(0, (root - 1) // 2)            # d = 3, 5, ... <= sqrt(c)
    loops = np.where(spf == 0, prime_loops, (spf - 1) // 2)  # stops at the smallest factor
    return int(loops.sum())


def work(shape):
    """How many of each part SHAPE has (PARTS' order), then its million divisions."""
    return [1.0, shape["calls"], 1.0 if shape["fanout"] else 0.0, shape["fanout"], shape["queries"],
            shape["insert"], divisions(shape["cpu"]) / 1e6]


def features(shape, rate, u, beta, rates=None, app=False):
    """The CPU model's inputs (CPU_TERMS' order; APP: APP_TERMS') of SHAPE at RATE req/s on a
    machine U busy (0-1), operations scaled by 1 + BETA x (1 - U); RATES: the rate held to them."""
    if rates:
        rate = min(max(rate, rates[0]), rates[1])
    *parts, mdiv = work(shape)
    idle = 1 + beta * (1 - min(max(u, 0.0), 1.0))
    waits = [planned_wait_ms(shape) / 1000] if app else []
    return [p * idle for p in parts] + [mdiv, 1000 / max(rate, 1e-3)] + waits


def fit_busy(trials, y, ncores, app=False):
    """(beta, Fit) of Y on TRIALS: beta on BETAS with the least sum of squared relative errors, each
    trial at its own u; APP: the app's terms (APP_TERMS). Relative: a trial's noise grows with its
    CPU (an idle machine's wake-ups), and advise's targets are relative (docs/advise.md)."""
    best = None
    y = np.asarray(y, float)
    w = 1 / np.maximum(y, REL_FLOOR_MS)
    for beta in BETAS:
        x = np.asarray([features(t.shape, t.sent_rps, busy(t, ncores) / ncores, beta, app=app)
                        for t in trials])
        fit = Fit.of(APP_TERMS if app else CPU_TERMS, x, y, nonneg=True, weights=w)
        sse = float((((y - x @ np.asarray(fit.coef)) * w) ** 2).sum())
        if best is None or sse < best[0]:
            best = (sse, beta, fit)
    return best[1], best[2]


def busy_share(m, shape, rate, ncores):
    """The machine's busy share u at RATE (0-1): u = rate x CPU(u) / (1,000 x NCORES), solved for u
    with the fit's machine CPU per request CPU(u) = A + B x (1 - u)."""
    full = m.machine.at(features(shape, rate, 1.0, m.beta_machine, m.rates))[0]
    idle = m.machine.at(features(shape, rate, 0.0, m.beta_machine, m.rates))[0]
    u = rate * idle / (1000 * ncores + rate * (idle - full))
    return min(max(u, 0.0), 1.0)


@dataclass
class SeriesModel:
    """One series' calibrated model."""
    series: str
    cpu: Fit
    machine: Fit
    latency: Fit
    memory: Fit                 # RSS MiB = idle + per waiting request x in flight
    threads: Fit
    idle_cores: float
    util_max: float             # busy share where the sweep's p99 doubled (the cores' ceiling)
    sweep_ceiling: float        # the rate the sweep's p99 doubled at (its shape), 0: not reached
    tail_ms: float              # unloaded p99 minus p50
    bounds: dict                # name -> size (worker threads, DB pool, delay conns, admission)
    rates: tuple                # the calibrated rates (lowest, highest)
    shape_max: dict             # the largest value of each item the calibration measured
    queue_curve: tuple = ()     # the sweep's (busy share, p99 growth ms), ascending
    beta: float = 0.0           # how much more operations cost the app when idle (features)
    beta_machine: float = 0.0   # the same for the whole machine's CPU
    fit: str = "absolute"       # how the CPU terms were fitted (FIT since 2026-11-29)

    def to_json(self):
        d = asdict(self)
        for k in ("cpu", "machine", "latency", "memory", "threads"):
            d[k] = asdict(getattr(self, k))
        return d

    @classmethod
    def from_json(cls, d):
        fits = {k: Fit(**{**d[k], "names": tuple(d[k]["names"]), "coef": tuple(d[k]["coef"]),
                          "cov": tuple(map(tuple, d[k]["cov"]))})
                for k in ("cpu", "machine", "latency", "memory", "threads")}
        return cls(**{**d, **fits, "rates": tuple(d["rates"]),
                      "queue_curve": tuple(tuple(p) for p in d.get("queue_curve", ()))})


@dataclass
class Calibration:
    """calibration.json: the machine, software and every series' model."""
    facts: dict
    series: dict = field(default_factory=dict)     # series -> SeriesModel
    trials: list = field(default_factory=list)     # every Trial, for the page and a refit

    def write(self, path):
        with open(path, "w") as f:
            json.dump({"facts": self.facts,
                       "series": {k: v.to_json() for k, v in self.series.items()},
                       "trials": Trial.table(self.trials)}, f, separators=(",", ":"))

    @staticmethod
    def raw(path):
        """PATH's JSON; a clear error for a file that is not a calibration (no stack trace)."""
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            raise Fatal(f"{path}: not a calibration.json ({e}); load/calibrate.sh writes one"
                        ) from None
        if not isinstance(d, dict) or not isinstance(d.get("series"), dict) or "facts" not in d:
            raise Fatal(f"{path}: not a calibration.json (no 'facts' and 'series'); "
                        "load/calibrate.sh writes one")
        return d

    @classmethod
    def read(cls, path, models=True):
        """The calibration at PATH; MODELS=False: its facts and trials only (to fit again)."""
        d = cls.raw(path)
        old = [k for k, v in d["series"].items()
               if tuple(v["cpu"]["names"]) != APP_TERMS or v.get("fit", "absolute") != FIT]
        if models and old:
            v = d["series"][old[0]]
            raise Fatal(f"{path}: fitted with an older model ({', '.join(old)}: terms "
                        f"{', '.join(v['cpu']['names'])}, fitted on {v.get('fit', 'absolute')} "
                        f"errors); fit it again from "
                        f"its trials with `vtvr-harness calibrate --refit {path}`, or run "
                        f"load/calibrate.sh again")
        series = {k: SeriesModel.from_json(v) for k, v in d["series"].items()} if models else {}
        return cls(d["facts"], series, Trial.of_json(d.get("trials", ())))


def in_flight(rate, latency_ms):
    """Requests in flight by Little's law."""
    return rate * latency_ms / 1000


def fit_series(series, trials, bounds, ncores):
    """The SeriesModel of SERIES from its TRIALS (cpu, memory, sweep and idle kinds)."""
    sweep = sorted((t for t in trials if t.kind == "sweep"), key=lambda t: t.rate)
    # calibrations pooled swept each rate more than once: a crossing counts where all crossed
    pooled = len({t.rate for t in sweep}) < len(sweep)
    crossed = confirmed_ceiling(sweep) if pooled else sweep_ceiling(sweep)
    served = [t for t in sweep if not crossed or t.rate < crossed]   # steps before p99 doubled
    cpu = settled([t for t in trials if t.kind in ("cpu", "memory") and t.ok]) + served
    # a request's CPU once compiled: each trial's CPU less the JIT's (Trial.jit_ms)
    beta, app = fit_busy(cpu, [max(0.0, t.app_ms - t.jit_ms) for t in cpu], ncores, app=True)
    beta_machine, mach = fit_busy(cpu, [max(0.0, t.machine_ms - t.jit_ms) for t in cpu], ncores)
    # unloaded latency: each shape's trials at its lower rate (at the higher, queueing or the JIT
    # put 157-629 ms into p50 at times on 2026-11-28, shrinking the DB pool's Little's-law bound)
    lowest = {}
    for t in cpu:
        lowest[_key(t)] = min(lowest.get(_key(t), math.inf), t.rate)
    lat = [t for t in cpu
           if t.kind == "cpu" and t.p50_ms is not None and t.rate == lowest[_key(t)]]
    latency = Fit.of(LAT_TERMS, [work(t.shape) for t in lat],
                     [t.p50_ms - planned_wait_ms(t.shape) for t in lat])
    flight = [[1.0, in_flight(t.sent_rps, t.p50_ms or 0)] for t in cpu]
    # a waiting request holds memory and threads or none (the worker pool fitted a slope below 0)
    memory = Fit.of(("idle", "per_request"), flight, [t.rss_mib for t in cpu], nonneg=True)
    threads = Fit.of(("idle", "per_request"), flight, [t.threads for t in cpu], nonneg=True)
    idle = [t for t in trials if t.kind == "idle"]
    idle_cores = float(np.median([t.app_ms for t in idle])) / 1000 if idle else 0.0
    low = [t for t in lat
           if t.sent_rps <= min(x.sent_rps for x in lat) * 1.01 and t.p99_ms is not None]
    tail = float(np.median([t.p99_ms - t.p50_ms for t in low])) if low else 1.0
    rates = [t.sent_rps for t in cpu]
    m = SeriesModel(series, app, mach, latency, memory, threads, idle_cores, 1.0, 0.0, tail,
                    dict(bounds), (min(rates), max(rates)),
                    {k: max(t.shape[k] for t in cpu) for k in SHAPE_KEYS},
                    beta=beta, beta_machine=beta_machine, fit=FIT)
    if crossed:   # the busy cores where the sweep's p99 doubled: between its last two steps
        below = max((t for t in sweep if t.rate < crossed), key=lambda t: t.rate)
        top = next(t for t in sweep if t.rate == crossed)
        m.sweep_ceiling = crossed
        m.util_max = round(math.sqrt(busy(below, ncores) * busy(top, ncores)) / ncores, 4)
    if sweep and sweep[0].p99_ms is not None:   # each step: how much p99 grew at what busy share
        m.queue_curve = tuple((round(busy(t, ncores) / ncores, 4),
                               round(max(0.0, t.p99_ms - sweep[0].p99_ms), 2))
                              for t in sweep[1:] if t.p99_ms is not None and t.ok_rate >= 0.99)
    return m


def monotone(points):
    """POINTS (busy share, p99 growth ms) made a curve that never falls as the machine gets busier:
    growth at least 1 ms, falling steps pooled (pool-adjacent-violators on log growth) into their
    mean share and geometric mean growth: a p99 spike is weighed with its neighbours, not kept."""
    blocks = []   # [sum of shares, sum of log growth, count]
    for u, d in sorted(points):
        blocks.append([u, math.log(max(1.0, d)), 1])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] > blocks[-1][1] / blocks[-1][2]:
            u2, g2, n2 = blocks.pop()
            blocks[-1] = [blocks[-1][0] + u2, blocks[-1][1] + g2, blocks[-1][2] + n2]
    return [(su / n, math.exp(sg / n)) for su, sg, n in blocks]


def util_for(m, allowed_ms):
    """The machine's busy share at which the sweep's p99 had grown by ALLOWED_MS (a shape's unloaded
    p99: the growth that doubles it), on the monotone curve, interpolated on log growth; the end
    points' shares beyond its ends; util_max without a curve (an older calibration)."""
    pts = monotone(m.queue_curve)
    if len(pts) < 2:
        return m.util_max
    if allowed_ms <= pts[0][1]:
        return pts[0][0]
    for (u0, d0), (u1, d1) in zip(pts, pts[1:]):
        if d0 < allowed_ms <= d1:
            return u0 + (u1 - u0) * math.log(allowed_ms / d0) / math.log(d1 / d0)
    return pts[-1][0]


def _key(t):
    return tuple(sorted(t.shape.items()))


@dataclass(frozen=True)
class Prediction:
    """One series' predicted cost of a shape at a rate."""
    series: str
    cpu_ms_per_req: Figure
    cores: Figure               # the app's
    machine_cores: Figure       # the app's and everything beside it on this machine
    latency_ms: Figure          # median, unloaded
    rss_mib: Figure
    threads: Figure
    max_rate: Figure
    bound: str                  # what sets max_rate
    limits: dict                # every bound's rate
    outside: tuple              # how the question leaves the calibrated range (empty: inside)
    swept: bool = True          # the calibration's sweep doubled its p99 (else its cores' ceiling
                                # is the costs of a fuller machine than measured, extrapolated)

    def as_dict(self):
        out = {}
        for k in ("cpu_ms_per_req", "cores", "machine_cores", "latency_ms", "rss_mib", "threads",
                  "max_rate"):
            out.update(getattr(self, k).as_dict(k))
        return {**{k: _num(v, 4) for k, v in out.items()}, "bound": self.bound,
                "limits": {k: _num(v, 1) for k, v in self.limits.items()},
                "outside": list(self.outside)}


def _num(v, digits):
    """V rounded; None for no bound at all (JSON has no infinity)."""
    return round(float(v), digits) if math.isfinite(v) else None


def _fig(t, floor=0.0):
    return Figure(*(max(floor, v) for v in t))


def predict(m, shape, rate, ncores):
    """The Prediction of series model M for SHAPE at RATE req/s on a machine of NCORES."""
    u = busy_share(m, shape, rate, ncores)
    cpu = _fig(m.cpu.at(features(shape, rate, u, m.beta, m.rates, app=True)))
    cores = Figure(*(v * rate / 1000 for v in (cpu.value, cpu.low, cpu.high)))
    mach = _fig(m.machine.at(features(shape, rate, u, m.beta_machine, m.rates)))
    mcores = Figure(*(v * rate / 1000 for v in (mach.value, mach.low, mach.high)))
    lat = latency(m, shape)
    limits = ceilings(m, shape, lat, ncores)
    bound = min(limits, key=lambda k: limits[k].value)
    # in flight by Little's law, at most at its ceiling (past it requests pile up: at least that)
    flight = in_flight(min(rate, limits[bound].value), lat.value)
    rss = _fig(m.memory.at([1.0, flight]))
    threads = _fig(m.threads.at([1.0, flight]))
    outside = tuple(f"{k}={shape[k]} (calibrated up to {m.shape_max[k]})" for k in SHAPE_KEYS
                    if shape[k] > m.shape_max[k])
    lo, hi = m.rates
    if not lo / 2 <= rate <= hi * 2:
        outside += (f"rate {rate:g} req/s (calibrated at {lo:.0f}-{hi:.0f})",)
    top = limits[bound].value
    if bound == "cores" and top > hi * 2:   # it costs a fuller machine than the trials saw
        outside += (f"{m.series}'s ceiling {top:,.0f} req/s (calibrated up to {hi:,.0f})",)
    return Prediction(m.series, cpu, cores, mcores, lat, rss, threads, limits[bound], bound,
                      {k: v.value for k, v in limits.items()}, outside, m.sweep_ceiling > 0)


def latency(m, shape):
    """The unloaded median latency of SHAPE: the waits plus the fitted rest."""
    lat = _fig(m.latency.at(work(shape)), 0.1)
    return Figure(*(v + planned_wait_ms(shape) for v in (lat.value, lat.low, lat.high)))


def cores_ceiling(demand_ms, budget_cores):
    """The highest rate whose requests, needing DEMAND_MS(rate) of the machine's CPU each, keep it
    at most BUDGET_CORES busy (bisection; demand held at the calibrated range's ends: it ends)."""
    def served(lam):
        return lam * demand_ms(lam) / 1000 <= budget_cores
    lo, hi = 0.0, 1.0
    while served(hi) and hi < 1e7:
        lo, hi = hi, hi * 2
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if served(mid) else (lo, mid)
    return lo


def ceilings(m, shape, lat, ncores):
    """{bound: Figure of the highest rate it allows} for SHAPE whose latency is LAT."""
    out = {}
    # cores: as busy as the sweep where its p99 grew by this shape's unloaded p99, at least where it
    # doubled (shapes that wait less were measured to reach it: docs/advise.md); costs at that share
    share = max(m.util_max, util_for(m, lat.value + m.tail_ms))
    budget = share * ncores

    def demand(r, k):   # a low end under a tenth of the estimate is no figure; the machine's CPU
        v = m.machine.at(features(shape, r, share, m.beta_machine, m.rates))   # holds the app's
        a = m.cpu.at(features(shape, r, share, m.beta, m.rates, app=True))
        return max(v[k], a[k], 0.1 * v[0])
    out["cores"] = Figure(*(cores_ceiling(lambda r, k=k: demand(r, k), budget) for k in (0, 2, 1)))
    for name, size in m.bounds.items():
        held = held_ms(name, shape, lat.value, m.latency.coef[LAT_TERMS.index("query")])
        if held:   # Little's law: SIZE held for HELD ms each
            out[name] = Figure(*(size * 1000 / h for h in (held, held * lat.high / lat.value,
                                                           held * lat.low / lat.value)))
    return out


# a series' bounds (from the app's /q/info at calibration): name -> what a request holds one for
BOUNDS = {"worker threads": "the whole request", "fan-out threads": "each concurrent call",
          "database connections": "each statement", "delay connections": "each delay call",
          "admission (bench.max-in-flight)": "the whole request"}


def held_ms(name, shape, latency_ms, query_ms):
    """Milliseconds a request of SHAPE holds one bound's unit (a thread, a connection); 0: none."""
    if BOUNDS[name] == "the whole request":
        return latency_ms
    if name == "fan-out threads":
        return shape["fanout"] * (shape["delay"] + 1.0)
    if name == "database connections":
        return (shape["queries"] + shape["insert"]) * max(0.05, query_ms)
    return (shape["calls"] + shape["fanout"]) * (shape["delay"] + 1.0)
