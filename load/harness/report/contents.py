"""What a run's summaries and report.html show, gathered once: its rows and machine.json, the
verdicts and profiles beside them (each file read once, here), and every section of both pages as
text, one call per section's module. summary_files and html_report lay it out and read nothing."""
from __future__ import annotations

import dataclasses
import glob
import os

from harness.analysis.model import StepMeta, TrialRecord
from harness.analysis.steps import read_json, sort_rows, step_row, worker_pool_of
from harness.analysis.verdicts import median_rows
from harness.report import (
    advised_report,
    ladder_report,
    profile_report,
    run_text,
    verdict_sections,
)
from harness.report.verdict_sections import TRIALS


@dataclasses.dataclass(frozen=True)
class Contents:
    """Everything both pages of one run show, each part made once."""
    rows: list                       # the steps' rows (StepRow dicts), in report order
    meta: dict                       # machine.json
    decided: verdict_sections.Texts  # the verdicts' sections (empty for a sequential run)
    advised: advised_report.Texts    # advise's prediction beside the measurement (a workload's run)
    ladder: ladder_report.Texts      # the floor's and ladder's
    run: run_text.Texts              # the run's facts, targets, saturation and tables
    profiles: str                    # report.html's "Where the CPU goes", '' without profiles

    @property
    def opening(self):
        """The lines both pages open with."""
        return self.decided.opening or self.run.opening


def of(folder, rows, meta, published=None):
    """The contents of FOLDER's pages: ROWS, META (its machine.json), and the verdicts and profiles
    in FOLDER (PUBLISHED: its summary.json, when read already)."""
    verdicts = verdict_sections.load(folder, published)
    return Contents(rows, meta, verdict_sections.Texts.of(verdicts),
                    advised_report.Texts.of(rows, meta, (verdicts or {}).get("design", {})),
                    ladder_report.Texts.of(verdicts, rows),
                    run_text.Texts.of(rows, meta, bool(verdicts)),
                    profile_report.html_section(profile_report.load(folder)))


def read(folder, raw):
    """The contents of a run's pages from its step folders (sequential) or trial folders
    (interleaved, duet) under RAW (archive.readable(FOLDER)), and FOLDER's machine.json."""
    meta = read_json(os.path.join(folder, "machine.json"), {})
    pool = worker_pool_of(meta)
    return of(folder, run_rows(raw, pool), meta)


def run_rows(run, worker_pool):
    """The rows of RUN's step folders (RUN/steps/*: a sequential run), else of its trial folders
    (RUN/trials/*: interleaved, duet) as trial_rows gives them."""
    rows = [step_row(step, worker_pool)
            for step in sorted(glob.glob(os.path.join(run, "steps", "*")))
            if os.path.exists(os.path.join(step, "meta.json"))]
    return sort_rows(rows) if rows else trial_rows([run], worker_pool)


def trial_rows(runs, worker_pool):
    """The rows of interleaved RUNS (folders: one, or several pooled): per series and step, the
    median over the blocks' measured trials, those its trials.jsonl names (the warm-up's and warm
    blocks' trials are left out, as from the verdicts)."""
    by_block = {}
    for i, run in enumerate(runs):
        path = os.path.join(run, TRIALS)
        measured = {r.step for r in TrialRecord.read_lines(path)} if os.path.exists(path) else ()
        for d in sorted(glob.glob(os.path.join(run, "trials", "*"))):
            meta = StepMeta.read(d)
            if meta and (not measured or os.path.basename(d) in measured):
                by_block.setdefault((i, meta.block or 0), []).append(step_row(d, worker_pool))
    return median_rows([by_block[b] for b in sorted(by_block)])
