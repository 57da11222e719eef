"""The schedule of a run as pure functions: which trial comes when, when each app restarts,
how long it takes, and when the run may stop.

- **Blocks.** A block gives every series (or duet pair) one trial per step; steps keep their
  order (rates rising: a cold app hit at once with a high rate stays congested); the series'
  order is drawn per step from a generator seeded by (seed, block), so it is reproducible and
  independent of the blocks before.
- **Invocations.** Every app restarts every RESTART_EVERY blocks, at the same boundary in a
  random order, so blocks nest in invocations and JIT/layout luck is sampled, not frozen in.
- **Warm blocks.** After a restart, whole blocks run unanalysed: at least WARM_BLOCKS, more
  until settle() and the JIT is quiet (jit_load()), at most MAX_WARM_BLOCKS (a series still
  getting cheaper or compiling is flagged). Without
  them (seed 2311, docs/statistics.md) the first block after a start cost 1.4-3.6x the CPU per
  request of the second; with one warm block still 1.19-1.47x: JIT and heap were settling.
- **Duet.** With PAIRS, a trial loads two series at once; which starts first alternates, so a
  start-order advantage cancels.
- **Stopping.** Intervals are looked at only at planned block counts (looks()) and alpha is
  spent over them (look_alpha(), Bonferroni), so peeking does not inflate false PASS/FAIL.
"""
from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from harness.analysis import stats

ALPHA = 0.05
RHO = 2           # alpha spent up to a look: ALPHA * (blocks / last look's blocks) ** RHO
MIN_BLOCKS = 8     # restarts every 2 blocks: 4 invocations, 3 degrees of freedom at the first look
N_LOOKS = 3
# settled when a block's CPU per request (all series and steps) fell at most this from the last
SETTLE_WITHIN = 0.10
# ... and no app's JIT threads used over this % of a core over its trials: a block measured
# while the JIT compiles is a warm-up (workload-2026-12-07g: 27-76 % through its first 4 blocks)
JIT_QUIET_PCT = 10.0


@dataclass(frozen=True)
class Plan:
    """What a run measures: SERIES (app per series), STEPS [(scenario, rate)], SEED, restarts
    every RESTART_EVERY blocks; PAIRS non-empty = the duet design, else interleaved."""
    series: tuple
    steps: tuple
    seed: int
    restart_every: int = 2
    pairs: tuple = ()
    warm_blocks: int = 1      # the least warm blocks after a restart (the time model counts these)
    max_warm_blocks: int = 1  # the most, while a series has not settled
    # (from block, restart every or 0: none): the allocation chosen mid-run (allocate())
    later: tuple = ()

    def __post_init__(self):
        if (self.restart_every < 1 or self.warm_blocks < 0
                or self.max_warm_blocks < self.warm_blocks):
            raise ValueError("restart_every is at least 1, 0 <= warm_blocks <= max_warm_blocks")
        if len(set(self.series)) != len(self.series) or not self.series or not self.steps:
            raise ValueError("series (distinct) and steps must not be empty")
        for p in self.pairs:
            if len(p) != 2 or p[0] == p[1] or not all(s in self.series for s in p):
                raise ValueError(f"duet pair {p!r}: two different series of the plan")


@dataclass(frozen=True)
class Trial:
    """One trial: SERIES loaded at once (one, or two in start order: duet) at (SCENARIO, RATE)."""
    block: int
    position: int      # place in the block, 0-based
    scenario: str
    rate: float
    series: tuple
    invocation: int    # every series' app invocation in this block (restarts are synchronous)

    def records(self):
        """The identifying part of this trial's records, one per series (docs/statistics.md)."""
        return [{"block": self.block, "position": self.position, "scenario": self.scenario,
                 "rate": self.rate, "series": s, "invocation": self.invocation,
                 "duet_with": next((o for o in self.series if o != s), None)} for s in self.series]


def _rng(plan, block):
    return np.random.default_rng([plan.seed, block])


