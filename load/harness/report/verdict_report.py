"""The verdicts of an interleaved or duet run in its results folder: the runner's trials.jsonl (a
model.TrialRecord per trial) and verdicts.json (design, stats.analyse's result), the report's rows,
summaries and report.html with the verdicts on top, and the lines that end the runner's log."""
from __future__ import annotations

import json
import os

from harness.analysis import stats
from harness.analysis.model import METRICS, TrialRecord
from harness.report import archive, contents, summary_files, verdict_summary
from harness.report.verdict_sections import TRIALS, VERDICTS, ci_text


def write(run, records, result, design):
    """The runner's output: RECORDS (trial records), RESULT (stats.analyse), DESIGN (what ran)."""
    TrialRecord.write_lines(os.path.join(run, TRIALS), records)
    with open(os.path.join(run, VERDICTS), "w") as f:
        json.dump({"design": design, **stats.as_json(result)}, f, indent=1)


def publish(run):
    """summary.csv/json/md and report.html of an interleaved run (summary_files.write_all); 1 when
    it has no trials."""
    with archive.readable(run) as raw:
        c = contents.read(run, raw)
    if not c.rows:
        return 1
    summary_files.write_all(run, c)
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
