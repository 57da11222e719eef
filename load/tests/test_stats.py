"""analysis.stats and targets, report.charts.interval_plot and verdict_summary on synthetic trials with a known
truth. Every simulation has a fixed seed; a coverage tolerance is 3 binomial standard errors (plus, where stated, a
method's known bias)."""
import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import scipy.stats as sps

from harness.analysis import stats, trials
from harness.analysis.targets import AA_PAIRS, TARGETS, Target, for_series
from harness.report import charts, verdict_report, verdict_summary

SERIES = ("virtual", "virtual+socket", "worker", "reactive", "reactive-aa")


def tol(p, sims):
    return 3 * math.sqrt(p * (1 - p) / sims)


def covers(iv, truth):
    return iv.low <= truth <= iv.high


def simulate(blocks, truth, seed, steps=(("io", 2500.0),), sd=0.05, inv_sd=0.0, restart_every=2, pairs=(),
             drift_sd=0.3, fail=None):
    """Trial records of a run: every series' figure = base x truth[series] x a drift shared by the whole block
    (what interleaving cancels) x its app invocation's luck (sd INV_SD) x trial noise (sd SD), lognormal.
    FAIL: {(series, block): 'no-success' | 'error'}."""
    plan = trials.Plan(SERIES, steps, seed, restart_every, pairs)
    rng = np.random.default_rng(seed)
    inv = {}
    recs = []
    for b in range(blocks):
        drift = math.exp(rng.normal(0, drift_sd))
        for t in trials.block_trials(plan, b):
            for r in t.records():
                s = r["series"]
                luck = inv.setdefault((s, t.invocation), math.exp(rng.normal(0, inv_sd)))
                f = truth.get(s, 1.0) * drift * luck
                r.update(requests=12500, ok=12500, duration_s=5.0, error=None,
                         cpu_ms_per_req=0.2 * f * math.exp(rng.normal(0, sd)),
                         p99_ok_ms=100 * f * math.exp(rng.normal(0, sd)),
                         rss_mib=400 * luck * math.exp(rng.normal(0, sd / 5)))
                kind = (fail or {}).get((s, b))
                if kind == "no-success":
                    r.update(ok=0, cpu_ms_per_req=None, p99_ok_ms=None)
                elif kind == "error":
                    r.update(error="vegeta exited 1")
                recs.append(r)
    return recs


# ---------------------------------------------------------------------------------------------- interval
def test_t_interval_covers_the_true_ratio_95_percent_of_the_time():
    rng = np.random.default_rng(1)
    truth, sims = 1.1, 2000
    hits = sum(covers(stats.interval(rng.normal(math.log(truth), 0.1, 12)), truth) for _ in range(sims))
    assert abs(hits / sims - 0.95) <= tol(0.95, sims)


def test_invocation_level_interval_covers_where_the_block_level_one_does_not():
    """Blocks nested in invocations (Kalibera and Jones): with invocation luck, the block-level t ignores it and
    under-covers; the invocation-level interval keeps 95 %."""
    rng = np.random.default_rng(2)
    sims, g, k = 2000, 5, 3
    keys = [i for i in range(g) for _ in range(k)]
    nested = flat = 0
    for _ in range(sims):
        y = np.repeat(rng.normal(0, 0.05, g), k) + rng.normal(0, 0.05, g * k)
        nested += covers(stats.interval(y, keys), 1.0)
        flat += covers(stats.interval(y), 1.0)
    assert abs(nested / sims - 0.95) <= tol(0.95, sims)
    assert flat / sims < 0.95 - 3 * tol(0.95, sims)
    iv = stats.interval(y, keys)
    assert iv.invocations == g and iv.df == g - 1 and "invocation" in iv.method


def test_invocation_level_interval_covers_when_the_budget_cut_the_last_invocation_short():
    rng = np.random.default_rng(30)
    sims, sizes = 2000, [2, 2, 2, 2, 2, 2, 1]
    keys = [i for i, k in enumerate(sizes) for _ in range(k)]
    hits = sum(covers(stats.interval(np.repeat(rng.normal(0, 0.05, len(sizes)), sizes)
                                     + rng.normal(0, 0.05, len(keys)), keys), 1.0) for _ in range(sims))
    assert abs(hits / sims - 0.95) <= tol(0.95, sims)


