"""The wiring of the interleaved design, start to end without starting a process: options -> trials.Plan -> the
schedule -> trial records (from step rows) -> stats.analyse -> verdicts.json -> summary.json, summary.md and
report.html."""
import json
import math
import os

import numpy as np
import pytest

from harness import cli
from harness.analysis import model, stats, steps, trials
from harness.analysis.targets import AA_PAIRS, for_series
from harness.infra.errors import Fatal
from harness.report import contents, summary_files, verdict_report, verdict_sections
from harness.runs import plan, trial_plan

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
REQUIRED = {"target", "scenario", "rate", "metric", "series", "ratio", "ci_low", "ci_high", "blocks", "verdict", "aa"}


def settings(*argv):
    return plan.settings(cli.compare_parser().parse(["--seed", "7", *argv]))


def test_default_run_is_interleaved_over_the_targets_steps_with_the_aa_pair():
    s = settings()
    tp, tools = trial_plan.trial_plan(s, s.seed)
    assert s.design == "interleaved" and s.duration_ms == 3000 and s.budget_s == plan.DEFAULT_BUDGET_S
    assert tp.series == ("virtual", "virtual+socket", "reactive", "reactive-aa") and not tp.pairs
    assert [sc for sc, _ in tp.steps] == list(trial_plan.DEFAULT_SCENARIOS)
    assert tools[("io", 2500.0)] == "vegeta"
    # the default budget fits the first planned look (MIN_BLOCKS, with every restart's warm block) by the time model
    n = trials.max_blocks(tp, s.budget_s - 20, trial_plan.timing(s, len(tp.series)))
    assert trials.looks(trials.MIN_BLOCKS, n)[0] == trials.MIN_BLOCKS


def test_quick_is_one_step_three_series_and_sequential_designs_keep_their_plan():
    s = settings("--quick")
    tp, _ = trial_plan.trial_plan(s, s.seed)
    assert (tp.series, tp.steps, s.duration_ms, s.budget_s) == (("virtual", "reactive", "reactive-aa"),
                                                                (("io", 500.0),), 2000, plan.QUICK_BUDGET_S)
    assert settings("--experiment", "saturate").design == "sequential"
    assert settings("--set", "runs=3").design == "sequential"


def test_duet_pairs_are_the_targets_pairs_and_the_aa_pair():
    s = settings("--design", "duet", "--modes", "virtual,reactive", "--scenario", "io", "--rates", "2500")
    tp, _ = trial_plan.trial_plan(s, s.seed)
    assert set(tp.pairs) == {("virtual", "reactive"), ("reactive-aa", "reactive")}
    t = trials.block_trials(tp, 0)
    assert len(t) == 2 and all(len(x.series) == 2 for x in t)


def test_jvm_opts_go_to_one_series_and_bad_ones_are_clear_errors():
    s = settings("--modes", "reactive", "--jvm-opts", "reactive-aa=-XX:TieredStopAtLevel=1")
    assert s.jvm_opts == {"reactive-aa": "-XX:TieredStopAtLevel=1"}
    assert trial_plan.series_of(s) == ("reactive", "reactive-aa")
    for argv, message in ((("--jvm-opts", "reactive-aa"), "SERIES=OPTIONS"),
                          (("--jvm-opts", "worker=-Xint"), "not a series of this run"),
                          (("--design", "sequential", "--jvm-opts", "reactive-aa=-Xint"), "interleaved or duet"),
                          (("--design", "both"), "--design takes"), (("--budget", "soon"), "--budget must")):
        with pytest.raises(Fatal, match=message):
            trial_plan.series_of(settings(*argv))


def test_a_trial_record_comes_from_its_step_row():
    row = steps.step_figures(os.path.join(FIXTURES, "vegeta-ok"), 200)
    rec = model.TrialRecord.of_step({"block": 3, "series": "virtual"}, row, 0, 6.0)
    assert rec["block"] == 3 and rec["error"] is None and rec["duration_s"] == 6.0
    assert rec["ok"] == round(row["requests"] * row["success_pct"] / 100)
    assert (rec["cpu_ms_per_req"], rec["p99_ok_ms"], rec["rss_mib"]) == (row["cpu_ms_per_req"], row["p99_ok_ms"],
                                                                         row["rss_peak_mib"])
    assert model.TrialRecord.of_step({}, row, 124, 6.0)["error"] == "load tool exit 124"


def synthetic_run(tp, blocks, cpu_factor, seed=1):
    """Records as the runner writes them: every series' trial of every block, with a machine drift shared by the
    block, invocation luck per app and trial noise; CPU_FACTOR: the true CPU/req ratio of each series to reactive."""
    rng = np.random.default_rng(seed)
    luck = {}
    out = []
    for b in range(blocks):
        drift = rng.normal(0, 0.25)                    # the machine moved: the same for every series of the block
        for t in trials.block_trials(tp, b):
            for rec, series in zip(t.records(), t.series, strict=True):
                inv = luck.setdefault((series, t.invocation), rng.normal(0, 0.01))
                cpu = 0.15 * cpu_factor.get(series, 1.0) * math.exp(drift + inv + rng.normal(0, 0.03))
                row = model.StepRow(requests=int(t.rate * 4), success_pct=100.0, cpu_ms_per_req=cpu,
                                    p99_ok_ms=110 * math.exp(rng.normal(0, 0.03)),
                                    rss_peak_mib=400 + rng.normal(0, 4), flags="")
                out.append(model.TrialRecord.of_step(rec, row, 0, 4.0))
    return out


