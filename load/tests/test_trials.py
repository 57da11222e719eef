"""analysis.trials: the schedule's randomization, invocations and duet order, its time estimate, and the sequential
stopping rule's error rate under the null (simulated with a fixed seed; tolerance 3 binomial standard errors)."""
import itertools
import math
from collections import Counter

import numpy as np
import pytest
from test_stats import SERIES, simulate, tol

from harness.analysis import stats, trials
from harness.analysis.targets import AA_PAIRS, for_series
from harness.runs import trial_plan

STEPS = (("io", 500.0), ("io", 2500.0), ("fanout", 150.0))


def plan(**kw):
    return trials.Plan(SERIES, STEPS, kw.pop("seed", 42), **kw)


def test_every_series_runs_once_per_step_per_block_in_the_steps_order():
    p = plan()
    for b in range(6):
        ts = trials.block_trials(p, b)
        assert [t.position for t in ts] == list(range(len(ts)))
        assert Counter((t.scenario, t.rate, t.series[0]) for t in ts) == \
            Counter((sc, r, s) for sc, r in STEPS for s in SERIES)
        assert [(t.scenario, t.rate) for t in ts] == [st for st in STEPS for _ in SERIES]


def test_orders_are_fresh_per_step_and_block_and_reproducible_from_the_seed():
    p = plan()
    orders = [tuple(t.series[0] for t in trials.block_trials(p, b)[:len(SERIES)]) for b in range(40)]
    assert len(set(orders)) > 30                                 # 120 possible orders of 5
    within = [t.series[0] for t in trials.block_trials(p, 0)]
    assert within[:5] != within[5:10] or within[5:10] != within[10:15]
    assert trials.block_trials(p, 7) == trials.block_trials(plan(), 7)
    assert trials.block_trials(p, 7) != trials.block_trials(plan(seed=43), 7)
    first = Counter(o[0] for o in orders * 1) + Counter(
        trials.block_trials(p, b)[0].series[0] for b in range(40, 1000))
    assert all(abs(n / 1000 - 0.2) < 0.05 for n in first.values())   # each series first ~1/5 of the time


def test_every_series_restarts_together_every_k_blocks_in_a_random_order():
    p = plan(restart_every=3)
    assert [trials.invocation(p, b) for b in range(7)] == [0, 0, 0, 1, 1, 1, 2]
    assert all(t.invocation == 2 for t in trials.block_trials(p, 6))
    starts = [trials.restarts(p, b) for b in range(12)]
    assert [b for b, s in enumerate(starts) if s] == [0, 3, 6, 9]
    assert all(sorted(s) == sorted(SERIES) for s in starts if s)
    assert len({tuple(s) for s in starts if s}) > 1
    events = trials.schedule(p, 4)
    warm = len(STEPS) * len(SERIES)       # the warm block after each restart (trials.warm_trials)
    assert [e[1] for e in events[:5]] == starts[0] and events[5][0] == "warm" and events[5 + warm][0] == "trial"
    assert sum(e[0] == "restart" for e in events) == 2 * len(SERIES)


def test_duet_runs_each_pair_once_per_step_per_block_and_alternates_who_starts():
    pairs = (("virtual", "reactive"), ("reactive-aa", "reactive"))
    p = plan(pairs=pairs)
    firsts = {}
    for b in range(8):
        ts = trials.block_trials(p, b)
        assert len(ts) == len(STEPS) * len(pairs)
        for t in ts:
            firsts.setdefault((frozenset(t.series), t.scenario, t.rate), []).append(t.series[0])
    for seq in firsts.values():
        assert all(a != b for a, b in itertools.pairwise(seq))
    recs = trials.block_trials(p, 0)[0].records()
    assert len(recs) == 2 and recs[0]["duet_with"] == recs[1]["series"]
    with pytest.raises(ValueError):
        plan(pairs=(("virtual", "virtual"),))


def test_record_keys_are_what_stats_reads():
    r = trials.block_trials(plan(), 0)[0].records()[0]
    assert set(r) == {"block", "position", "scenario", "rate", "series", "invocation", "duet_with"}
    assert r["duet_with"] is None


