"""The result model (analysis/model.py): one definition of each field, the rows and records built from it, and HTML
written only through the templates."""
import dataclasses
import os
import pathlib
import re

import pytest

from harness.analysis import model, stats, steps, targets
from harness.report import pages, scale_report

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "harness"


def test_every_field_has_a_unit_or_is_text_and_every_column_a_label():
    for cls in (model.StepRow, model.TrialRecord, model.VerdictEntry):
        for f in dataclasses.fields(cls):
            assert f.metadata["text"] or f.metadata["unit"], f"{cls.__name__}.{f.name} has no unit"
    assert all(model.label(k) != k or k in ("mode", "tool", "load", "flags") for k in model.TABLE)
    assert steps.FIELDS == model.FIELDS and model.FIELDS[:3] == ["scenario", "params", "mode"]
    assert len(model.FIELDS) == 46 and "ranges" in model.TEXT_FIELDS and "p99_ok_ms" not in model.TEXT_FIELDS


def test_a_step_row_is_typed_and_reads_like_a_dict():
    row = steps.step_figures(os.path.join(FIXTURES, "vegeta-ok"), 200)
    assert isinstance(row, model.StepRow) and row["mode"] == row.mode == "reactive"
    with pytest.raises(KeyError):
        row["p99_okms"] = 1.0
    assert row.get("nothing", 7) == 7 and list(row.as_dict()) == model.FIELDS
    assert steps.step_figures(os.path.join(FIXTURES, "vegeta-ok"), 200) == row
    back = model.StepRow.of(dict(row.as_dict(), extra=1))
    assert back == row and back.csv_cells()["ranges"] == ""
    assert model.StepRow(ranges={"p99_ms": [1, 2]}).csv_cells()["ranges"] == '{"p99_ms": [1, 2]}'


def test_a_trial_record_is_the_models_and_the_runners_alike():
    row = steps.step_figures(os.path.join(FIXTURES, "vegeta-ok"), 200)
    ids = {"block": 1, "position": 0, "scenario": "io", "rate": 500.0, "series": "reactive", "invocation": 0,
           "duet_with": None}
    for rc in (0, 124):
        rec = model.TrialRecord.of_step(ids, row, rc, 6.0)
        assert rec == model.TrialRecord.of_step(ids, row, rc, 6.0)
        assert isinstance(rec, model.TrialRecord) and list(rec.as_dict()) == model.TrialRecord.names()
        assert model.TrialRecord.of(rec) == rec and model.TrialRecord.of(rec.as_dict()) == rec
    assert tuple(model.TrialRecord.names()[:len(model.TRIAL_IDS)]) == model.TRIAL_IDS


def test_verdict_entries_and_metrics_come_from_the_model():
    assert stats.METRICS == tuple(model.METRICS) and set(stats.PER_SUCCESS) == {"cpu_ms_per_req", "p99_ok_ms",
                                                                                  "rss_mib"}
    assert targets.LABELS["cpu_ms_per_req"] == "CPU ms/req" and targets.LABELS["ok_rate"] == "successes/s"
    assert model.VERDICT_KEYS[:5] == ("target", "scenario", "rate", "metric", "series")
    e = {"target": "A/A: x / y contains 1.00", "metric": "rss_mib"}
    assert model.verdict_label(e) == "A/A: x / y contains 1.00 (peak RSS)"


def test_html_is_written_only_through_the_templates():
    tags = re.compile(r"<(table|div|p|h[1-6]|ul|li|tr|td|th|pre|!doctype)[ >]", re.I)
    found = [f"{p.relative_to(PACKAGE)}: {m.group(0)}" for p in PACKAGE.rglob("*.py")
             for m in tags.finditer(p.read_text())]
    assert not found, "HTML outside report/templates:\n" + "\n".join(found)


def test_the_scale_page_is_its_template(tmp_path):
    scale_report.write_html(str(tmp_path), ['<svg xmlns="http://www.w3.org/2000/svg"></svg>'], ["# a & b < c", "x"])
    page = (tmp_path / "report.html").read_text()
    assert page.startswith("<!doctype html>") and pages.CSS[:40] in page
    assert "<div><svg" in page and "<pre># a &amp; b &lt; c\nx</pre>" in page
