"""The statistics behind a verdict: one series' metric over another's, block by block, with a
confidence interval, judged against a target's acceptance region and the run's own A/A pair.

In short (docs/statistics.md has it at length):

- **Ratio.** Both series ran each block's step, so each block gives one ratio A/B; the estimate is
  their geometric mean, symmetric in A and B (Georges, Buytaert and Eeckhout, OOPSLA 2007).
- **Interval.** Student's t on the log ratios, mapped back with exp. Blocks nest in app
  invocations that share JIT and memory-layout luck, so the SE comes from the invocations
  (cluster sum of residuals, t on G-1 df; Kalibera and Jones, ISMM 2013). With one invocation
  the method name says invocation variance is not sampled.
- **Bootstrap.** BCa when blocks are not nested, n >= 20 and the log ratios' skew exceeds twice
  its SE (below ~20 blocks any bootstrap interval is too narrow). Nested, method="bootstrap"
  resamples invocations then blocks; "auto" keeps t: a bootstrap over few invocations under-covers.
- **Missing values.** A trial that could not run (`error`) drops its block (`dropped`). A missing
  per-success figure means no success: the pair stays INCONCLUSIVE, as dropping would keep only
  the blocks where the series coped. ok_rate with zero successes counts 0.5 (Haldane-Anscombe).
- **Verdict.** PASS when the interval lies inside the target's region, FAIL when wholly outside,
  else INCONCLUSIVE, with the blocks that would likely decide it.
- **A/A.** The A/A pair must contain 1.00, checked family-wise (Bonferroni): with 16 A/A intervals
  over half of runs would alarm by chance. One excluding 1.00 breaks the design: no PASS or FAIL.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from harness.analysis import model
from harness.analysis.pairing import (  # noqa: F401  (callers' stats.FULL, stats.Pairing, ...)
    FULL,
    Pairing,
    log_ratio,
    metric_value,
    pair,
    served_fully,
    steps_of,
)

METRICS = tuple(model.METRICS)   # the record fields the verdicts compare (units: model.METRICS)
PER_SUCCESS = tuple(k for k, m in model.METRICS.items() if m.row_key)   # undefined with no success
PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
BOOT_MIN_N = 20       # fewer blocks: any bootstrap interval is too narrow, t is used
BOOT_RESAMPLES = 4999
MAX_BLOCKS_NEEDED = 10_000   # beyond this, "no practical number of blocks decides it"


# ------------------------------------------------------------------------------------- interval
@dataclass(frozen=True)
class Interval:
    """A ratio with its confidence interval; log_mean, log_se: log scale; df None: bootstrap."""
    ratio: float
    low: float
    high: float
    n: int
    invocations: int
    method: str
    level: float
    log_mean: float
    log_se: float
    df: float | None

    @property
    def half_width(self):
        """Relative half-width: sqrt(high / low) - 1, i.e. exp(t * se) - 1 for t (0.10 = +-10 %)."""
        return (math.sqrt(self.high / self.low) - 1 if self.low > 0 and math.isfinite(self.high)
                else math.inf)


def _skew_significant(y):
    n = len(y)
    if n < 3 or np.ptp(y) == 0:
        return False
    se = math.sqrt(6 * n * (n - 1) / ((n - 2) * (n + 1) * (n + 3)))
    return abs(sps.skew(y, bias=False)) > 2 * se


def _cluster_se(y, clusters):
    """Cluster-robust (CR1) standard error of mean(y), clusters = invocation keys; for equal
    cluster sizes it equals sd(cluster means)/sqrt(G)."""
    m = y.mean()
    keys = sorted(set(clusters), key=str)
    sums = np.array([sum(v - m for v, c in zip(y, clusters, strict=True) if c == k)
                     for k in keys])
    g, n = len(keys), len(y)
    return math.sqrt(g / (g - 1) * float((sums ** 2).sum()) / n ** 2)


def _t_se(y, clusters, what):
    """(standard error of mean(y), degrees of freedom, method name) for Student's t: by invocation
    when the values nest in several invocations (Kalibera and Jones), else over the values."""
    n, g = len(y), len(set(clusters))
    if 1 < g < n:
        return (_cluster_se(y, clusters), g - 1,
                f"t on {what}, invocation-level SE ({g} invocations)")
    return (float(y.std(ddof=1)) / math.sqrt(n), n - 1,
            f"t on {what}"
            + (" (one invocation: invocation variance not sampled)" if g == 1 else ""))


def _two_stage_bootstrap(y, clusters, level, rng, resamples):
    """Percentile interval of the mean: resample invocations, then blocks inside each chosen one."""
    groups = [y[[c == k for c in clusters]] for k in sorted(set(clusters), key=str)]
    sizes = np.array([len(v) for v in groups])
    pad = np.zeros((len(groups), sizes.max()))
    for i, v in enumerate(groups):
        pad[i, :len(v)] = v
    chosen = rng.integers(0, len(groups), size=(resamples, len(groups)))   # invocations drawn
    k = sizes[chosen]
    # blocks inside each chosen invocation
    inner = (rng.random((resamples, len(groups), sizes.max())) * k[..., None]).astype(int)
    used = np.arange(sizes.max()) < k[..., None]
    means = (pad[chosen[..., None], inner] * used).sum(axis=(1, 2)) / k.sum(axis=1)
    a = (1 - level) / 2
    return np.quantile(means, [a, 1 - a]), float(means.std(ddof=1))


def interval(log_ratios, invocations=None, level=0.95, method="auto", seed=0):
    """The ratio exp(mean(log_ratios)) and its LEVEL confidence interval -> Interval.
    INVOCATIONS: one key per log ratio (the block's pair of app invocations); None = independent.
    METHOD: "auto" (the module's rule), "t" or "bootstrap"; SEED: the bootstrap's (reproducible)."""
    y = np.asarray(log_ratios, dtype=float)
    n = len(y)
    clusters = list(invocations) if invocations is not None else list(range(n))
    if len(clusters) != n:
        raise ValueError("one invocation key per log ratio")
    g = len(set(clusters))
    nested = 1 < g < n
    if n < 2:
        m = float(y[0]) if n else math.nan
        return Interval(math.exp(m), 0.0, math.inf, n, g, "none (fewer than 2 blocks)", level, m,
                        math.inf, None)
    if method not in ("auto", "t", "bootstrap"):
        raise ValueError(f"method is auto, t or bootstrap, not {method!r}")
    if method == "auto":
        method = "bootstrap" if not nested and n >= BOOT_MIN_N and _skew_significant(y) else "t"
    m = float(y.mean())
    a = 1 - level
    if np.ptp(y) == 0:   # every block gave the same ratio (ok_rate of two full series)
        return Interval(math.exp(m), math.exp(m), math.exp(m), n, g, "exact (no spread)", level, m,
                        0.0, None)
    if method == "t":
        se, df, name = _t_se(y, clusters, "log ratios")
        h = float(sps.t.ppf(1 - a / 2, df)) * se
        return Interval(math.exp(m), math.exp(m - h), math.exp(m + h), n, g, name, level, m,
                        se, df)
    rng = np.random.default_rng(seed)
    if nested:
        (lo, hi), se = _two_stage_bootstrap(y, clusters, level, rng, BOOT_RESAMPLES)
        name = f"bootstrap percentile, invocations then blocks ({g} invocations)"
    else:
        res = sps.bootstrap((y,), np.mean, confidence_level=level, method="BCa",
                            n_resamples=BOOT_RESAMPLES, rng=rng)
        lo, hi, se = (res.confidence_interval.low, res.confidence_interval.high,
                      float(res.standard_error))
        name = "bootstrap BCa on log ratios"
    return Interval(math.exp(m), math.exp(lo), math.exp(hi), n, g, name, level, m, se, None)


@dataclass(frozen=True)
class Difference:
    """A mean difference with its confidence interval (low, high None with fewer than 2 values)."""
    mean: float
    low: float | None
    high: float | None
    n: int
    invocations: int
    method: str
    level: float


def difference(diffs, invocations=None, level=0.95):
    """The mean of per-block differences DIFFS (A - B in the metric's unit) and its LEVEL interval:
    t with interval()'s invocation-level SE, on the differences themselves, so that the steps of a
    waterfall add up to the difference of their ends."""
    y = np.asarray(diffs, dtype=float)
    n = len(y)
    clusters = list(invocations) if invocations is not None else list(range(n))
    g = len(set(clusters))
    if n < 2:
        return Difference(float(y[0]) if n else math.nan, None, None, n, g,
                          "none (fewer than 2 blocks)", level)
    m = float(y.mean())
    if np.ptp(y) == 0:
        return Difference(m, m, m, n, g, "exact (no spread)", level)
    se, df, name = _t_se(y, clusters, "differences")
    h = float(sps.t.ppf(1 - (1 - level) / 2, df)) * se
    return Difference(m, m - h, m + h, n, g, name, level)


# -------------------------------------------------------------------------------------- verdict
def decide(iv, region):
    """PASS / FAIL / INCONCLUSIVE of interval IV against REGION = (low, high) (None: open)."""
    lo, hi = region
    if not (iv.low > 0 and math.isfinite(iv.high)):
        return INCONCLUSIVE
    if (lo is None or iv.low >= lo) and (hi is None or iv.high <= hi):
        return PASS
    if (hi is not None and iv.low > hi) or (lo is not None and iv.high < lo):
        return FAIL
    return INCONCLUSIVE


def blocks_needed(iv, region):
    """(blocks, why) for an undecided IV: about how many blocks in all would let the interval clear
    the nearest bound at the observed spread and estimate (a planning figure: optimistic when the
    estimate happened to land far from the bound). blocks None when it cannot be said."""
    bounds = [b for b in region if b is not None]
    if iv.n < 2 or not math.isfinite(iv.log_se):
        return None, "fewer than 2 blocks: no spread to plan from"
    d = min(abs(iv.log_mean - math.log(b)) for b in bounds)
    if d < 1e-9:
        return None, "the estimate sits on the bound: no number of blocks can decide it"
    units = iv.invocations if 1 < iv.invocations < iv.n else iv.n     # what the SE shrinks with
    per_unit = iv.n / units
    need = units
    for _ in range(50):   # t's degrees of freedom depend on the answer: iterate to a fixed point
        crit = (float(sps.t.ppf(1 - (1 - iv.level) / 2, max(need - 1, 1))) if iv.df is not None
                else float(sps.norm.ppf(1 - (1 - iv.level) / 2)))
        new = max(units + 1, math.ceil(units * (crit * iv.log_se / d) ** 2))
        if new == need or new * per_unit > MAX_BLOCKS_NEEDED:
            need = new
            break
        need = new
    blocks = math.ceil(need * per_unit)
    if blocks > MAX_BLOCKS_NEEDED:
        return None, (f"the estimate sits within {100 * (math.exp(d) - 1):.1f} % of the bound: "
                      f"more than {MAX_BLOCKS_NEEDED:,} blocks would be needed")
    unit = f" ({need} invocations)" if units != iv.n else ""
    return blocks, f"about {blocks} blocks{unit} at the observed spread"


ONE_INVOCATION = "every series ran in one app invocation"   # meaning: report/verdict_summary.py


# ------------------------------------------------------------------------------------- analysis
def _num(x):
    """JSON has no infinity: an interval that cannot be drawn (under 2 blocks) has null bounds."""
    return x if x is not None and math.isfinite(x) and x > 0 else None


def _entry(target, scenario, rate, metric, series, pairing, iv, region, aa):
    return model.VerdictEntry(
        target=target, scenario=scenario, rate=rate, metric=metric, series=list(series),
        ratio=_num(iv.ratio), ci_low=_num(iv.low), ci_high=_num(iv.high), level=iv.level,
        blocks=pairing.blocks, invocations=iv.invocations, aa=aa, method=iv.method,
        region=list(region), missing=pairing.missing, dropped=pairing.dropped, note="")


def _aa_verdicts(records, steps, aa_pairs, level, method, seed, cannot_decide):
    """analyse()'s A/A entries -> (entries, {step and metric: A/A half-width}, design_broken)."""
    out, aa_entries, aa_ivs = [], [], []
    for a, b in aa_pairs:
        for scenario, rate in steps:
            present = {r["series"] for r in records
                       if r["scenario"] == scenario and float(r["rate"]) == rate}
            if a not in present or b not in present:   # a run without the A/A (--aa none)
                continue
            for metric in METRICS:
                p = pair(records, a, b, scenario, rate, metric)
                if p.blocks or p.missing or p.dropped:
                    aa_entries.append((p, scenario, rate, metric, (a, b)))
    m = max(1, sum(p.blocks >= 2 for p, *_ in aa_entries))
    broken = []
    for p, scenario, rate, metric, ab in aa_entries:
        iv = interval(p.log_ratios, p.invocations, level, method, seed)
        fw = interval(p.log_ratios, p.invocations, 1 - (1 - level) / m, method, seed)
        e = _entry(f"A/A: {ab[0]} / {ab[1]} contains 1.00", scenario, rate, metric, ab, p, iv,
                   (1.0, 1.0), True)
        e.aa_half_width = _num(iv.half_width) if iv.half_width else 0.0
        contains = decide(fw, (None, 1.0)) != FAIL and decide(fw, (1.0, None)) != FAIL
        e.verdict = PASS if contains else FAIL
        if p.blocks < 2 or p.missing:
            e.verdict, e.note = INCONCLUSIVE, "too few blocks with a value"
        elif cannot_decide:
            e.note = f"one app invocation: not judged (would be {e.verdict})"
            e.verdict = INCONCLUSIVE
        elif not contains:
            broken.append(f"{ab[0]}/{ab[1]} {scenario} {rate:g} {metric} "
                          f"[{fw.low:.3f}, {fw.high:.3f}]")
        elif iv.low > 1 or iv.high < 1:
            e.note = (f"excludes 1.00 on its own, not at the family-wise level over {m} "
                         f"A/A intervals (one in 20 A/A intervals does so by chance)")
        out.append(e)
        aa_ivs.append(((scenario, rate, metric), e.aa_half_width))
    aa_hw = {}
    for key, hw in aa_ivs:   # None: an A/A without an interval there, no other pair makes up for it
        aa_hw[key] = (None if hw is None or (key in aa_hw and aa_hw[key] is None)
                      else max(aa_hw.get(key, 0.0), hw))
    design_broken = (("A/A interval excludes 1.00 at the family-wise level: " + "; ".join(broken))
                     if broken else None)
    return out, aa_hw, design_broken


def analyse(records, targets, aa_pairs, level=0.95, method="auto", seed=0):
    """A run's verdict entries -> {"verdicts": [model.VerdictEntry], "skipped": [(target,
    scenario, rate, why)], "design_broken": str or None} (as_json: as verdicts.json holds it).
    RECORDS: trial records (docs/statistics.md,
    trials.Trial.records); TARGETS: harness.targets.Target objects; AA_PAIRS: [(series, same
    series measured again)], e.g. [("reactive-aa", "reactive")]. LEVEL: this look's confidence
    level (trials.look_level)."""
    steps = steps_of(records)
    # one app invocation per series (--quick, the ladder preset) lacks the between-invocation spread
    # that dominates an interval (docs/statistics.md): show figures, decide nothing, not even design
    cannot_decide = (ONE_INVOCATION
                     if max((r.get("invocation") or 0 for r in records), default=1) == 0 else None)
    out, aa_hw, design_broken = _aa_verdicts(records, steps, aa_pairs, level, method, seed,
                                             cannot_decide)
    skipped = []
    for t in targets:
        for scenario, rate in steps:
            if scenario not in t.scenarios or (t.rates is not None and rate not in t.rates):
                continue
            a, b = t.series
            present = {r["series"] for r in records
                       if r["scenario"] == scenario and float(r["rate"]) == rate}
            if a not in present or b not in present:
                continue
            short = [s for s in t.full if not served_fully(records, s, scenario, rate)]
            if short:
                skipped.append((t.name, scenario, rate,
                                f"{' and '.join(short)} did not serve fully"))
                continue
            p = pair(records, a, b, scenario, rate, t.metric)
            if not (p.blocks or p.missing or p.dropped):
                continue
            iv = interval(p.log_ratios, p.invocations, level, method, seed)
            e = _entry(t.name, scenario, rate, t.metric, t.series, p, iv, t.region, False)
            e.aa_half_width = aa_hw.get((scenario, rate, t.metric))
            e.verdict = decide(iv, t.region)
            if p.missing and t.metric in PER_SUCCESS:
                e.verdict = INCONCLUSIVE
                e.note = ("; ".join(f"{s} served no success in {k} block(s)"
                                       for s, k in p.missing.items())
                             + ": a per-success figure is undefined there (see ok_rate)")
            elif design_broken or cannot_decide:
                e.note = (f"{'design broken' if design_broken else 'one app invocation'}, "
                          f"nothing is called (would be {e.verdict})")
                e.verdict = INCONCLUSIVE
            if e.verdict == INCONCLUSIVE and not p.missing and not cannot_decide:
                e.blocks_needed, why = blocks_needed(iv, t.region)
                e.note = "; ".join(x for x in (e.note, why) if x)
            out.append(e)
    return {"verdicts": out, "skipped": skipped, "design_broken": design_broken,
            "cannot_decide": cannot_decide}


def as_json(result):
    """An analyse() result as verdicts.json holds it: each entry a dict in VerdictEntry's order."""
    return {**result, "verdicts": [e.as_dict() for e in result["verdicts"]]}


def undecided(result):
    """The target entries (not A/A) still INCONCLUSIVE in an analyse() result that more blocks could
    decide: what keeps a run going. Not an entry whose series served no success in some block, nor
    any of a run with one app invocation per series (more blocks add no invocation)."""
    if result.get("cannot_decide"):
        return []
    return [e for e in result["verdicts"]
            if not e.aa and e.verdict == INCONCLUSIVE and not e.missing]
