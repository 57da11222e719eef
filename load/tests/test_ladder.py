"""The floor and the ladder (harness/ladder.py, ladder_report.py, plan.py's ladder preset) on synthetic trial
records with a known truth: ratios over the floor, the waterfall's steps, the project's share and its verdict, the
intervals' coverage, the report's sections, and the options that make floor and rungs series of a run."""
import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from harness import cli
from harness.analysis import ladder, stats, trials
from harness.analysis.targets import AA_PAIRS, for_series
from harness.infra.errors import Fatal
from harness.report import contents, ladder_report, summary_files, verdict_report, verdict_sections
from harness.runs import plan, trial_plan

# true CPU ms/req of every series (the reactive ladder: floor 0.050 up to the mode at 0.100, the project's own
# rungs above ladder-rest-client costing 1 - 0.080/0.100 = 20 %; the virtual ladder's 1 - 0.098/0.103 = 4.9 %)
TRUE = {"floor": 0.050, "ladder-rest": 0.060, "ladder-rest-client": 0.080, "ladder-gateway": 0.088,
        "ladder-reactive": 0.095, "reactive": 0.100, "reactive-aa": 0.100, "ladder-vt": 0.070,
        "ladder-vt-rest-client": 0.098, "ladder-vt-gateway": 0.099, "ladder-virtual": 0.101, "virtual": 0.103,
        "worker": 0.120, "bare": 0.030, "vt-native": 0.080}
P99 = {"floor": 101.0, "reactive": 104.0, "virtual": 106.0, "worker": 110.0}


def settings(*argv):
    return plan.settings(cli.compare_parser().parse(["--seed", "7", *argv]))


def records(series, blocks, rates=(1000.0,), drift_sd=0.25, noise_sd=0.03, restart_every=2, seed=1, ok=None):
    """Trial records as the runner writes them: a drift shared by the whole block (the machine moved), invocation
    luck per app and trial noise, multiplicative on TRUE; OK: series -> share of requests served (1 by default)."""
    rng = np.random.default_rng(seed)
    luck, out = {}, []
    for b in range(blocks):
        drift = rng.normal(0, drift_sd)
        for rate in rates:
            for pos, s in enumerate(rng.permutation(series)):
                inv = b // restart_every
                shift = luck.setdefault((s, inv), rng.normal(0, 0.01))
                n = int(rate * 2)
                out.append({"block": b, "position": pos, "scenario": "io", "rate": rate, "series": str(s),
                            "invocation": inv, "duet_with": None, "requests": n,
                            "ok": round(n * (ok or {}).get(s, 1.0)), "duration_s": 2.0,
                            "cpu_ms_per_req": TRUE[s] * math.exp(drift + shift + rng.normal(0, noise_sd)),
                            "p99_ok_ms": P99.get(s, 103.0) + rng.normal(0, 1), "rss_mib": 300.0, "error": None})
    return out


def test_every_series_over_the_floor_holds_the_truth():
    recs = records(["floor", "ladder-rest", "reactive", "worker"], 12)
    out = {(e["series"], e["metric"]): e for e in ladder.over_floor(recs)}
    assert {s for s, _ in out} == {"ladder-rest", "reactive", "worker"}
    for s in ("ladder-rest", "reactive", "worker"):
        e = out[(s, "cpu_ms_per_req")]
        assert e["ci_low"] < TRUE[s] / TRUE["floor"] < e["ci_high"] and e["blocks"] == 12 and e["full"]
        assert e["added_low"] < e["added"] < e["added_high"]
        assert e["value"] == pytest.approx(e["base_value"] + e["added"])
    p = out[("reactive", "p99_ok_ms")]
    assert abs(p["added"] - (P99["reactive"] - P99["floor"])) < 1 and p["added_low"] < p["added"] < p["added_high"]