def test_plan_to_summary_json_verdicts(tmp_path):
    s = settings("--modes", "virtual,reactive", "--scenario", "io", "--rates", "2500")
    tp, _ = trial_plan.trial_plan(s, s.seed)
    records = synthetic_run(tp, 8, {"virtual": 1.5})
    level = trials.look_at(trials.looks(trials.MIN_BLOCKS, 8), 8, True)
    result = stats.analyse(records, for_series(tp.series), AA_PAIRS, level, seed=s.seed)
    verdict_report.write(str(tmp_path), records, result, {
        "design": "interleaved", "series": list(tp.series), "steps": [["io", 2500.0, "vegeta"]], "pairs": [],
        "seed": 7, "restart_every": 2, "blocks": 8, "looks": [8], "level": level, "trial": "3s", "ramp_in": "1000ms",
        "jvm_opts": {}, "warmup": [], "seconds": 600})
    assert sum(1 for _ in open(tmp_path / verdict_sections.TRIALS)) == len(records) == 8 * 3
    summary_files.write_csv_json(str(tmp_path), contents.of(str(tmp_path), [], {}))
    data = json.load(open(tmp_path / "summary.json"))
    assert data["design"]["design"] == "interleaved" and data["design_broken"] is None
    v = {(e["metric"], e["aa"]): e for e in data["verdicts"]}
    assert all(REQUIRED <= set(e) for e in data["verdicts"])
    cpu = v[("cpu_ms_per_req", False)]
    assert cpu["series"] == ["virtual", "reactive"] and cpu["blocks"] == 8 and cpu["verdict"] == "FAIL"
    assert cpu["ci_low"] < 1.5 < cpu["ci_high"] and cpu["ci_low"] > 1.2
    aa = v[("cpu_ms_per_req", True)]
    assert aa["verdict"] == "PASS" and aa["ci_low"] < 1 < aa["ci_high"] and cpu["aa_half_width"] == aa["aa_half_width"]
    assert v[("ok_rate", False)]["verdict"] == "PASS"        # both served every request: the ratio is exactly 1
    texts = verdict_sections.Texts.of(verdict_sections.load(str(tmp_path)))
    md = "\n".join(texts.md)
    assert "## Verdicts" in md and "FAIL" in md and "virtual uses" in md
    page = texts.html
    assert page.startswith("<h2>Verdicts</h2>\n<svg") and "A/A band" in page
    # every row names its metric: the A/A rows of a step differ by it, in the table and in the log's headline
    assert "A/A: reactive-aa / reactive contains 1.00 (CPU per request)" in page
    assert "A/A: reactive-aa / reactive contains 1.00 (peak RSS)" in page
    lines = verdict_report.headline(result)
    aa = [x for x in lines if "A/A" in x]
    assert len(aa) == len(set(aa)) == 4 and any(" CPU per request: A/A" in x for x in aa)


def test_no_verdicts_file_leaves_a_sequential_summary_as_it_was(tmp_path):
    summary_files.write_csv_json(str(tmp_path), contents.of(str(tmp_path), [], {}))
    assert set(json.load(open(tmp_path / "summary.json"))) == {"machine", "rows"}
    assert verdict_sections.Texts.of(None) == verdict_sections.Texts([], [], "", "", "")


def test_the_rows_of_a_run_leave_its_warm_blocks_out(tmp_path, monkeypatch):
    """The warm-up's and warm blocks' trials are not measured: the step's row is the median over the trials that
    trials.jsonl names (the measured ones) only."""
    import shutil
    monkeypatch.setattr(steps, "vegeta_bin", lambda: None)
    for name, block in (("0001-w00-io-500-reactive", 0), ("0002-b00-io-500-reactive", 0),
                        ("0003-b01-io-500-reactive", 1)):
        d = tmp_path / "trials" / name
        shutil.copytree(os.path.join(FIXTURES, "vegeta-ok"), d)
        meta = json.loads((d / "meta.json").read_text())
        (d / "meta.json").write_text(json.dumps(dict(meta, block=block, invocation=0)))
    (row,) = contents.trial_rows([str(tmp_path)], 200)
    assert row["runs"].startswith("3 ")                         # without trials.jsonl (an older run): all
    (tmp_path / "trials.jsonl").write_text("".join(json.dumps({"block": b, "series": "reactive", "step": s}) + "\n"
                                                   for b, s in ((0, "0002-b00-io-500-reactive"),
                                                                (1, "0003-b01-io-500-reactive"))))
    (row,) = contents.trial_rows([str(tmp_path)], 200)
    assert row["runs"].startswith("2 ") and "w00" not in row["step"]
