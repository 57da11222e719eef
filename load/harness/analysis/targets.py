"""Every ratio target of the project as data (docs/results.md "Targets"), read by the runner
and the report alike.

Targets that are not a ratio between two series stay with verdicts.py: io 4,000 req/s 100 %
ok and p99 <= 150 ms (absolute), the worker's Little's-law ceiling (a ratio to a computed
figure) and the pinned-event count (must be 0).
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.analysis import ladder
from harness.analysis.model import METRICS as METRICS_MODEL
from harness.analysis.stats import METRICS
from harness.analysis.steps import AA_SUFFIX

LABELS = {k: m.label for k, m in METRICS_MODEL.items()}   # short labels (model.METRICS)


@dataclass(frozen=True)
class Target:
    """One claim: series[0]'s METRIC over series[1]'s lies in REGION = (low, high) (None: open),
    at each step of SCENARIOS (RATES, None: all) where every series of FULL served fully."""
    metric: str
    series: tuple
    region: tuple
    scenarios: tuple
    rates: tuple | None = None
    full: tuple = ()
    # the name a reader sees, when the ratio is a means to another claim (ladder.py's share)
    label: str = ""

    def __post_init__(self):
        if self.metric not in METRICS:
            raise ValueError(f"metric {self.metric!r} is not one of {METRICS}")

    @property
    def bound(self):
        """The region as a reader writes it: '<= 1.2', '>= 0.9', 'within [0.91, 1.10]'."""
        lo, hi = self.region
        if lo is None:
            return f"<= {hi:g}"
        if hi is None:
            return f">= {lo:g}"
        return f"within [{lo:.2f}, {hi:.2f}]"

    @property
    def name(self):
        plain = f"{self.series[0]} {LABELS[self.metric]} {self.bound} x {self.series[1]}"
        return f"{self.label} ({plain})" if self.label else plain


# workload: a user's own shape (--workload), held to the same claims as the scenarios it is made of
_ALL4 = ("io", "fanout", "db", "checkout", "workload")
_COST = ("io", "fanout", "workload")
_BOTH = ("virtual", "reactive")
TARGETS = (
    # latency: where reactive serves fully, so its failure cannot excuse or condemn the other
    *(Target("p99_ok_ms", (v, "reactive"), (None, 1.25), _ALL4, full=("reactive",))
      for v in ("virtual", "virtual+socket")),
    # sustained rate: "the same highest sustained rate" read step by step as successes per second
    *(Target("ok_rate", (v, "reactive"), (0.9, None), _ALL4)
      for v in ("virtual", "virtual+socket")),
    # CPU per request and peak RSS: where both serve fully (a failing series' cost is no match)
    Target("cpu_ms_per_req", _BOTH, (None, 1.2), _COST, full=_BOTH),
    Target("cpu_ms_per_req", ("virtual+socket", "reactive"), (None, 1.0), _COST,
           full=("virtual+socket", "reactive")),
    Target("cpu_ms_per_req", ("virtual+socket", "virtual"), (None, 0.8), ("io",),
           rates=(2500.0, 4000.0), full=("virtual+socket", "virtual")),
    *(Target("rss_mib", (v, "reactive"), (None, 1.2), _COST, full=(v, "reactive"))
      for v in ("virtual", "virtual+socket")),
    # the worker pool beside them, on a workload only (elsewhere: its ceiling and cpu's rate)
    *(Target(m, ("worker", "reactive"), region, ("workload",), full=("worker", "reactive"))
      for m, region in (("cpu_ms_per_req", (None, 1.2)), ("p99_ok_ms", (None, 1.25)),
                        ("rss_mib", (None, 1.2)))),
    # cpu-bound work, hey with 16 in flight (the step's "rate"): throughput within 10 %
    *(Target("ok_rate", (v, "reactive"), (1 / 1.1, 1.1), ("cpu",), rates=(16.0,))
      for v in ("virtual", "virtual+socket", "worker")),
)

# issue #21: the project's own rungs cost <= 10 % of a mode's CPU per request, i.e. the rung
# below them uses >= 90 % of the mode's (ladder.py, docs/floor.md); judged where both are run
TARGETS += tuple(Target("cpu_ms_per_req", (base, mode), (1 - ladder.PROJECT_SHARE_MAX, None),
                        ("io",), full=(base, mode),
                        label=f"{mode}: the project's own rungs "
                              f"<= {100 * ladder.PROJECT_SHARE_MAX:.0f} % of its CPU/req")
                 for mode, base in ladder.PROJECT_BASE.items())

AA_PAIRS = (("reactive" + AA_SUFFIX, "reactive"),)   # the A/A pair, run like every other series


def for_series(series, targets=TARGETS):
    """The targets whose two series are both in SERIES (the run's series list)."""
    return [t for t in targets if all(s in series for s in t.series)]


def pairs_of(series):
    """The pairs a run of SERIES compares, once each: the A/A pair (if both run), then targets'."""
    return list(dict.fromkeys([p for p in AA_PAIRS if all(x in series for x in p)]
                              + [tuple(t.series) for t in for_series(series)]))