def test_every_series_over_the_bare_process_and_in_the_summary(tmp_path):
    recs = records(["bare", "floor", "reactive"], 12)
    out = {(e["series"], e["metric"]): e for e in ladder.over_bare(recs)}
    assert {s for s, _ in out} == {"floor", "reactive"}
    for s in ("floor", "reactive"):
        e = out[(s, "cpu_ms_per_req")]
        assert e["base"] == "bare" and e["ci_low"] < TRUE[s] / TRUE["bare"] < e["ci_high"]
    data = ladder.analyse(recs)
    assert data["over_bare"] and [r[0] for r in ladder_report.bare_rows(data)] == ["floor", "reactive"]
    md = "\n".join(ladder_report.md_lines(data))
    assert "### Every series over bare" in md and "| floor | io 1,000/s | 0.0" in md
    # bare is no model: the README table over the floor has reactive only
    assert [r[0] for r in ladder_report.table_rows(data)] == ["reactive"]
    assert "Every series over bare" in ladder_report.html_section(data) and not data["over_vt_native"]


def test_virtual_over_vt_native_is_quarkus_hand_off_and_vt_native_over_bare_the_threads():
    """Issue #43: with vt-native and bare in the run, every series over each, with intervals, in both pages."""
    recs = records(["bare", "vt-native", "virtual", "reactive"], 12)
    data = ladder.analyse(recs)
    over = {(e["series"], e["metric"]): e for e in data["over_vt_native"]}
    e = over[("virtual", "cpu_ms_per_req")]
    assert e["base"] == "vt-native" and e["ci_low"] < TRUE["virtual"] / TRUE["vt-native"] < e["ci_high"]
    threads = next(x for x in data["over_bare"] if x["series"] == "vt-native" and x["metric"] == "cpu_ms_per_req")
    assert threads["ci_low"] < TRUE["vt-native"] / TRUE["bare"] < threads["ci_high"]
    md = "\n".join(ladder_report.md_lines(data))
    assert "### Every series over vt-native" in md and "| CPU x vt-native |" in md
    assert [r[0] for r in ladder_report.bare_rows(data, "over_vt_native")] == ["reactive", "virtual", "bare"]
    assert "Every series over vt-native" in ladder_report.html_section(data)


def test_the_waterfall_steps_add_up_from_the_floor_to_the_mode():
    rungs = list(ladder.LADDERS["reactive"])
    recs = records([*rungs, "worker"], 8)
    (w, wk) = ladder.waterfall(recs)
    assert (w["mode"], w["rungs"], wk["mode"], wk["rungs"]) == ("reactive", rungs, "worker", ["floor", "worker"])
    assert [b["series"] for b in w["bars"]] == rungs[1:] and [b["base"] for b in w["bars"]] == rungs[:-1]
    top = np.mean([r["cpu_ms_per_req"] for r in recs if r["series"] == "reactive"])
    assert w["floor"] + sum(b["added"] for b in w["bars"]) == pytest.approx(top)
    for b in w["bars"]:     # drift is cancelled inside each block: every rung's step is resolved
        assert b["added_low"] < TRUE[b["series"]] - TRUE[b["base"]] < b["added_high"]
    # a rung that was not measured is skipped: its bar goes from the rung below it
    w = ladder.waterfall(records(["floor", "ladder-rest-client", "reactive"], 4))[0]
    assert [(b["base"], b["series"]) for b in w["bars"]] == [("floor", "ladder-rest-client"),
                                                            ("ladder-rest-client", "reactive")]