def pooling_coverage(inv_sd, g, k, sims, seed=31):
    """Synthetic runs of G invocations of K blocks (block sd 1, invocations' sd INV_SD, truth 0): the coverage of the
    invocation-level 95 % interval, of pooling every block (t on G K - 1 df) when an F test of the invocations does
    not reject at 25 % or 50 %, and of always pooling; each with its median and mean width against the
    invocation-level one. docs/statistics.md's table: `.venv/bin/python tests/test_stats.py` (20,000 runs each)."""
    rng = np.random.default_rng(seed)
    y = rng.normal(0, inv_sd, (sims, g, 1)) + rng.normal(0, 1, (sims, g, k))
    means, grand = y.mean(axis=2), y.mean(axis=(1, 2))
    ssa, sse = k * ((means - grand[:, None]) ** 2).sum(1), ((y - means[:, :, None]) ** 2).sum((1, 2))
    df_a, df_e = g - 1, g * (k - 1)
    half_inv = sps.t.ppf(0.975, df_a) * np.sqrt(ssa / df_a / (g * k))
    half_pool = sps.t.ppf(0.975, df_a + df_e) * np.sqrt((ssa + sse) / (df_a + df_e) / (g * k))
    f = (ssa / df_a) / (sse / df_e)
    halves = {"invocation-level": half_inv, "always pooled": half_pool}
    for alpha in (0.25, 0.50):
        halves[f"pooled unless F at {alpha:.0%}"] = np.where(f < sps.f.ppf(1 - alpha, df_a, df_e), half_pool, half_inv)
    return {name: (float((np.abs(grand) <= h).mean()), float(np.median(h) / np.median(half_inv)),
                   float(h.mean() / half_inv.mean())) for name, h in halves.items()}


def test_pooling_blocks_when_invocations_look_alike_under_covers_or_buys_nothing():
    """docs/statistics.md, "Degrees of freedom from the blocks": 3 invocations of 3 blocks differing as much as the
    blocks do. Pooling when the F test does not reject at 25 % covers about 91 %; at 50 % it keeps about 95 % but is
    hardly narrower; the invocation-level interval keeps 95 % (stats.interval's: the test after this one ties its
    standard error to the same formula)."""
    sims = 4000
    got = pooling_coverage(1.0, 3, 3, sims)
    assert abs(got["invocation-level"][0] - 0.95) <= tol(0.95, sims)
    assert got["pooled unless F at 25%"][0] < 0.95 - tol(0.95, sims)
    cover50, _, mean_width50 = got["pooled unless F at 50%"]
    assert abs(cover50 - 0.95) <= tol(0.95, sims) and mean_width50 > 0.95


def test_invocation_se_is_the_spread_of_invocation_means_for_equal_sizes():
    y = np.array([0.1, 0.2, 0.0, 0.4, 0.3, 0.5, -0.1, 0.1, 0.0])
    keys = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    means = y.reshape(3, 3).mean(axis=1)
    assert stats.interval(y, keys).log_se == pytest.approx(means.std(ddof=1) / math.sqrt(3))


def test_bootstrap_is_chosen_for_many_skewed_blocks_and_covers():
    """Skewed log ratios (an exponential tail: the odd block hit by a GC or a neighbour), 30 blocks: "auto" picks
    BCa; its coverage is within 3 SE of 95 % plus 2 points (BCa's known small-sample undercoverage)."""
    rng = np.random.default_rng(3)
    sims = 400
    truth = 1.05
    hits = 0
    for i in range(sims):
        y = math.log(truth) + rng.exponential(0.1, 30) - 0.1
        iv = stats.interval(y, seed=i)
        hits += covers(iv, truth)
    assert "BCa" in iv.method
    assert abs(hits / sims - 0.95) <= tol(0.95, sims) + 0.02


def test_small_or_symmetric_samples_keep_t():
    rng = np.random.default_rng(4)
    assert stats.interval(rng.exponential(0.1, 12)).method == "t on log ratios"
    assert stats.interval(rng.normal(0, 0.1, 40)).method == "t on log ratios"


