"""Tests of harness/report.py: summaries (CSV, JSON, Markdown) and report.html of a run, medians, figures, the CLI,
and a published (archived) result read back."""
import csv
import html.parser
import json
import os
import shutil
import tarfile

import pytest

from harness import cli
from harness.analysis import steps
from harness.report import archive, contents, run_text, summary_files
from harness.report import summaries as report

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
SETTINGS = {"quarkus.thread-pool.max-threads": "100", "quarkus.thread-pool.queue-size": "400",
            "bench.max-in-flight": "5000", "quarkus.datasource.jdbc.max-size": "20"}


@pytest.fixture(autouse=True)
def no_vegeta(monkeypatch):
    monkeypatch.setattr(steps, "vegeta_bin", lambda: None)


@pytest.fixture
def run(tmp_path):
    """A run folder with the three fixture steps and the machine.json of an app that told its settings."""
    d = tmp_path / "run"
    for i, name in enumerate(("vegeta-ok", "vegeta-flags", "hey-errors")):
        shutil.copytree(os.path.join(FIX, name), d / "steps" / f"{i:02d}-{name}")
    (d / "machine.json").write_text(json.dumps({"cores": 2, "cpu": "Test CPU", "started": "2026-11-22T20:00:00Z",
                                                "settings": SETTINGS, "mode_order": ["worker", "reactive"],
                                                "command": "load/compare.sh --quick", "reuse": "1"}))
    return d


class Page(html.parser.HTMLParser):
    """The tags and text of a page, and whether every opened element was closed."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.text, self.open = [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in ("meta", "br", "path", "line", "circle", "rect", "input"):
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()

    def handle_data(self, data):
        self.text.append(data)


def test_build_writes_every_summary_and_a_well_formed_report(run, capsys):
    report.build(str(run))
    assert "3 steps, 2 flagged" in capsys.readouterr().out
    with open(run / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["mode"] for r in rows] == ["worker+socket", "reactive", "reactive"]   # Vegeta first, then hey
    assert list(rows[0]) == steps.FIELDS
    data = json.loads((run / "summary.json").read_text())
    assert data["machine"]["settings"] == SETTINGS and len(data["rows"]) == 3
    md = (run / "summary.md").read_text()
    assert "worker threads 100, worker queue 400" in md and "requests in progress per mode 5000" in md
    assert "## io (`delay=100&calls=1`)" in md and "## Flagged steps" in md
    assert "100 threads / request time = 1,000 req/s" in md         # the ceiling from the app's own pool size
    page = Page((run / "report.html").read_text())
    assert page.open == []
    text = " ".join(page.text)
    assert "worker threads 100" in text and "Test CPU" in text and "One app served every mode" in text
    assert sum(1 for t, _ in page.tags if t == "svg") >= 9
    tips = json.loads(text.split("const TIPS = ", 1)[1].split(";\n", 1)[0])
    assert len(tips) == 3 and any(t.startswith("worker+socket vegeta 4000") for t in tips)
    assert all(int(a["data-t"]) < len(tips) for t, a in page.tags if "data-t" in a)


def test_text_from_steps_is_escaped(run):
    meta = json.loads((run / "machine.json").read_text())
    meta["command"] = "<script>alert(1)</script>"
    (run / "machine.json").write_text(json.dumps(meta))
    report.build(str(run))
    page = (run / "report.html").read_text()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page


def test_medians_of_two_runs_and_the_readme_figures(run, tmp_path):
    report.build(str(run))
    other = tmp_path / "run2"
    shutil.copytree(run, other)
    out = tmp_path / "median"
    report.median(str(out), [str(run), str(other)])
    meta = json.loads((out / "machine.json").read_text())
    assert meta["command"].startswith("medians of 2 runs") and len(meta["mode_order"]) == 2
    assert "summary.md" in os.listdir(out) and "report.html" in os.listdir(out)
    report.figures(str(out), str(tmp_path / "fig"), 200)
    for name in ("io-p99.svg", "io-throughput.svg"):
        assert "<style>" in (tmp_path / "fig" / name).read_text()
    assert "<title>" in (tmp_path / "fig" / "io-throughput.svg").read_text()   # standalone: its own hover texts


def test_a_run_without_steps_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit, match="no steps found"):
        report.build(str(tmp_path))
    with pytest.raises(SystemExit, match="no summary.json"):
        report.median(str(tmp_path / "out"), [str(tmp_path)])
    # a step folder that is not one: an error line, once a stack trace
    assert cli.main(["report", "step", str(tmp_path)]) == 1
    assert "error: no step in" in capsys.readouterr().err


def test_settings_missing_from_an_app_show_as_unknown():
    assert run_text.settings_text({}).startswith("worker threads ?, worker queue ?")
    assert report.worker_pool_of({}) == 200 and report.worker_pool_of({"settings": SETTINGS}) == 100


def test_cli_step_hey_summary_machine_and_publish(run, tmp_path, capsys, http_server):
    assert report.main(["step", str(run / "steps" / "02-hey-errors")]) == 3      # errors: exit 3
    assert "hey" in capsys.readouterr().out
    assert report.main(["hey-summary", os.path.join(FIX, "hey-errors", "results.csv")]) == 0
    assert "latency ms: p50" in capsys.readouterr().out
    base, routes = http_server
    routes["/q/info"] = (200, {"settings": SETTINGS, "build": {"quarkusVersion": "3.30.6"}})
    assert report.main(["machine", "--app-url", base, "--set", "app=jvm", "--list", "modes=a,b"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["settings"] == SETTINGS and facts["quarkus"] == "3.30.6"
    assert facts["app"] == "jvm" and facts["modes"] == ["a", "b"]
    report.main(["build", str(run)])
    dest = tmp_path / "published"
    assert report.main(["publish", str(run), str(dest)]) == 0          # the pages only: no raw data, no archive
    assert sorted(os.listdir(dest)) == ["machine.json", "report.html", "summary.json", "summary.md"]
    assert "the raw files stay in" in capsys.readouterr().out
    before = json.loads((dest / "summary.json").read_text())
    assert report.main(["render", str(dest)]) == 0                     # again from its summary.json
    assert json.loads((dest / "summary.json").read_text()) == before
    # a result published before kept its steps in steps.tar.xz (commit 9b7f301): it builds again from that archive
    old = tmp_path / "old"
    shutil.copytree(run, old, ignore=shutil.ignore_patterns("steps"))
    with tarfile.open(old / archive.ARCHIVE, "w:xz") as tar:
        tar.add(run / "steps", arcname="steps")
    report.build(str(old))
    assert json.loads((old / "summary.json").read_text()) == before
    with pytest.raises(SystemExit):
        report.main(["nope"])


def test_rewriting_a_published_interleaved_result_keeps_its_verdicts(tmp_path):
    # a published result has no verdicts.json beside it (it is in steps.tar.xz): its summary.json is the source
    with open(os.path.join(os.path.dirname(FIX), "..", "..", "docs", "results", "verdicts-default-2026-11-27c",
                           "summary.json")) as f:
        published = json.load(f)
    design, entry = published["design"], published["verdicts"][0]
    (tmp_path / "summary.json").write_text(json.dumps({"verdicts": [entry], "design": design, "design_broken": None,
                                                       "skipped": [], "machine": {}, "rows": []}))
    summary_files.write_csv_json(str(tmp_path), contents.of(str(tmp_path), [], {}))
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["design"] == design and data["verdicts"][0]["target"] == entry["target"]