def test_project_share_is_judged_against_ten_percent():
    recs = records(["floor", "ladder-rest-client", "reactive", "ladder-vt-rest-client", "virtual"], 12,
                   noise_sd=0.01)
    share = {s["mode"]: s for s in ladder.project_share(recs)}
    r, v = share["reactive"], share["virtual"]
    assert r["share_low"] < 0.20 < r["share_high"] and r["verdict"] == stats.FAIL
    assert v["share_low"] < 1 - 0.098 / 0.103 < v["share_high"] and v["verdict"] == stats.PASS
    assert r["added"] == pytest.approx(r["mode_value"] * r["share"], rel=0.02)
    # the same entries as targets.py's, so the run's stopping rule and verdict table see them
    names = [t.name for t in for_series(("ladder-rest-client", "reactive"))]
    assert names == ["reactive: the project's own rungs <= 10 % of its CPU/req "
                     "(ladder-rest-client CPU ms/req >= 0.9 x reactive)"]
    # a series that failed requests is not judged; a broken design calls nothing
    short = ladder.project_share(records(["ladder-rest-client", "reactive"], 8, ok={"reactive": 0.9}))
    assert short[0]["verdict"] == "not judged"
    broken = ladder.project_share(recs, design_broken="A/A interval excludes 1.00")
    assert {s["verdict"] for s in broken} == {stats.INCONCLUSIVE}