def invocation(plan, block):
    """The app invocation (0, 1, ...) every series uses in BLOCK, honouring Plan.later."""
    if plan.later and block >= plan.later[0]:
        start, every = plan.later
        if not every:                 # no further restart fits the budget: the apps running go on
            return (start - 1) // plan.restart_every
        return -(-start // plan.restart_every) + (block - start) // every
    return block // plan.restart_every


def restarts(plan, block):
    """The series restarted (and warmed) before BLOCK, in order; [] when none (block 0: all)."""
    if block and invocation(plan, block) == invocation(plan, block - 1):
        return []
    return [plan.series[i] for i in _rng(plan, block).permutation(len(plan.series))]


def block_trials(plan, block):
    """[Trial] of BLOCK in the order to run them."""
    rng = _rng(plan, block)
    rng.permutation(len(plan.series))   # the restart order's draw (restarts()), kept in step
    units = [tuple(p) for p in plan.pairs] or [(s,) for s in plan.series]
    out = []
    for k, (scenario, rate) in enumerate(plan.steps):
        for i in rng.permutation(len(units)):
            u = units[i]
            if len(u) == 2 and (block + k) % 2:
                u = u[::-1]
            out.append(Trial(block, len(out), scenario, float(rate), u, invocation(plan, block)))
    return out


def warm_trials(plan, block):
    """[Trial] of the warm blocks run before BLOCK ([] when BLOCK restarts nothing): its own
    trials, repeated WARM_BLOCKS times."""
    return block_trials(plan, block) * plan.warm_blocks if restarts(plan, block) else []


def schedule(plan, blocks):
    """BLOCKS blocks' run in order: [("restart", series) | ("warm", Trial) | ("trial", Trial)]."""
    out = []
    for b in range(blocks):
        out += [("restart", s) for s in restarts(plan, b)]
        out += [("warm", t) for t in warm_trials(plan, b)]
        out += [("trial", t) for t in block_trials(plan, b)]
    return out


# -------------------------------------------------------------------------------- time
@dataclass(frozen=True)
class Timing:
    """Seconds per part of a run: a trial, its ramp-in and gap; an app start and its warm-up;
    WARM_TOGETHER when a restart's apps start and warm at the same time."""
    trial_s: float = 5.0
    ramp_s: float = 1.0
    gap_s: float = 1.0
    start_s: float = 5.0
    warmup_s: float = 30.0
    warm_together: bool = False


def duration_s(plan, blocks, timing=Timing()):
    """Estimated seconds of BLOCKS blocks: trials plus every restart with its warm blocks."""
    per_trial = timing.ramp_s + timing.trial_s + timing.gap_s
    per_block = len(plan.steps) * len(plan.pairs or plan.series)
    n_restarts = sum(1 for b in range(blocks) if restarts(plan, b))
    restart = timing.start_s + timing.warmup_s
    per_restart = restart if timing.warm_together else restart * len(plan.series)
    return ((blocks + n_restarts * plan.warm_blocks) * per_block * per_trial
            + n_restarts * per_restart)


def max_blocks(plan, budget_s, timing=Timing()):
    """The most blocks whose estimated duration fits BUDGET_S (0 when not even one does)."""
    n = 0
    while duration_s(plan, n + 1, timing) <= budget_s:
        n += 1
    return n


# -------------------------------------------------------------------------------- stopping
def looks(min_blocks, max_blocks, n_looks=N_LOOKS):
    """The planned block counts at which the run looks: MIN_BLOCKS, then evenly up to MAX_BLOCKS.
    [] when MAX_BLOCKS < MIN_BLOCKS: the budget is too small for a verdict."""
    if max_blocks < min_blocks:
        return []
    if n_looks <= 1 or max_blocks == min_blocks:
        return [max_blocks]
    return sorted({round(min_blocks + k * (max_blocks - min_blocks) / (n_looks - 1))
                   for k in range(n_looks)})


def look_alpha(plan_looks, blocks, alpha=ALPHA, rho=RHO):
    """The error rate to spend at a look after BLOCKS blocks: its planned share, or all that is
    left at an unplanned last look. 0 before the first look."""
    if not plan_looks or blocks < plan_looks[0]:
        return 0.0

    def spent(n):
        return alpha * min(1.0, n / plan_looks[-1]) ** rho
    before = [n for n in plan_looks if n < blocks]
    if blocks in plan_looks:
        return spent(blocks) - (spent(before[-1]) if before else 0.0)
    return alpha - (spent(before[-1]) if before else 0.0)


def look_level(plan_looks, blocks, alpha=ALPHA, rho=RHO):
    """The intervals' confidence level at a look after BLOCKS blocks (stats.analyse's LEVEL)."""
    return 1 - look_alpha(plan_looks, blocks, alpha, rho)


def look_at(plan_looks, blocks, budget_left):
    """The confidence level to analyse at after BLOCKS blocks, or None when this is no look
    (a planned look, or a last one when BUDGET_LEFT is false)."""
    if blocks in plan_looks or (not budget_left and plan_looks and blocks >= plan_looks[0]):
        return look_level(plan_looks, blocks)
    return None


def moved_look(plan_looks, blocks, budget_left):
    """PLAN_LOOKS, or a single look reached with BUDGET_LEFT moved one block on: one look spends
    the whole error rate wherever it is, so it is taken when the budget ends."""
    if len(plan_looks) == 1 and blocks == plan_looks[0] and budget_left:
        return [blocks + 1]
    return plan_looks


def should_stop(plan_looks, blocks, undecided, budget_left):
    """True when the run stops after BLOCKS blocks: at a planned look with every target decided
    (UNDECIDED == 0), at the last planned look, or when BUDGET_LEFT has run out."""
    if not budget_left or (plan_looks and blocks >= plan_looks[-1]):
        return True
    return blocks in plan_looks and undecided == 0


# -------------------------------------------------------------------------------- allocation
@dataclass(frozen=True)
class Components:
    """Kalibera and Jones' two noise levels of the per-block log ratios: BETWEEN invocations and
    WITHIN one, variances; N_INV invocations, N_BLOCKS blocks."""
    between: float
    within: float
    n_inv: int
    n_blocks: int


def components(log_ratios, invocations):
    """The variance components (one-way random effects, moments) of LOG_RATIOS grouped by
    INVOCATIONS; None with fewer than 2 invocations or no invocation with 2 blocks."""
    groups = {}
    for y, k in zip(log_ratios, invocations, strict=True):
        groups.setdefault(k, []).append(y)
    sizes = [len(g) for g in groups.values()]
    df_within = sum(n - 1 for n in sizes)
    if len(groups) < 2 or df_within < 1:
        return None
    within = sum(sum((y - statistics.fmean(g)) ** 2 for y in g)
                 for g in groups.values()) / df_within
    means = [statistics.fmean(g) for g in groups.values()]
    n_bar = len(log_ratios) / len(groups)
    between = max(0.0, statistics.variance(means) - within / n_bar)
    return Components(between, within, len(groups), len(log_ratios))


def components_of(records, pairs, steps):
    """components() of RECORDS' per-block CPU-per-request log ratios for PAIRS at STEPS, each
    pair and step centred on its mean."""
    ys, keys = [], []
    for a, b in pairs:
        for sc, rate in steps:
            pr = stats.pair(records, a, b, sc, rate, "cpu_ms_per_req")
            if pr.log_ratios:
                m = statistics.fmean(pr.log_ratios)
                ys += [y - m for y in pr.log_ratios]
                keys += [(a, b, sc, rate, inv) for inv in pr.invocations]
    return components(ys, keys)


def half_width(comp, n_inv, n_blocks=math.inf, level=1 - ALPHA):
    """The relative half-width (0.10 = +-10 %) the noise COMP leaves over N_INV invocations and
    N_BLOCKS blocks (t on N_INV - 1 df); inf below 2 invocations."""
    if n_inv < 2:
        return math.inf
    return math.exp(sps.t.ppf(1 - (1 - level) / 2, n_inv - 1)
                    * math.sqrt(comp.between / n_inv + comp.within / n_blocks)) - 1


# the noise of one series' CPU per request against another's in the interleaved design on this
# project's machine, as Components (standard deviations squared), pooled over four default runs
# on 2026-11-27 (docs/statistics.md "What one run can resolve"): the quietest and the noisiest
# Quarkus pair, virtual / reactive at io 2,500 and at fanout 150
NOISE = {"io": Components(0.021 ** 2, 0.090 ** 2, 13, 42),
         "fanout": Components(0.079 ** 2, 0.160 ** 2, 13, 42)}


def invocations(plan, blocks):
    """How many app invocations each series has in the first BLOCKS blocks of PLAN."""
    return invocation(plan, blocks - 1) + 1 if blocks else 0


def expected_widths(plan, blocks):
    """{scenario: the half-width half_width() gives BLOCKS blocks of PLAN at NOISE}: what a ratio
    of CPU per request can resolve, said before an interleaved run starts."""
    return {k: half_width(c, invocations(plan, blocks), blocks) for k, c in NOISE.items()}


def best_blocks_per_invocation(comp, invocation_s, block_s, most=8, left_s=None, done=(0, 0)):
    """Blocks per invocation that make the interval narrowest. Without LEFT_S: Kalibera and
    Jones' optimum B = sqrt(INVOCATION_S within / (BLOCK_S between)), 1..MOST. With LEFT_S
    (budget left after DONE (invocations, blocks)): the B whose run ends with the narrowest t
    interval; 0 when not one more invocation fits."""
    if left_s is not None and left_s < invocation_s + block_s:
        return 0
    if left_s is None:
        if comp.between <= 0:
            return most
        return max(1, min(most, round(math.sqrt(invocation_s * comp.within
                                                / (block_s * comp.between)))))

    def width(b):
        new = int(left_s // (invocation_s + b * block_s))
        return half_width(comp, done[0] + new, done[1] + new * b)
    return min(range(1, most + 1), key=lambda b: (width(b), -b))


def allocate(plan, block, comp, invocation_s, block_s, left_s=None, done=(0, 0)):
    """PLAN restarting every best_blocks_per_invocation() blocks from BLOCK (a boundary) on."""
    return dataclasses.replace(plan, later=(block, best_blocks_per_invocation(
        comp, invocation_s, block_s, left_s=left_s, done=done)))


def settle(prev, last, within=SETTLE_WITHIN):
    """(settled, {series: change}) from warm block PREV's records to LAST's. A change is the
    geometric mean over steps of LAST/PREV CPU per request minus 1 (None without figures).
    Settled: pooled over the block it fell at most WITHIN, nothing missing. One-sided (a
    warming JVM gets cheaper) and pooled (one 3 s trial moves 20-80 %): the per-step rule it
    replaces ran the most warm blocks every start (seed 2611: 245 s a restart)."""
    def cpu(recs):
        return {(r["series"], r["scenario"], r["rate"]): r["cpu_ms_per_req"] for r in recs}
    a, b = cpu(prev), cpu(last)
    logs, complete = {}, bool(a) and bool(b)
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        logs.setdefault(key[0], [])
        if x and y:
            logs[key[0]].append(math.log(y / x))
        else:
            complete = False
    every = [y for ys in logs.values() for y in ys]
    settled = complete and bool(every) and math.exp(statistics.fmean(every)) - 1 >= -within
    return settled, {series: math.exp(statistics.fmean(ys)) - 1 if ys else None
                     for series, ys in logs.items()}


def jit_load(recs):
    """{series: the % of a core its app's JIT threads used over its trials in RECS} (None without
    figures). A record's CPU per request is net of them, its jit_pct their share of the app's."""
    jit_ms, secs = {}, {}
    for r in recs:
        got = [r.get(k) if isinstance(r, dict) else r[k]
               for k in ("jit_pct", "cpu_ms_per_req", "requests", "duration_s")]
        x = r["series"]
        jit_ms.setdefault(x, None)
        if None not in got and got[0] < 100 and got[3]:
            jit, cpu, n, dur = got
            jit_ms[x] = (jit_ms[x] or 0) + jit / (100 - jit) * cpu * n
            secs[x] = secs.get(x, 0) + dur
    return {x: None if ms is None else ms / secs[x] / 10 for x, ms in jit_ms.items()}


@dataclass(frozen=True)
class WarmCheck:
    """A warm block judged against the warm block before it (check_warm())."""
    settled: bool   # CPU per request fell at most SETTLE_WITHIN and no app's JIT was busy
    changes: dict   # {series: settle()'s change, or None}
    jit: dict       # {series: jit_load()'s % of a core, or None}

    def busy(self, series):
        return (self.jit.get(series) or 0) > JIT_QUIET_PCT

    def series_settled(self, series):
        c = self.changes.get(series)
        return self.settled or (not self.busy(series) and c is not None and c >= -SETTLE_WITHIN)

    def text(self):
        """One line for the run's log."""
        return ("CPU per request from the last warm block (geometric mean over steps), and the "
                "JIT's share of a core over it: " + ", ".join(
                    (f"{x} {100 * c:+.0f} %" if c is not None else f"{x} n/a")
                    + ("" if self.jit.get(x) is None else f" (JIT {self.jit[x]:.0f} % of a core)")
                    for x, c in self.changes.items())
                + f"; settled: {self.settled} (all together fell at most "
                f"{100 * SETTLE_WITHIN:.0f} %, no JIT over {JIT_QUIET_PCT:.0f} % of a core)")


def check_warm(prev, last):
    """WarmCheck of warm block LAST after PREV: settle() and no app's JIT busy (jit_load())."""
    settled, changes = settle(prev, last)
    check = WarmCheck(settled, changes, jit_load(last))
    return dataclasses.replace(check, settled=settled and not any(map(check.busy, check.jit)))


def settling(warm, measured, block):
    """The median over series and steps of a warm trial's CPU per request over the same in BLOCK
    (the first measured block after a start): about 1 when the warm block left apps steady."""
    first = {(r["series"], r["scenario"], r["rate"]): r["cpu_ms_per_req"] for r in measured
             if r["block"] == block and r["cpu_ms_per_req"]}
    ratios = [r["cpu_ms_per_req"] / first[k] for r in warm
              if r["block"] == block and r["cpu_ms_per_req"]
              and (k := (r["series"], r["scenario"], r["rate"])) in first]
    return statistics.median(ratios) if ratios else float("nan")
