"""The records the cost model (costmodel.py) is made of: a measured Trial, a least-squares Fit and a
predicted Figure with their intervals; then what a list of trials says (settled ones, a ceiling)."""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from statistics import NormalDist

import numpy as np


def t_quantile(dof, p):
    """Student's t quantile at P: exact at 1 and 2 degrees of freedom, the Cornish-Fisher expansion
    (Abramowitz and Stegun 26.7.5) from 8 on (within 1e-4 of scipy's up to p = 0.995), scipy's in
    between: importing scipy.special took 0.3 s, half of what advise took (docs/advise.md)."""
    if dof == 1:
        return math.tan(math.pi * (p - 0.5))
    if dof == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    if dof < 8:
        from scipy.special import stdtrit
        return float(stdtrit(dof, p))
    z = NormalDist().inv_cdf(p)
    g = ((z ** 3 + z) / 4, (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
         (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
         (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160)
    return z + sum(gi / dof ** (i + 1) for i, gi in enumerate(g))


@dataclass(frozen=True)
class Fit:
    """A least-squares fit: coefficients, their covariance, residual degrees of freedom."""
    names: tuple
    coef: tuple
    cov: tuple
    dof: int

    @classmethod
    def of(cls, names, x, y, nonneg=False, weights=None):
        """NONNEG: every coefficient at least 0 (non-negative least squares; a cost cannot be
        negative, and a few noisy trials, as calibrate --quick's, can pull an estimate below).
        WEIGHTS: each row's residual times its weight (1 / y: least relative squares)."""
        x, y = np.asarray(x, float), np.asarray(y, float)
        if weights is not None:
            w = np.asarray(weights, float)
            x, y = x * w[:, None], y * w
        if nonneg:
            # here: only calibrate fits
            from scipy.optimize import nnls
            coef = nnls(x, y)[0]
        else:
            coef, *_ = np.linalg.lstsq(x, y, rcond=None)
        dof = max(1, len(y) - x.shape[1])
        s2 = float(((y - x @ coef) ** 2).sum()) / dof
        cov = s2 * np.linalg.pinv(x.T @ x)
        return cls(tuple(names), tuple(map(float, coef)), tuple(map(tuple, cov.tolist())), dof)

    def at(self, x, level=0.95):
        """(estimate, low, high) of the fitted mean at inputs X."""
        x = np.asarray(x, float)
        est = float(x @ np.asarray(self.coef))
        half = (t_quantile(self.dof, 0.5 + level / 2)
                * math.sqrt(max(0.0, x @ np.asarray(self.cov) @ x)))
        return est, est - half, est + half

    def terms(self, level=0.95):
        """{name: (estimate, low, high)} of each coefficient."""
        eye = np.eye(len(self.coef))
        return {n: self.at(eye[i], level) for i, n in enumerate(self.names)}


@dataclass(frozen=True)
class Trial:
    """One measured trial of calibrate or verify: a series at a shape and rate, and what it cost."""
    series: str
    shape: dict
    rate: float            # asked, req/s
    sent_rps: float
    ok: int
    requests: int
    app_ms: float          # app CPU per request
    machine_ms: float      # the whole machine's CPU per request
    p50_ms: float | None
    p99_ms: float | None
    rss_mib: float
    threads: int
    jit_pct: float         # the app's JIT threads, % of a core, during the trial
    kind: str = "cpu"      # cpu, memory, sweep, idle
    speed_us: float | None = None   # the machine's yardstick before it (sampling/yardstick.py)

    @property
    def ok_rate(self):
        return self.ok / self.requests if self.requests else 0.0

    @staticmethod
    def table(trials):
        """TRIALS as one JSON table: field names once, then a row per trial (half the size of a list
        of objects, for the files docs/results keeps)."""
        names = [f.name for f in fields(Trial)]
        return {"fields": names, "rows": [[getattr(t, n) for n in names] for t in trials]}

    @staticmethod
    def of_json(data):
        """The Trials of a `table` (or of a list of objects, as files before it held them)."""
        if isinstance(data, dict):
            return [Trial(**dict(zip(data["fields"], row, strict=True))) for row in data["rows"]]
        return [Trial(**t) for t in data]

    @property
    def jit_ms(self):
        """The JIT compilers' CPU per request in this trial: compiling is a start's cost, not a
        request's (on 2 cores it lasted a whole calibration; on 2026-11-28, 20-50 % of a core in
        every insert trial: 1.4 ms a request at 150 req/s)."""
        return self.jit_pct * 10 / self.sent_rps if self.sent_rps else 0.0


@dataclass(frozen=True)
class Figure:
    """A predicted figure and its 95 % interval."""
    value: float
    low: float
    high: float

    def as_dict(self, name):
        return {name: self.value, f"{name}_low": self.low, f"{name}_high": self.high}


def settled(trials, margin_pct=10.0):
    """TRIALS without those the JIT was still warming: JIT over MARGIN_PCT % of a core above the
    least of its series, shape and rate (what all trials of a cell see is steady, part of cost)."""
    def cell(t):
        return (t.series, tuple(sorted(t.shape.items())), t.rate)
    least = {}
    for t in trials:
        least[cell(t)] = min(least.get(cell(t), math.inf), t.jit_pct)
    return [t for t in trials if t.jit_pct <= least[cell(t)] + margin_pct]


def busy(t, ncores):
    """The machine's busy cores in trial T, at most its NCORES: its CPU per request is read over
    Vegeta's whole run (its start, the last answers' drain), so times the rate sent it overstates
    them where answers drain slowly (1.46 x the cores at the top of a sweep of 2026-12-07)."""
    return min(ncores, t.machine_ms * t.sent_rps / 1000)


def sweep_far(sweep, extra_ms=500.0):
    """True once an ascending SWEEP has gone past what any shape's ceiling needs: the last step's
    p99 EXTRA_MS over the unloaded one, or under 99 % served (its curve sets every ceiling)."""
    if len(sweep) < 2 or sweep[0].p99_ms is None:
        return False
    t = sweep[-1]
    return t.p99_ms is None or t.p99_ms > sweep[0].p99_ms + extra_ms or t.ok_rate < 0.99


def sweep_ceiling(sweep):
    """The first rate of an ascending SWEEP (its first trial the unloaded one) whose p99 is over
    twice the unloaded p99 or whose successes fall under 99 %; None when none is."""
    if len(sweep) < 2 or sweep[0].p99_ms is None:
        return None
    limit = 2 * sweep[0].p99_ms
    for t in sweep[1:]:
        if t.p99_ms is None or t.p99_ms > limit or t.ok_rate < 0.99:
            return t.rate
    return None


def confirmed_ceiling(sweep):
    """The first rate of an ascending SWEEP (first trial unloaded; a crossing rate measured twice)
    at which every trial crossed as sweep_ceiling counts it; None when none did. An unconfirmed
    crossing is a spike: a first crossing moved up to 50 % in a run (docs/advise.md, 2026-11-28)."""
    if len(sweep) < 2:
        return None
    rates = list(dict.fromkeys(t.rate for t in sweep[1:]))
    for r in rates:
        at = [t for t in sweep[1:] if t.rate == r]
        if len(at) > 1 and all(sweep_ceiling([sweep[0], t]) for t in at):
            return r
    return None
