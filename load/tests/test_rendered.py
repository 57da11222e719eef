"""A committed result renders the same before and after a change of the report's code: summary.json (whose field
names outside checks and readers rely on), summary.csv and summary.md, captured from the code before the result model
and the templates (tests/fixtures/rendered/*-expected), are written again byte for byte from the same inputs:
a published result's summary.json (the ladder run of 2026-11-23: verdicts, the ladder, 32 rows) and a run folder
of the three fixture steps (whose CPU per request was captured again on 2026-11-29, when it came to leave out the
JIT compiler threads' CPU: only those three figures changed)."""
import os
import shutil

import pytest

from harness.analysis import steps
from harness.report import summaries as report

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
RENDERED = os.path.join(FIX, "rendered")


@pytest.fixture(autouse=True)
def no_vegeta(monkeypatch):
    monkeypatch.setattr(steps, "vegeta_bin", lambda: None)


def read(*path):
    with open(os.path.join(*path)) as f:
        return f.read()


def test_a_published_result_renders_the_same(tmp_path):
    pub = tmp_path / "pub"
    shutil.copytree(os.path.join(RENDERED, "ladder-input"), pub)
    report.render(str(pub))
    assert read(pub, "summary.json") == read(RENDERED, "ladder-input", "summary.json")
    for name in ("summary.csv", "summary.md"):
        assert read(pub, name) == read(RENDERED, "ladder-expected", name), name
    assert (pub / "report.html").stat().st_size > 100_000


def test_a_run_folder_builds_the_same(tmp_path):
    run = tmp_path / "run"
    for i, name in enumerate(("vegeta-ok", "vegeta-flags", "hey-errors")):
        shutil.copytree(os.path.join(FIX, name), run / "steps" / f"{i:02d}-{name}")
    shutil.copy(os.path.join(RENDERED, "steps-machine.json"), run / "machine.json")
    report.build(str(run))
    for name in ("summary.json", "summary.csv", "summary.md"):
        assert read(run, name) == read(RENDERED, "steps-expected", name), name


def test_a_result_published_before_newer_fields_renders_with_those_cells_na(tmp_path):
    """docs/results/cost-2026-11-22 predates the machine's CPU figures (host_cpu_pct, ...): rendering it again gives
    its tables with those cells n/a instead of a KeyError."""
    pub = tmp_path / "cost"
    shutil.copytree(os.path.join(os.path.dirname(os.path.dirname(FIX)), "..", "docs", "results", "cost-2026-11-22"),
                    pub)
    report.render(str(pub))
    md = read(pub, "summary.md")
    assert "## io (`" in md and "| virtual | hey | 50 conc | 483 | 100 |" in md and "| n/a |" in md


def test_a_run_that_leaves_the_jit_out_says_so_and_an_older_one_does_not():
    from harness.report import run_text
    now = " ".join(run_text.method_notes({"cpu_less_jit": True}))
    assert "less what its JIT compiler threads spent" in now
    assert "JIT compiler" not in " ".join(run_text.method_notes({}))