def test_time_estimate_and_budget():
    p, tm = plan(restart_every=2, warm_blocks=0), trials.Timing(trial_s=5, ramp_s=1, gap_s=1, start_s=5, warmup_s=30)
    assert trials.duration_s(p, 1, tm) == 15 * 7 + 5 * 35
    assert trials.duration_s(p, 4, tm) == 4 * 15 * 7 + 2 * 5 * 35
    assert trials.duration_s(p, 4, trials.Timing(warm_together=True)) == 4 * 15 * 7 + 2 * 35
    duet = plan(pairs=(("virtual", "reactive"),), warm_blocks=0)
    assert trials.duration_s(duet, 1, tm) == 3 * 7 + 5 * 35
    for budget in (100, 600, 1200, 20 * 60):
        n = trials.max_blocks(p, budget, tm)
        assert trials.duration_s(p, n, tm) <= budget < trials.duration_s(p, n + 1, tm)


def test_looks_and_alpha_spending():
    looks = trials.looks(6, 24, 3)
    assert looks == [6, 15, 24] and trials.looks(8, 24) == [8, 16, 24]
    spent = [trials.look_alpha(looks, n) for n in looks]
    assert sum(spent) == pytest.approx(trials.ALPHA) and spent == sorted(spent)
    assert trials.look_alpha(looks, 5) == 0
    assert trials.look_alpha(looks, 10) == pytest.approx(trials.ALPHA - spent[0])     # budget ended at 10
    assert trials.look_level(looks, 24) == pytest.approx(1 - spent[-1])
    assert trials.looks(6, 4) == [] and trials.looks(6, 6) == [6] and trials.looks(6, 7, 3) == [6, 7]
    assert trials.should_stop(looks, 6, 0, True) and not trials.should_stop(looks, 6, 1, True)
    assert not trials.should_stop(looks, 7, 0, True) and trials.should_stop(looks, 7, 3, False)
    assert trials.should_stop(looks, 24, 3, True)
    assert trials.look_at(looks, 15, True) == trials.look_level(looks, 15)
    assert trials.look_at(looks, 10, True) is None
    assert trials.look_at(looks, 10, False) == pytest.approx(1 - (trials.ALPHA - spent[0]))
    assert trials.look_at(looks, 4, False) is None                  # before the minimum: no verdict at all


def sequential(y, keys, looks):
    """True when any planned look's interval decides 'log ratio <= 0' (a false decision: the truth is 0)."""
    for n in looks:
        iv = stats.interval(y[:n], keys[:n], trials.look_level(looks, n))
        if stats.decide(iv, (None, 1.0)) != stats.INCONCLUSIVE:
            return True
    return False