def test_two_stage_bootstrap_over_invocations_is_not_too_narrow():
    rng = np.random.default_rng(5)
    sims, g, k = 300, 12, 3
    keys = [i for i in range(g) for _ in range(k)]
    hits = 0
    for i in range(sims):
        y = np.repeat(rng.normal(0, 0.05, g), k) + rng.normal(0, 0.05, g * k)
        iv = stats.interval(y, keys, method="bootstrap", seed=i)
        hits += covers(iv, 1.0)
    assert "invocations then blocks" in iv.method
    assert hits / sims >= 0.95 - tol(0.95, sims) - 0.02


def test_degenerate_samples():
    assert stats.interval([0.0, 0.0, 0.0]).half_width == 0          # two full series' ok_rate
    one = stats.interval([0.1])
    assert one.low == 0 and one.high == math.inf
    assert stats.decide(one, (None, 1.2)) == stats.INCONCLUSIVE
    with pytest.raises(ValueError):
        stats.interval([0.1, 0.2], [0])
    with pytest.raises(ValueError):
        stats.interval([0.1, 0.2], method="z")


def test_half_width_matches_the_issues_calibration_convention():
    iv = stats.interval(np.array([-0.1, 0.1, -0.05, 0.05]))
    assert iv.half_width == pytest.approx(iv.high / iv.ratio - 1)


# ---------------------------------------------------------------------------------------------- verdict
def iv_at(ratio, half):
    return stats.Interval(ratio, ratio / (1 + half), ratio * (1 + half), 12, 12, "t", 0.95, math.log(ratio),
                          math.log(1 + half) / 2.2, 11)


@pytest.mark.parametrize("ratio,half,region,want", [
    (0.95, 0.03, (None, 1.0), "PASS"), (1.05, 0.03, (None, 1.0), "FAIL"), (1.0, 0.03, (None, 1.0), "INCONCLUSIVE"),
    (0.95, 0.03, (0.9, None), "PASS"), (0.85, 0.03, (0.9, None), "FAIL"),
    (1.0, 0.06, (0.95, 1.05), "INCONCLUSIVE"), (1.0, 0.02, (0.95, 1.05), "PASS"), (1.2, 0.02, (0.95, 1.05), "FAIL"),
    (0.8, 0.02, (0.95, 1.05), "FAIL"), (1.0, 0.2, (0.95, 1.05), "INCONCLUSIVE"),
])
def test_decide_against_a_region(ratio, half, region, want):
    assert stats.decide(iv_at(ratio, half), region) == want


def test_blocks_needed_would_decide_at_the_observed_spread():
    """Log ratios with mean 3 % above the bound: the run is undecided; repeating the same pattern to the number
    blocks_needed names decides it, one block fewer than the rounding does not matter."""
    rng = np.random.default_rng(6)
    base = rng.normal(0, 1, 8)
    base = (base - base.mean()) / base.std(ddof=1)
    y = math.log(1.03) + 0.05 * base
    iv = stats.interval(y)
    assert stats.decide(iv, (None, 1.0)) == stats.INCONCLUSIVE
    need, why = stats.blocks_needed(iv, (None, 1.0))
    assert need > 8 and str(need) in why
    z = np.resize(base, need)
    big = math.log(1.03) + 0.05 * (z - z.mean()) / z.std(ddof=1)
    assert stats.decide(stats.interval(big), (None, 1.0)) == stats.FAIL


def test_blocks_needed_cannot_be_said_on_the_bound():
    y = np.array([-0.05, 0.05, -0.02, 0.02])
    need, why = stats.blocks_needed(stats.interval(y), (None, 1.0))
    assert need is None and "on the bound" in why
    need, why = stats.blocks_needed(stats.interval(y + 1e-6), (None, 1.0))
    assert need is None and "more than" in why


# ---------------------------------------------------------------------------------------------- analyse
def run(recs, series=SERIES, **kw):
    return stats.analyse(recs, for_series(series), AA_PAIRS, **kw)


def entries(result, target_part, metric=None):
    return [e for e in result["verdicts"] if target_part in e["target"] and (metric is None or e["metric"] == metric)]


