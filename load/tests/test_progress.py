"""The progress display: one plain line per step without a terminal, a live panel with the same facts on one."""
import io

from rich.console import Console

from harness.infra import procs, progress
from harness.runs import plan


def test_plain_line_per_step(capsys):
    with progress.Progress(3, live=False) as p:
        p.step(2, plan.Step("virtual", "io", "vegeta", 500), 75, " req/s")
        p.headline("vegeta io virtual 500 req/s: 500 ok/s")
    err = capsys.readouterr().err
    assert "step 2/3: io virtual vegeta 500 req/s, elapsed 0:00, ~1:15 left" in err


def test_live_panel_shows_step_eta_and_last_headline():
    with progress.Progress(117, live=True) as p:
        p.console = Console(file=io.StringIO(), force_terminal=True, width=120)
        p.step(5, plan.Step("worker", "fanout", "hey", 100, "FANOUT_CALLS=10"), 3725, " in flight")
        p.headline("hey fanout worker 100 in flight: 90 ok/s")
        out = io.StringIO()
        Console(file=out, width=120).print(p._panel())
        procs.log("a log line goes above the panel")
    text = out.getvalue()
    assert "5/117" in text and "fanout worker hey 100 in flight FANOUT_CALLS=10" in text
    assert "1h02 left" in text and "90 ok/s" in text
    assert progress.clock(59) == "0:59" and progress.clock(3600) == "1h00"
