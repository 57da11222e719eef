"""The quick run's rules (analysis/quick.py) on readings made up to sit on either side of each threshold, and its
pages (report/quick_report.py): the opening's eight lines, no CANNOT DECIDE, the charts."""
import json
import os
import shutil
import subprocess
from collections import Counter

import pytest

from harness.analysis import quick
from harness.analysis.quick import WAIT_LEVELS, Held, QuickRun, Reading
from harness.report import quick_report
from harness.report.charts import mode_color


def reading(series, rate, rep, ok=1.0, p99=510.0, cpu=0.4):
    return Reading(series, float(rate), rep, ok, 505.0, p99, cpu, 40, 300.0, 2.0)


def run_of(worker_ok=0.66, worker_p99=1500.0, virtual_ok=1.0, cpu=(0.44, 0.46)):
    run = QuickRun({"cores": 2, "quarkus": "3.33.2", "app_java": "25.0.3"}, 200, warm={"seconds": 30, "jit_pct": 4},
                   order=["virtual", "worker", "reactive"])
    low, high = run.rates
    for rep in (1, 2):
        run.readings += [reading("virtual", low, rep, cpu=cpu[rep - 1]), reading("worker", low, rep),
                         reading("reactive", low, rep, cpu=0.40),
                         reading("virtual", high, rep, ok=virtual_ok), reading("reactive", high, rep),
                         reading("worker", high, rep, ok=worker_ok, p99=worker_p99)]
    lo, hi = WAIT_LEVELS
    run.held = [Held("virtual", lo, lo, 1.0, 40.0, 300.0, 45, 1.0),
                Held("virtual", hi, hi, 1.0, 48.0, 320.0, 46, 1.0),
                Held("reactive", lo, lo, 1.0, 38.0, 290.0, 30, 1.0),
                Held("reactive", hi, hi, 1.0, 44.0, 300.0, 30, 1.0),
                Held("worker", lo, lo, 1.0, 40.0, 300.0, 140, 1.0), Held("worker", hi, 600, 0.6, 41.0, 330.0, 240, 1.0)]
    return run


def test_the_bound_is_littles_law_and_the_rates_sit_either_side():
    run = run_of()
    assert run.bound == 400 and run.rates == (200, 800)


def test_the_ceiling_is_decided_only_when_every_repetition_splits_the_same_way():
    assert quick.ceiling(run_of()).decided
    assert quick.kept(run_of(), "worker") == "behind" and quick.kept(run_of(), "virtual") == "kept"
    assert not quick.ceiling(run_of(worker_ok=1.0, worker_p99=520.0)).decided   # worker kept up: nothing to decide
    assert not quick.ceiling(run_of(virtual_ok=0.97)).decided                   # virtual neither kept up nor fell
    assert quick.kept(run_of(virtual_ok=0.97), "virtual") == "unclear"


def test_threads_decided_when_the_others_hold_every_request_on_few_threads_and_the_worker_pool_cannot():
    threads, memory = quick.waiting(run_of())
    assert threads.decided and "virtual held 1,000 on 46 OS threads" in threads.text
    assert "worker held 600" in threads.text
    assert not memory.decided and "virtual 9.1 KiB" in memory.text      # (48 - 40) MiB over 900 more held
    run = run_of()
    run.held = [h if h.series != "virtual" or h.level == WAIT_LEVELS[0] else
                Held(h.series, h.level, h.in_flight, 1.0, 40.0, 300.0, 1045, 1.0) for h in run.held]
    assert not quick.waiting(run)[0].decided                               # virtual took a thread each too
    run = run_of()
    run.held = [h if h.series != "worker" or h.level == WAIT_LEVELS[0] else
                Held(h.series, h.level, 1000, 1.0, 40.0, 300.0, 240, 1.0) for h in run.held]
    assert not quick.waiting(run)[0].decided                               # the worker pool held them all


def test_the_opening_is_at_most_eight_lines_with_a_decided_finding_and_never_cannot_decide(tmp_path):
    run = run_of()
    run.thread_facts = [{"name": "start", "unit": "us", "platform": 60.0, "platform_low": 55.0, "platform_high": 65.0,
                         "virtual": 1.0, "virtual_low": 0.9, "virtual_high": 1.1, "ratio": 60.0, "ratio_low": 50.0,
                         "ratio_high": 72.0, "stated": "about 1 ms vs 1 us", "decided": True,
                         "sentence": "Starting a thread: platform 60 us, virtual 1.0 us, 60x [50, 72]"}]
    run.facts.update(command="load/compare.sh --quick", took_s=170)
    head = quick_report.opening(run)
    assert len(head) <= quick_report.OPENING_MAX and sum(line.startswith("Decided:") for line in head) >= 2
    assert head[-1].startswith("Not decided in three minutes: memory per waiting request between the modes, CPU")
    assert "--design duet" in head[-1]
    assert quick_report.publish(run, str(tmp_path)) == 0
    md = (tmp_path / "summary.md").read_text()
    assert md.splitlines()[:len(head)] == head and "CANNOT DECIDE" not in md
    assert md.index("## How this was measured") > md.index("## What a thread costs (JMH)")
    html = (tmp_path / "report.html").read_text()
    assert html.count("<svg") == 4 and "Quick run" in html
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["design"] == "quick" and {f["topic"] for f in data["findings"]} >= {"ceiling", "threads", "start"}


def test_nothing_decided_is_said_in_words():
    run = run_of(worker_ok=1.0, worker_p99=520.0)
    run.held = []
    head = quick_report.opening(run)
    assert "Nothing was decided" in head[2] and all("CANNOT" not in line for line in head)


def test_the_jit_note_names_every_step_over_the_limit():
    run = run_of()
    run.readings.append(Reading("worker", 800.0, 3, 0.6, 900.0, 1500.0, 0.5, 200, 320.0, 14.0))
    top, over = quick.jit_note(run)
    assert top == 14.0 and over == ["worker 800 req/s 14 %"]


def test_report_html_draws_its_charts_in_a_real_browser(tmp_path):
    """report.html as a person sees it: a headless Chromium's screenshot holds every mode's colour in the pixels of its
    charts' lines and points, far more than the legends alone would give."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not browser:
        if os.environ.get("CI"):
            pytest.fail("CI needs chromium (apt-get install chromium): .ci/run installs it")
        pytest.skip("no chromium here (apt-get install chromium)")
    from PIL import Image

    assert quick_report.publish(run_of(), str(tmp_path)) == 0
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1400,1000", f"--screenshot={shot}", (tmp_path / "report.html").as_uri()],
                   capture_output=True, timeout=120, check=True)
    colours = Counter(Image.open(shot).convert("RGB").get_flattened_data())
    for mode in ("virtual", "worker", "reactive"):
        rgb = tuple(int(mode_color(mode, [mode])[i:i + 2], 16) for i in (1, 3, 5))
        assert colours[rgb] > 400, (mode, rgb)   # the legends' lines alone: about 130 pixels; drawn here 700-1,200


def test_a_dry_run_prints_the_stages_and_their_time(capsys):
    from harness import cli
    assert cli.main(["compare", "--quick", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "1. thread costs (JMH)" in out and "6. the report" in out and "minutes" in out
    assert cli.main(["compare", "--quick", "--design", "interleaved", "--dry-run"]) == 0   # that design, shortened
    assert "thread costs" not in capsys.readouterr().out