def test_stopping_rule_keeps_false_decisions_within_alpha_where_naive_peeking_does_not():
    """The truth sits on the bound, so any PASS or FAIL is false. Planned looks with spent alpha: at most 5 %
    (3 SE); looking after every block at 95 %: far more."""
    rng = np.random.default_rng(20)
    sims, n, k = 2000, 24, 2
    looks = trials.looks(trials.MIN_BLOCKS, n)
    keys = [b // k for b in range(n)]
    planned = naive = 0
    for _ in range(sims):
        y = np.repeat(rng.normal(0, 0.03, n // k), k) + rng.normal(0, 0.08, n)
        planned += sequential(y, keys, looks)
        naive += any(stats.decide(stats.interval(y[:m], keys[:m]), (None, 1.0)) != stats.INCONCLUSIVE
                     for m in range(2 * k, n + 1, k))
    assert planned / sims <= trials.ALPHA + tol(trials.ALPHA, sims)
    assert naive / sims > trials.ALPHA + 3 * tol(trials.ALPHA, sims)


def run_sequentially(truth, budget_s, seed):
    """A run driven by the stopping rule on simulated trials -> (blocks, analyse() result)."""
    p, tm = plan(seed=seed), trials.Timing()
    looks = trials.looks(trials.MIN_BLOCKS, trials.max_blocks(p, budget_s, tm))
    recs = simulate(looks[-1], truth, seed=seed, steps=STEPS)
    for n in range(1, looks[-1] + 1):
        budget_left = trials.duration_s(p, n + 1, tm) <= budget_s
        level = trials.look_at(looks, n, budget_left)
        if level is not None:
            res = stats.analyse([r for r in recs if r["block"] < n], for_series(SERIES), AA_PAIRS, level)
            if trials.should_stop(looks, n, len(stats.undecided(res)), budget_left):
                return n, res, looks


def test_a_clear_run_stops_at_the_first_look_and_a_hard_one_at_the_budget():
    clear = {"virtual": 1.6, "virtual+socket": 0.6}      # only a clear difference stops at the first look
    n, res, looks = run_sequentially(clear, 3600, seed=21)
    assert n == looks[0] == trials.MIN_BLOCKS and not stats.undecided(res)
    n, res, looks = run_sequentially({"virtual+socket": 1.0}, 3600, seed=22)   # on its <= 1.0 bound
    assert n == looks[-1] and stats.undecided(res)
    assert trials.duration_s(plan(), n, trials.Timing()) <= 3600
    assert math.isclose(res["verdicts"][0]["level"], trials.look_level(looks, n))


def test_warm_blocks_follow_every_restart_and_are_timed():
    p = plan(restart_every=2, warm_blocks=1)
    sched = trials.schedule(p, 4)
    kinds = [k for k, _ in sched]
    # each restart group is followed by one whole block of warm trials: block 0's and block 2's own trials
    per_block = len(p.steps) * len(p.series)
    assert kinds.count("warm") == 2 * per_block
    assert [t for k, t in sched if k == "warm"][:per_block] == trials.block_trials(p, 0)
    assert not trials.warm_trials(p, 1)
    tm = trials.Timing(trial_s=5, ramp_s=1, gap_s=1, start_s=5, warmup_s=30)
    no_warm = trials.duration_s(plan(restart_every=2, warm_blocks=0), 4, tm)
    assert trials.duration_s(p, 4, tm) == no_warm + 2 * per_block * 7


# ---------------------------------------------------------------------------------------------- warm until settled
def cpu_recs(block, **cpu):
    return [{"block": block, "series": s, "scenario": sc, "rate": 100.0, "cpu_ms_per_req": v}
            for s, steps in cpu.items() for sc, v in steps.items()]


def test_the_apps_settle_when_the_block_as_a_whole_got_at_most_ten_percent_cheaper():
    prev = cpu_recs(0, reactive={"io": 0.20, "fanout": 1.0}, virtual={"io": 0.30, "fanout": 2.0})
    last = cpu_recs(0, reactive={"io": 0.19, "fanout": 1.05}, virtual={"io": 0.24, "fanout": 2.0})
    settled, changes = trials.settle(prev, last)
    # virtual's io fell 20 % (one trial's noise here), the block as a whole 6 %: settled
    assert settled and changes["reactive"] == pytest.approx((0.95 * 1.05) ** 0.5 - 1)
    assert changes["virtual"] == pytest.approx(0.8 ** 0.5 - 1)
    cheaper = cpu_recs(0, reactive={"io": 0.16, "fanout": 0.85}, virtual={"io": 0.24, "fanout": 1.7})
    assert not trials.settle(prev, cheaper)[0]          # every trial 15-20 % cheaper: still warming
    dearer = cpu_recs(0, reactive={"io": 0.30, "fanout": 1.5}, virtual={"io": 0.45, "fanout": 3.0})
    assert trials.settle(prev, dearer)[0]               # a block 50 % dearer is noise, not warming


def test_a_block_in_which_an_app_still_compiles_is_not_settled():
    prev, last = cpu_recs(0, virtual={"io": 0.30}), cpu_recs(0, virtual={"io": 0.30})
    for r in last:      # the JIT's 20 % of 300 ms of the app's CPU over 10 s: 0.75 % of a core
        r.update(jit_pct=20.0, requests=1000, duration_s=10.0)
    assert trials.check_warm(prev, last).settled
    for r in last:      # the same share of 6,000 ms: 15 % of a core, over JIT_QUIET_PCT
        r.update(requests=20000)
    quiet = dict(last[0], scenario="fanout", jit_pct=0.0)   # 0 % over another 10 s: 7.5 % in all
    assert trials.check_warm(prev + [dict(quiet, cpu_ms_per_req=0.3)], last + [quiet]).settled
    check = trials.check_warm(prev, last)
    assert check.jit["virtual"] == pytest.approx(15.0) and check.changes["virtual"] == 0
    assert not check.settled and not check.series_settled("virtual")
    assert "JIT 15 % of a core" in check.text()


def test_a_step_without_a_figure_is_not_settled():
    settled, changes = trials.settle(cpu_recs(0, floor={"io": 0.1}), cpu_recs(0, floor={"io": None}))
    assert not settled and changes == {"floor": None}
    assert trials.settle([], cpu_recs(0, floor={"io": 0.1})) == (False, {"floor": None})


def test_the_report_says_what_the_warm_ups_needed_and_flags_a_series_that_never_settled():
    from harness.report.verdict_sections import warm_text
    log = [{"series": "reactive", "invocation": 0, "warm_blocks": 1, "settled": True, "change": 0.04},
           {"series": "virtual", "invocation": 0, "warm_blocks": 3, "settled": False, "change": -0.18}]
    text = warm_text({"warmup": log})
    assert "fell at most 10 %" in text and "1-3 per invocation" in text
    assert "NEVER SETTLED (flagged): virtual #0 (-18 %)" in text
    assert "every series settled" in warm_text({"warmup": log[:1]}) and warm_text({"warmup": []}) == ""
    assert "JIT" not in text            # a run from before the JIT rule reads as it did
    log[1].update(change=-0.02, jit=31.0)
    log[0]["jit"] = 2.0
    text = warm_text({"warmup": log})
    assert "and no app's JIT used over 10 % of a core" in text
    assert "NEVER SETTLED (flagged): virtual #0 (-2 %, JIT 31 % of a core)" in text


def test_the_design_line_names_the_jit_driven_warm_up():
    from harness.report.verdict_sections import design_text
    d = {"design": "interleaved", "series": ["reactive", "reactive-aa"], "steps": [["io", 2500.0, "vegeta"]],
         "pairs": [], "seed": 1, "restart_every": 2, "warm_blocks": 1, "blocks": 8, "looks": [8], "level": 0.95,
         "trial": "3s", "ramp_in": "1000ms", "jvm_opts": {}, "warmup": [], "seconds": 300,
         "warmups": [[25, 3.9], [41, 4.8]], "warmup_jit_pct": 5, "warmup_max_s": 45}
    assert "each start warmed 25-41 s: ramped, then on while an app's JIT used more than 5 % of a core, at most 45 s" \
        in design_text(d)


# ---------------------------------------------------------------------------------------------- allocation
def test_the_noise_splits_into_between_and_within_invocations():
    rng = np.random.default_rng(3)
    ys, keys = [], []
    for inv in range(40):
        level = rng.normal(0, 0.10)                       # an invocation's own offset: sd 0.10
        for _ in range(4):
            ys.append(level + rng.normal(0, 0.05))        # a block's: sd 0.05
            keys.append(inv)
    comp = trials.components(ys, keys)
    assert comp.n_inv == 40 and comp.n_blocks == 160
    assert math.sqrt(comp.between) == pytest.approx(0.10, rel=0.3)
    assert math.sqrt(comp.within) == pytest.approx(0.05, rel=0.2)
    assert trials.components([0.1, 0.2], [0, 1]) is None     # no invocation with two blocks


def test_the_blocks_per_invocation_follow_kalibera_and_jones():
    # B = sqrt(c_inv * within / (c_blk * between))
    comp = trials.Components(between=0.01, within=0.04, n_inv=2, n_blocks=4)
    assert trials.best_blocks_per_invocation(comp, invocation_s=40, block_s=10) == 4
    assert trials.best_blocks_per_invocation(trials.Components(0.04, 0.01, 2, 4), 40, 10) == 1
    assert trials.best_blocks_per_invocation(trials.Components(0.0, 0.01, 2, 4), 40, 10) == 8


def test_with_the_budget_left_the_allocation_counts_the_intervals_degrees_of_freedom():
    # seed 1's 5-minute A/A: no spread between invocations, sd 0.039 between blocks, a restart 25 s, a block 9 s,
    # 2 invocations of 2 blocks done and 2 minutes left. Without the budget: one long invocation (B = 8), which
    # ends at 3 invocations (t on 2 degrees of freedom, 4.30); with it: two more invocations of 3 blocks (t 3.18 on
    # 10 blocks: 0.039 against 0.041 for 3 more of one block, 0.048 for one of 8)
    comp = trials.Components(between=0.0, within=0.039 ** 2, n_inv=2, n_blocks=4)
    assert trials.best_blocks_per_invocation(comp, 25, 9) == 8
    assert trials.best_blocks_per_invocation(comp, 25, 9, left_s=120, done=(2, 4)) == 3
    # blocks that vary far more than invocations, restarts dear and a long budget: longer invocations pay
    noisy = trials.Components(between=0.0001, within=0.04, n_inv=2, n_blocks=4)
    assert trials.best_blocks_per_invocation(noisy, 120, 5, left_s=3000, done=(2, 4)) > 2
    # no time for a further invocation at all: no more restarts (the running apps go on)
    assert trials.best_blocks_per_invocation(comp, 25, 9, left_s=30, done=(1, 2)) == 0


def test_the_half_width_a_run_can_reach_and_its_floor_over_infinitely_many_blocks():
    comp = trials.Components(0.06 ** 2, 0.10 ** 2, 81, 207)     # the 5-minute A/A noise of 2026-11-27, rounded
    t2 = 4.302652729911275                                       # t's 97.5 % quantile on 2 degrees of freedom
    assert trials.half_width(comp, 3, 9) == pytest.approx(math.exp(t2 * math.sqrt(0.0036 / 3 + 0.01 / 9)) - 1)
    assert trials.half_width(comp, 3) == pytest.approx(math.exp(t2 * 0.06 / math.sqrt(3)) - 1)   # 16.1 %
    assert trials.half_width(comp, 3) < trials.half_width(comp, 3, 9) and trials.half_width(comp, 1) == math.inf
    assert trials.half_width(trials.Components(0.0, 0.01, 9, 27), 3) == 0.0   # no invocation noise: no floor


def test_a_new_allocation_keeps_the_blocks_before_it_and_restarts_at_its_boundaries():
    plan = trials.Plan(("a", "b"), (("io", 100.0),), seed=1, restart_every=2)
    later = trials.allocate(plan, 4, trials.Components(0.04, 0.01, 2, 4), 40, 10)   # every block from block 4
    assert later.later == (4, 1)
    assert [trials.invocation(later, b) for b in range(7)] == [0, 0, 1, 1, 2, 3, 4]
    assert [bool(trials.restarts(later, b)) for b in range(7)] == [True, False, True, False, True, True, True]
    assert trials.duration_s(later, 7) > trials.duration_s(plan, 7)      # three more restarts


def test_when_no_restart_fits_the_budget_the_running_apps_go_on():
    # the default run of 2026-11-25 (seed 2613): a restart 282 s, a block 74 s, 330 s left after 4 blocks over 2
    # invocations; it planned a restart at block 5 that could not fit and stopped with 5.5 minutes unused
    plan = trials.Plan(("a", "b"), (("io", 100.0),), seed=1, restart_every=2)
    later = trials.allocate(plan, 4, trials.Components(0.0, 0.17 ** 2, 2, 4), 282, 74, left_s=330, done=(2, 4))
    assert later.later == (4, 0)
    assert [trials.invocation(later, b) for b in range(9)] == [0, 0, 1, 1, 1, 1, 1, 1, 1]
    assert [bool(trials.restarts(later, b)) for b in range(9)] == [True, False, True] + [False] * 6


def test_a_single_look_waits_for_the_end_of_the_budget():
    # a 5-minute run planned one look at 8 blocks and reached it with 90 s left: the look moves on, block by block
    assert trials.moved_look([8], 8, budget_left=True) == [9]
    assert trials.look_at([9], 8, budget_left=True) is None
    # ... until the next block no longer fits: then that is the look, at the whole error rate
    assert trials.look_at([9], 9, budget_left=False) == pytest.approx(1 - trials.ALPHA)
    assert trials.moved_look([8], 8, budget_left=False) == [8]
    # a plan of several looks keeps them (its error rate is spent along them)
    assert trials.moved_look([8, 9, 10], 10, budget_left=True) == [8, 9, 10]


def test_what_a_run_can_resolve_is_said_from_this_machines_noise_before_it_starts():
    """The noise behind the dry run's sentence reproduces docs/statistics.md's table (one run of 3 invocations at
    3.2 blocks each: +-14.4 % at io, +-34.5 % at fanout); more blocks resolve more; one invocation resolves nothing."""
    assert trials.half_width(trials.NOISE["io"], 3, 3 * 3.2) == pytest.approx(0.144, abs=0.002)
    assert trials.half_width(trials.NOISE["fanout"], 3, 3 * 3.2) == pytest.approx(0.345, abs=0.002)
    plan = trials.Plan(("virtual", "reactive"), (("io", 2500.0),), 1)
    eight, eighteen = trials.expected_widths(plan, 8), trials.expected_widths(plan, 18)
    assert 0 < eighteen["io"] < eight["io"] < eight["fanout"] < 1
    assert trials.expected_widths(plan, 2)["io"] == math.inf
    assert "+-11 % at io's and +-25 % at fanout's" in trial_plan.resolves(plan, 8)
    assert "resolve no difference" in trial_plan.resolves(plan, 2)
