"""`vtvr-harness report pool`: several interleaved runs' verdicts taken together, each run's blocks and invocations
kept its own, from synthetic runs written as the runner writes them (trials.jsonl, verdicts.json)."""
import json

import pytest
from test_interleave import settings, synthetic_run

from harness.analysis import stats
from harness.analysis.targets import AA_PAIRS, for_series
from harness.infra.errors import Fatal
from harness.report import pool, summaries, verdict_report
from harness.runs import trial_plan


def run_folder(path, modes="virtual,reactive", seed=1, blocks=4):
    """A run folder of BLOCKS synthetic blocks (apps restarted every 2: BLOCKS / 2 invocations), virtual 1.5x."""
    s = settings("--modes", modes, "--scenario", "io", "--rates", "2500")
    tp, _ = trial_plan.trial_plan(s, s.seed)
    records = synthetic_run(tp, blocks, {"virtual": 1.5}, seed=seed)
    result = stats.analyse(records, for_series(tp.series), AA_PAIRS, 0.95, seed=s.seed)
    path.mkdir()
    verdict_report.write(str(path), records, result, {
        "design": "interleaved", "series": list(tp.series), "steps": [["io", 2500.0, "vegeta"]], "pairs": [],
        "seed": seed, "restart_every": 2, "blocks": blocks, "looks": [blocks], "level": 0.95, "trial": "3s",
        "ramp_in": "1000ms", "jvm_opts": {}, "warmup": [], "seconds": 300})
    (path / "machine.json").write_text(json.dumps({"git_commit": "abc1234"}))
    return str(path)


def cpu_entry(result, aa=False):
    return next(e for e in result["verdicts"] if e["metric"] == "cpu_ms_per_req" and e["aa"] is aa)


def test_each_runs_blocks_and_invocations_stay_its_own(tmp_path):
    runs = [run_folder(tmp_path / f"r{i}", seed=i) for i in (1, 2, 3)]
    records, designs = pool.merge(runs)
    assert sorted({r["block"] for r in records}) == list(range(12))
    assert sorted({r["invocation"] for r in records}) == list(range(6))
    assert {r["run"] for r in records if r["invocation"] in (4, 5)} == {"r3"}
    assert [d["invocations"] for d in designs] == [2, 2, 2]


def test_pooled_intervals_count_every_runs_invocations_and_narrow(tmp_path):
    runs = [run_folder(tmp_path / f"r{i}", seed=i) for i in (1, 2, 3)]
    out = tmp_path / "pooled"
    assert summaries.main(["pool", str(out), *runs]) == 0
    pooled = json.loads((out / "verdicts.json").read_text())
    cpu = cpu_entry(pooled)
    assert (cpu["blocks"], cpu["invocations"], cpu["level"]) == (12, 6, 0.95)
    assert cpu["ci_low"] < 1.5 < cpu["ci_high"]
    alone = [cpu_entry(json.loads(open(f"{r}/verdicts.json").read())) for r in runs]
    assert all(a["invocations"] == 2 for a in alone)
    width = cpu["ci_high"] / cpu["ci_low"]
    assert all(width < a["ci_high"] / a["ci_low"] for a in alone)   # 5 degrees of freedom, not 1
    md = (out / "summary.md").read_text()
    assert "Pooled: 3 runs" in md and "12 blocks over 6 invocations" in md and "Run r2: Design: interleaved" in md


def test_the_pooled_runs_measure_the_noise_and_what_one_run_of_i_invocations_can_resolve(tmp_path, capsys):
    # the synthetic runs: a block's log ratio varies by sqrt(2) x 0.03 (trial noise; the block's drift cancels),
    # an invocation's by sqrt(2) x 0.01 (its apps' luck)
    runs = [run_folder(tmp_path / f"r{i}", seed=i, blocks=8) for i in (1, 2, 3, 4)]
    out = tmp_path / "pooled"
    assert summaries.main(["pool", str(out), *runs]) == 0
    noise = json.loads((out / "verdicts.json").read_text())["design"]["noise"]
    assert [n["pair"] for n in noise] == [["reactive-aa", "reactive"], ["virtual", "reactive"]]
    for n in noise:
        assert n["step"] == ["io", 2500.0] and (n["invocations"], n["blocks"]) == (16, 32)
        assert 0.03 < n["within_sd"] < 0.065 and n["between_sd"] < 0.04
        widths = [n["half_width"][str(i)] for i in pool.RUN_INVOCATIONS]   # JSON keys are strings
        assert all(floor <= w for w, floor in widths)
        assert [w for w, _ in widths] == sorted((w for w, _ in widths), reverse=True)   # more invocations, narrower
    assert "noise of virtual / reactive at io 2500 (CPU per request, over 16 invocations and 32 blocks)" \
        in capsys.readouterr().out


def test_runs_that_differ_or_are_missing_are_clear_errors(tmp_path, capsys):
    a = run_folder(tmp_path / "a")
    b = run_folder(tmp_path / "b", modes="reactive")
    with pytest.raises(Fatal, match="differs from .* in series"):
        pool.merge([a, b])
    with pytest.raises(Fatal, match="at least two"):
        pool.merge([a])
    (tmp_path / "empty").mkdir()
    assert summaries.main(["pool", str(tmp_path / "out"), a, str(tmp_path / "empty")]) == 1
    assert "no trials.jsonl and verdicts.json" in capsys.readouterr().err