def test_planted_ten_percent_difference_is_found():
    res = run(simulate(12, {"virtual": 1.10}, seed=7, inv_sd=0.01))
    by = {(e["series"][0], e["target"]): e for e in res["verdicts"] if e["metric"] == "cpu_ms_per_req"}
    assert res["design_broken"] is None
    virtual = by[("virtual", "virtual CPU ms/req <= 1.2 x reactive")]
    assert virtual["verdict"] == "PASS" and virtual["ci_low"] > 1.0        # 10 % above reactive, under 1.2x
    aa = by[("reactive-aa", "A/A: reactive-aa / reactive contains 1.00")]
    assert aa["ci_low"] < 1.0 < aa["ci_high"]
    sock = by[("virtual+socket", "virtual+socket CPU ms/req <= 1 x reactive")]
    assert sock["verdict"] == "INCONCLUSIVE" and sock["ci_low"] < 1.0 < sock["ci_high"]    # truly on the bound
    assert sock["blocks_needed"] is None or sock["blocks_needed"] > 12


def test_planted_ten_percent_above_a_bound_fails_it_and_on_the_aa_pair_breaks_the_design():
    """10 % more CPU per request for virtual+socket (target <= 1.0x): FAIL with 16 blocks at 5 % trial noise; the
    same 10 % planted on the A/A pair (a --jvm-opts handicap) is caught by the A/A check."""
    res = run(simulate(16, {"virtual+socket": 1.10}, seed=19))
    sock = next(e for e in res["verdicts"] if e["target"] == "virtual+socket CPU ms/req <= 1 x reactive")
    assert sock["verdict"] == "FAIL" and sock["ci_low"] > 1.0 and res["design_broken"] is None
    res = run(simulate(16, {"reactive-aa": 1.10}, seed=19))
    assert res["design_broken"] and "cpu_ms_per_req" in res["design_broken"]


def test_duet_run_analyses_only_the_pairs_it_loaded_together():
    pairs = (("virtual", "reactive"), ("virtual+socket", "reactive"), ("reactive-aa", "reactive"))
    res = run(simulate(10, {"virtual": 1.5}, seed=23, pairs=pairs))
    assert {tuple(e["series"]) for e in res["verdicts"]} == {*pairs}
    cpu = next(e for e in res["verdicts"] if e["target"] == "virtual CPU ms/req <= 1.2 x reactive")
    assert cpu["verdict"] == "FAIL" and cpu["blocks"] == 10


def test_cut_target_fails_when_the_socket_client_saves_nothing():
    res = run(simulate(12, {"virtual+socket": 1.0}, seed=8))
    cut = [e for e in res["verdicts"] if e["series"] == ["virtual+socket", "virtual"] and e["metric"] ==
           "cpu_ms_per_req"]
    assert len(cut) == 1 and cut[0]["verdict"] == "FAIL" and cut[0]["rate"] == 2500.0


def test_a_run_without_the_aa_pair_shows_no_aa_row():
    """--aa none: no A/A series ran, so no A/A entry (it stood as INCONCLUSIVE "too few blocks" in every report)."""
    recs = [r for r in simulate(8, {"virtual": 1.10}, seed=5) if r["series"] != "reactive-aa"]
    res = run(recs)
    assert res["verdicts"] and not [e for e in res["verdicts"] if e["aa"]]
    assert any(e["target"] == "virtual CPU ms/req <= 1.2 x reactive" for e in res["verdicts"])


def test_aa_left_alone_is_not_flagged_in_95_percent_of_runs():
    """Sixteen A/A intervals per run (4 rates x 4 metrics), no true difference: the family-wise check raises the
    alarm in at most 5 % of runs (3 SE), where a per-interval check would in about half of them."""
    steps = tuple(("io", float(r)) for r in (500, 1500, 2500, 4000))
    sims = 150
    broken, alone = 0, []
    for i in range(sims):
        res = run(simulate(8, {}, seed=100 + i, steps=steps, sd=0.08), series=("reactive", "reactive-aa"))
        broken += res["design_broken"] is not None
        if not res["design_broken"] and any((e.get("note") or "").startswith("excludes 1.00 on its own") for e in
                                            res["verdicts"]):
            alone.append(res)
    assert broken / sims <= 0.05 + tol(0.05, sims)
    # an interval that excludes 1.00 on its own but not family-wise is a PASS, and the log's line says why
    assert len(alone) > sims / 10
    line = next(x for x in verdict_report.headline(alone[0]) if "on its own" in x)
    assert line.startswith("PASS") and "(excludes 1.00 on its own, not at the family-wise level over 16" in line
    res = run(simulate(8, {}, seed=9, steps=steps))
    aa = [e for e in res["verdicts"] if e["aa"]]
    assert len(aa) == 16 and all(e["verdict"] == "PASS" for e in aa)


