"""The verdicts of an interleaved or duet run in its results folder: the runner's trials.jsonl (a
model.TrialRecord per trial) and verdicts.json (design, stats.analyse's result), the report's rows,
summaries and report.html with the verdicts on top, and the lines that end the runner's log."""
from __future__ import annotations

import glob
import json
import os

from harness.analysis import stats
from harness.analysis.model import METRICS, StepMeta, TrialRecord
from harness.analysis.steps import read_json, step_row
from harness.analysis.verdicts import median_rows
from harness.report import summary_files, verdict_summary
from harness.report.verdict_sections import TRIALS, VERDICTS, ci_text


def write(run, records, result, design):
    """The runner's output: RECORDS (trial records), RESULT (stats.analyse), DESIGN (what ran)."""
    TrialRecord.write_lines(os.path.join(run, TRIALS), records)
    with open(os.path.join(run, VERDICTS), "w") as f:
        json.dump({"design": design, **stats.as_json(result)}, f, indent=1)


def rows_of(runs, worker_pool):
    """The report's rows of interleaved RUNS (folders: one, or several pooled): per series and step,
    the median over the blocks' trials."""
    by_block = {}
    for i, run in enumerate(runs):
        for d in sorted(glob.glob(os.path.join(run, "trials", "*"))):
            meta = StepMeta.read(d)
            if meta:
                by_block.setdefault((i, meta.block or 0), []).append(step_row(d, worker_pool))
    return median_rows([by_block[b] for b in sorted(by_block)])


def publish(run, worker_pool):
    """summary.csv/json/md and report.html of an interleaved run (summary_files.write_all)."""
    rows = rows_of([run], worker_pool)
    if not rows:
        return 1
    summary_files.write_all(run, rows, read_json(os.path.join(run, "machine.json"), {}))
    return 0


def headline(data, design=None):
    """The lines that end the runner's log: with DESIGN the opening (verdict_summary.opening), then
    a line per verdict naming its metric, with its note (an A/A interval excluding 1.00 alone but
    not family-wise says so: its PASS would read as a contradiction)."""
    out = [f"{x['verdict']:12} {x['scenario']} {x['rate']:g} {METRICS[x['metric']].name}: "
           f"{x['target']}: {ci_text(x)}"
           + (f" ({x['note']})" if x.get("note") else "") for x in data["verdicts"]]
    if design:
        return [*verdict_summary.opening({**data, "design": design}), "", *out]
    if data.get("design_broken"):
        out.insert(0, "DESIGN BROKEN: " + data["design_broken"])
    if data.get("cannot_decide"):
        out.insert(0, f"Cannot decide: {data['cannot_decide']}: no target is called and the A/A "
                      "pair is not judged (a run with several app invocations per series decides)")
    return out