def test_difference_interval_covers_about_95_percent():
    rng = np.random.default_rng(3)
    hits, runs = 0, 600
    for _ in range(runs):
        y = 0.02 + rng.normal(0, 0.01, 5).repeat(3) + rng.normal(0, 0.004, 15)   # 5 invocations of 3 blocks
        d = stats.difference(y, [i // 3 for i in range(15)])
        hits += d.low < 0.02 < d.high
    assert 0.92 <= hits / runs <= 0.98
    assert stats.difference([0.1]).low is None and stats.difference([0.1, 0.1]).method == "exact (no spread)"


def test_a_sequential_run_gets_point_ratios_from_its_rows():
    def row(mode, cpu, p99, ok=100.0):
        return {"scenario": "io", "params": "delay=100&calls=1", "mode": mode, "tool": "vegeta", "load": 1000,
                "cpu_ms_per_req": cpu, "p99_ok_ms": p99, "success_pct": ok}
    data = ladder_report.from_rows([row("floor", 0.05, 101), row("reactive", 0.1, 104), row("worker", 0.12, 110, 99)])
    e = {(x["series"], x["metric"]): x for x in data["over_floor"]}
    assert e[("reactive", "cpu_ms_per_req")]["ratio"] == pytest.approx(2.0) and e[("reactive", "p99_ok_ms")]["added"] \
        == pytest.approx(3) and e[("reactive", "cpu_ms_per_req")]["ci_low"] is None
    assert not e[("worker", "cpu_ms_per_req")]["full"]
    md = "\n".join(ladder_report.md_lines(data))
    assert "one measurement of each" in md and "| worker (not served fully) | io 1,000/s | 0.050 -> 0.120 |" in md
    assert ladder_report.from_rows([row("reactive", 0.1, 104)]) == {}


def test_summary_and_report_carry_the_floor_the_waterfall_and_the_share(tmp_path):
    s = settings("--experiment", "ladder")
    tp, _ = trial_plan.trial_plan(s, s.seed)
    recs = records([x for x in tp.series if x in TRUE], 6, rates=(1000.0, 1500.0))
    result = stats.analyse(recs, for_series(tp.series), AA_PAIRS, 0.95, seed=7)
    result["ladder"] = ladder.analyse(recs, 0.95, 7, result["design_broken"])
    verdict_report.write(str(tmp_path), recs, result, {
        "design": "interleaved", "series": list(tp.series),
        "steps": [["io", 1000.0, "vegeta"], ["io", 1500.0, "vegeta"]], "pairs": [], "seed": 7, "restart_every": 2,
        "blocks": 6, "looks": [6], "level": 0.95, "trial": "3s",
        "ramp_in": "1000ms", "jvm_opts": {}, "warmup": [], "seconds": 600})
    summary_files.write_csv_json(str(tmp_path), contents.of(str(tmp_path), [], {}))
    data = json.load(open(tmp_path / "summary.json"))
    assert {w["mode"] for w in data["ladder"]["waterfall"]} == {"reactive", "virtual", "worker"}
    assert {e["series"] for e in data["ladder"]["over_floor"]} >= {"reactive", "virtual", "worker", "ladder-rest"}
    assert any(v["target"].startswith("reactive: the project's own rungs") for v in data["verdicts"])
    lines = ladder_report.md_lines(verdict_sections.load(str(tmp_path))["ladder"])
    table = lines[lines.index("## Over the floor"):lines.index("### Every series over the floor")]
    assert [r.split(" | ")[0] for r in table if "/s | " in r] == \
        ["| reactive"] * 2 + ["| virtual"] * 2 + ["| worker"] * 2
    page = ladder_report.html_section(data["ladder"])
    svgs = [ET.fromstring("<svg" + x[:x.index("</svg>") + 6]) for x in page.split("<svg")[1:]]
    assert len(svgs) == 6     # three modes at two rates
    reactive = svgs[0]
    ns = "{http://www.w3.org/2000/svg}"
    assert len(reactive.findall(f".//{ns}rect")) == len(ladder.LADDERS["reactive"])
    assert "fb8f44" in page and "The project's own share" in page


def test_the_ladder_preset_and_its_quick_variant():
    s = settings("--experiment", "ladder")
    tp, tools = trial_plan.trial_plan(s, s.seed)
    assert s.design == "interleaved" and s.budget_s == 15 * 60 and s.duration_ms == 2000
    assert tp.series[0] == "floor" and tp.series[-1] == "reactive-aa" and len(tp.series) == 16
    assert {"ladder-vt-gateway+socket", "virtual+socket", "worker"} <= set(tp.series)
    assert tp.steps == (("io", 1000.0), ("io", 1500.0)) and set(tools.values()) == {"vegeta"}
    tm = trial_plan.timing(s, len(tp.series))
    n = trials.max_blocks(tp, s.budget_s - 20, tm)
    assert n >= 4 and trials.duration_s(tp, n, tm) <= s.budget_s - 20
    q = settings("--experiment", "ladder", "--quick")
    tq, _ = trial_plan.trial_plan(q, q.seed)
    assert tq.series == ("floor", "ladder-rest-client", "reactive", "reactive-aa") and tq.steps == (("io", 500.0),)
    assert q.budget_s == plan.QUICK_BUDGET_S
    # explicit options still win over the preset
    o = settings("--experiment", "ladder", "--modes", "floor,reactive", "--rates", "800", "--budget", "5m")
    to, _ = trial_plan.trial_plan(o, o.seed)
    assert to.series == ("floor", "reactive", "reactive-aa") and to.steps == (("io", 800.0),) and o.budget_s == 300


def test_floor_and_rungs_are_series_of_any_design():
    s = plan.settings(cli.compare_parser().parse(["--design", "sequential", "--set", "rotate=0", "--aa", "none",
                                                  "--modes", "floor,reactive", "--scenario", "io,db"]), {})
    p = plan.build_plan(s)
    assert {(st.series, st.scenario) for st in p} == {("floor", "io"), ("reactive", "io"), ("reactive", "db")}
    assert settings("--modes", "floor,ladder-vt-gateway+socket,ladder-virtual+socket", "--aa", "none").modes[1] == \
        "ladder-vt-gateway+socket"
    assert plan.base_of("ladder-virtual+socket") == "ladder-virtual"
    # an interleaved block leaves out the trials of a series that does not serve the step's scenario
    assert [trial_plan.serves(x, sc) for x, sc in (("floor", "fanout"), ("floor", "db"), ("ladder-rest", "fanout"),
                                                   ("ladder-vt-gateway+socket", "io"), ("reactive-aa", "db"))] \
        == [True, False, False, True, True]
    for modes, message in (("ladder-rest+socket", "a delay client"), ("ladder-nothing", "unknown mode"),
                           ("floors", "unknown mode")):
        with pytest.raises(Fatal, match=message):
            settings("--modes", modes)
    with pytest.raises(Fatal, match="ladder-rest: no chosen scenario is served by it"):
        trial_plan.trial_plan(settings("--modes", "floor,ladder-rest,reactive", "--scenario", "fanout"), 7)
    with pytest.raises(Fatal, match="unknown experiment"):
        settings("--experiment", "ladders")