def test_aa_with_a_handicap_breaks_the_design_and_nothing_is_called():
    recs = simulate(12, {"virtual": 1.5, "reactive-aa": 1.2}, seed=10)
    res = run(recs)
    assert res["design_broken"] and "reactive-aa/reactive" in res["design_broken"]
    targets = [e for e in res["verdicts"] if not e["aa"]]
    assert targets and all(e["verdict"] == "INCONCLUSIVE" for e in targets)
    assert any("would be FAIL" in e["note"] for e in targets)


def test_one_invocation_decides_nothing_and_says_why_instead_of_breaking_the_design():
    """--quick: every series in one app invocation. Its invocation's luck (sd 10 %) sits in every block, so the A/A
    interval over blocks alone excludes 1.00 often; such a run calls no target and does not judge its A/A pair."""
    recs = simulate(4, {"reactive-aa": 1.0}, seed=3, inv_sd=0.10, restart_every=10 ** 6)
    assert {r["invocation"] for r in recs} == {0}
    res = run(recs)
    assert res["design_broken"] is None and res["cannot_decide"] == stats.ONE_INVOCATION
    assert res["verdicts"] and all(e["verdict"] == "INCONCLUSIVE" for e in res["verdicts"])
    assert all("one app invocation" in e["note"] for e in res["verdicts"] if e["blocks"] >= 2)
    assert stats.undecided(res) == []                       # more blocks of one invocation cannot decide either
    text = " ".join(verdict_summary.summary(res))
    assert "cannot decide" in text and "design is broken" not in text
    assert verdict_report.headline(res)[0].startswith("Cannot decide")
    head = verdict_report.headline(res, {"series": ["reactive", "reactive-aa"], "blocks": 3, "steps": [["io", 2500]]})
    assert head[1].startswith("Nothing is decided") and "CANNOT" not in " ".join(head)
    assert run(simulate(4, {}, seed=3, restart_every=2))["cannot_decide"] is None


def test_aa_half_width_stands_beside_every_ratio():
    res = run(simulate(8, {}, seed=11))
    aa = {(e["scenario"], e["rate"], e["metric"]): e["aa_half_width"] for e in res["verdicts"] if e["aa"]}
    for e in res["verdicts"]:
        assert e["aa_half_width"] == aa[(e["scenario"], e["rate"], e["metric"])]


def test_no_success_makes_per_success_figures_inconclusive_and_ok_rate_fail():
    recs = simulate(10, {}, seed=12, fail={("virtual", 3): "no-success"})
    res = run(recs)
    cpu = [e for e in entries(res, "virtual CPU") if e["series"] == ["virtual", "reactive"]]
    assert cpu == []                                    # virtual did not serve fully: cost not judged at all
    assert any(s[0].startswith("virtual CPU") for s in res["skipped"])
    p99 = next(e for e in res["verdicts"] if e["series"] == ["virtual", "reactive"] and e["metric"] == "p99_ok_ms")
    assert p99["verdict"] == "INCONCLUSIVE" and p99["missing"] == {"virtual": 1} and "no success" in p99["note"]
    assert p99 not in stats.undecided(res)                  # more blocks cannot decide it: no reason to go on
    ok = next(e for e in res["verdicts"] if e["series"] == ["virtual", "reactive"] and e["metric"] == "ok_rate")
    assert ok["blocks"] == 10 and ok["ci_low"] < 0.9                    # half a success / 5 s, not a crash


def test_a_trial_that_could_not_run_drops_its_block():
    recs = simulate(10, {}, seed=13, fail={("virtual+socket", 4): "error"})
    res = run(recs)
    e = next(e for e in res["verdicts"] if e["series"] == ["virtual+socket", "reactive"])
    assert e["dropped"] == 1 and e["blocks"] == 9


def test_duet_records_pair_inside_their_own_trial():
    pairs = (("virtual", "reactive"), ("reactive-aa", "reactive"))
    recs = simulate(8, {"virtual": 1.2}, seed=14, pairs=pairs)
    p = stats.pair(recs, "virtual", "reactive", "io", 2500, "cpu_ms_per_req")
    assert p.blocks == 8
    assert stats.pair(recs, "virtual+socket", "reactive", "io", 2500, "cpu_ms_per_req").blocks == 0


def test_verdict_entries_carry_the_issues_fields_and_serialise():
    res = run(simulate(8, {"virtual": 1.3}, seed=15))
    need = {"target", "scenario", "rate", "metric", "series", "ratio", "ci_low", "ci_high", "blocks", "verdict",
            "aa", "aa_half_width", "method", "blocks_needed"}
    for e in res["verdicts"]:
        assert need <= set(e.as_dict())
        assert e["metric"] in stats.METRICS and e["verdict"] in ("PASS", "FAIL", "INCONCLUSIVE")
        assert len(e["series"]) == 2 and e["ci_low"] <= e["ratio"] <= e["ci_high"]
    json.loads(json.dumps(stats.as_json(res), allow_nan=False))


def test_one_block_gives_no_interval_and_still_serialises_and_draws():
    res = run(simulate(1, {}, seed=18))
    e = res["verdicts"][0]
    assert e["blocks"] == 1 and e["ci_low"] is None and e["ci_high"] is None and e["verdict"] == "INCONCLUSIVE"
    json.dumps(stats.as_json(res), allow_nan=False)
    ET.fromstring(charts.interval_plot(res["verdicts"]))
    assert verdict_summary.summary(res)


# ---------------------------------------------------------------------------------------------- targets
def test_targets_name_every_ratio_target_of_results_md():
    names = {t.name for t in TARGETS}
    for want in ("virtual p99 of successes <= 1.25 x reactive", "virtual+socket p99 of successes <= 1.25 x reactive",
                 "virtual CPU ms/req <= 1.2 x reactive", "virtual+socket CPU ms/req <= 1 x reactive",
                 "virtual+socket CPU ms/req <= 0.8 x virtual", "virtual peak RSS <= 1.2 x reactive",
                 "virtual successes/s >= 0.9 x reactive"):
        assert want in names
    with pytest.raises(ValueError):
        Target("latency", ("a", "b"), (None, 1.0), ("io",))


# ---------------------------------------------------------------------------------------------- report
def test_plot_is_well_formed_svg_with_one_line_per_target():
    res = run(simulate(8, {"virtual": 1.3}, seed=16))
    svg = charts.interval_plot(res["verdicts"])
    root = ET.fromstring(svg)
    rows = root.findall("{http://www.w3.org/2000/svg}g")
    assert len(rows) == len([e for e in res["verdicts"] if not e["aa"]]) > 0
    assert all(r.find("{http://www.w3.org/2000/svg}rect") is not None for r in rows)     # the A/A band


def test_summary_says_what_costs_what_and_what_is_undecided():
    res = run(simulate(8, {"virtual": 1.6}, seed=17))
    text = "\n".join(verdict_summary.summary(res))
    assert "virtual CPU ms/req <= 1.2 x reactive: misses at io 2,500/s" in text
    assert "virtual uses 6" in text and "% more CPU per request than reactive at io 2,500/s" in text
    assert "Yardstick: the A/A pair (reactive measured twice" in text
    broken = run(simulate(12, {"reactive-aa": 1.2}, seed=10))
    assert verdict_summary.summary(broken)[0].startswith("The design is broken")


if __name__ == "__main__":     # docs/statistics.md's table of pooled degrees of freedom
    for inv_sd, g, k in ((0, 3, 3), (0.27, 3, 3), (1, 3, 3), (1, 3, 2), (1, 2, 4)):
        print(f"{g} x {k}, invocations' sd {inv_sd}:", {n: tuple(round(x, 3) for x in v)
                                                        for n, v in pooling_coverage(inv_sd, g, k, 20000).items()})
