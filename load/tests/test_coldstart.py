"""`--experiment coldstart` (analysis/coldstart.py, runs/coldstart.py, report/coldstart_report.py): the seconds of a
start from Vegeta's raw results, when a start settled, the means over the starts and their intervals, the pages; the
last test runs it for real (slow)."""
import json
import os
import subprocess

import pytest
from scipy import stats

from harness import cli
from harness.analysis import coldstart
from harness.analysis.coldstart import ColdRun, Second, Start, Warm, of_json, rows, seconds_of
from harness.infra.errors import Fatal
from harness.report import coldstart_report
from harness.runs import coldstart as runner
from harness.runs import plan

LOAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

S = 1_000_000_000


def vegeta_csv(rows_):
    """`vegeta encode -to csv` lines: (sent at s, status, latency ms, error)."""
    return "".join(f"{int(t * S) + 5},{code},{int(ms * 1e6)},0,10,{err},,\n" for t, code, ms, err in rows_)


def test_a_request_counts_in_the_second_it_was_sent():
    text = vegeta_csv([(0.0, 200, 100, ""), (0.5, 200, 1500, ""), (0.9, 503, 2, "503 Service Unavailable"),
                       (1.2, 200, 110, ""), (1.7, 0, 30000, "timeout"), (2.5, 200, 90, "")])
    secs = seconds_of(text, [(0, 900.0, 400.0), (1, 800.0, 100.0)], 3)
    assert [(s.t, s.sent, s.ok, s.late, s.refused) for s in secs] == [(0, 3, 2, 1, 1), (1, 2, 1, 1, 1),
                                                                      (2, 1, 1, 0, 0)]
    assert secs[0].p99_ms == pytest.approx(1486, abs=1) and secs[1].p50_ms == 110.0
    assert (secs[0].cpu_ms, secs[0].jit_ms, secs[2].cpu_ms) == (900.0, 400.0, 0.0)   # no reading: none spent
    assert seconds_of("", [], 3) == []


def second(t, p99, sent=100, ok=100, cpu=500.0):
    return Second(t, sent, ok, 0, sent - ok, p99 / 2, p99, cpu, 0.0)


def start(p99s, n=1, way="jvm", series="virtual", ready_cpu=4000.0):
    return Start(series, way, n, 3000, ready_cpu, [second(t, v) for t, v in enumerate(p99s)])


def test_settled_is_the_second_from_which_every_p99_stays_within_1_5x_warm():
    warm = 100.0
    assert start([900, 400, 140, 120, 149, 110, 105, 101]).settle_s(warm) == 2
    assert start([900, 140, 120, 151, 110, 105, 101, 100, 100]).settle_s(warm) == 4   # a later second over: later
    assert start([900, 400, 300, 200, 160, 140, 120]).settle_s(warm) is None      # within for 2 s only: not settled
    assert start([900, 900, 900]).settle_s(warm) is None
    refused = start([120] * 9)
    refused.seconds[3] = second(3, 120, sent=100, ok=99)                           # a refused request: not settled
    assert refused.settle_s(warm) == 4
    assert coldstart.HELD_S == 5 and coldstart.SETTLE_X == 1.5


def test_cpu_until_settled_counts_from_the_process_start():
    s = start([900, 400, 120, 120, 120, 120, 120], ready_cpu=4000.0)
    assert s.cpu_until_ms(2) == 4000 + 2 * 500 and s.cpu_until_ms(None) == 4000 + 7 * 500


def run_of(quick=False):
    run = ColdRun(1000, 8, [Warm("virtual", 2000, 100.0, 3.0), Warm("reactive", 2800, 110.0, 3.0)],
                  missing={"native": "no native executable here"},
                  facts={"quarkus": "3.33.2", "cores": 2, "cpu": "x", "memory_mib": 2048, "jdk": "25",
                         "command": "load/compare.sh --experiment coldstart", "seed": 1, "took_s": 60})
    for n, shift in ((1, 0), (2, 1), (3, 0)):
        run.starts += [start([900] * (1 + shift) + [120] * (7 - shift), n, "jvm"),
                       start([120] * 8, n, "aot"),
                       start([900] * 8, n, "jvm", "reactive"),
                       start([900] * (2 + shift) + [130] * (6 - shift), n, "aot", "reactive")]
    return run


def test_rows_give_each_series_and_way_its_mean_with_a_t_interval():
    rs = {(r.series, r.way): r for r in rows(run_of())}
    assert list(rs) == [("virtual", "jvm"), ("virtual", "aot"), ("reactive", "jvm"), ("reactive", "aot")]
    v = rs["virtual", "jvm"]
    half = stats.t.ppf(0.975, 2) * stats.tstd([1, 2, 1]) / 3 ** 0.5
    assert v.settled == 3 and v.settle_s.mean == pytest.approx(4 / 3) and v.settle_s.hi == pytest.approx(4 / 3 + half)
    never = rs["reactive", "jvm"]
    assert never.settled == 0 and never.settle_s is None and never.cpu_s.mean == pytest.approx(4 + 8 * 0.5)
    assert rs["virtual", "aot"].settle_s.text() == "0 [0, 0]"


def test_the_opening_says_what_ran_what_settled_and_what_could_not_run():
    head = coldstart_report.opening(run_of())
    assert len(head) <= 8 and head[0] == ("# The first minute under load: 0 requests answered late per start on "
                                         "the plain JVM, 0 with the AOT cache; reactive on the plain JVM did not "
                                         "settle within 8 s")
    text = "\n".join(head)
    assert "1,000 req/s of io for 8 s" in text and "fresh 3 times each way" in text
    assert "reactive did not settle within 8 s in any of 3 starts" in text
    assert "The plain JVM: virtual settled in 1 [0, 3] s" in text
    assert ("Against the plain JVM, seconds sooner settled from the process's start: JVM with its AOT cache: virtual "
            "+1 s [-0, +3] (not resolved), reactive +6 s [+4, +7] (sooner).") in text
    assert "Not run: the native executable (no native executable here)." in text


def test_publish_writes_the_run_once_and_reads_back_the_same(tmp_path, capsys):
    run = run_of()
    assert coldstart_report.publish(run, str(tmp_path)) == 0
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["design"] == "coldstart" and len(data["rows"]) == 4 and len(data["starts"]) == 12
    assert data["starts"][0]["seconds"]["fields"][:3] == ["t", "sent", "ok"]          # a table: the names once
    back = of_json(data)
    assert rows(back) == rows(run)
    md = (tmp_path / "summary.md").read_text()
    assert md.startswith(coldstart_report.opening(run)[0]) and md.rstrip().splitlines()[-1].startswith("- A start")
    html = (tmp_path / "report.html").read_text()
    assert html.count("<svg") == 5 and "1.5x warm p99" in html
    assert capsys.readouterr().out.strip().splitlines() == coldstart_report.opening(run)


def settings(*argv):
    return plan.settings(cli.compare_parser().parse(["--seed", "7", "--experiment", "coldstart", *argv]))


def test_the_preset_is_io_in_every_mode_with_late_answers_measured():
    s = settings()
    assert s.scenarios == ("io",) and s.modes == ("virtual", "reactive", "worker") and s.timeout == "30s"
    assert s.tools == ("vegeta",) and s.aa == ""
    with pytest.raises(Fatal, match="starts takes a whole number"):
        runner.run(s, "/tmp/x", "", starts="0")


def test_dry_run_gives_the_stages_and_their_time(capsys):
    assert runner.run(settings("--dry-run", "--quick"), "/tmp/x", "", None, 60) == 0
    out = capsys.readouterr().out
    assert "5. cold starts: about 1386 s" in out and "minutes" in out


@pytest.mark.slow
def test_compare_coldstart_end_to_end(launcher, tmp_path):
    """`--experiment coldstart` cut short (one mode, one start each way, 8 s at a set rate): exit 0, the per-second
    p99 and the settling time of the plain JVM, of the one ready once warm and of the AOT cache in summary.json, the
    native way named as not run."""
    r = subprocess.run(["./compare.sh", "--experiment", "coldstart", "--modes", "virtual", "--set", "starts=1",
                        "--duration", "8s", "--rates", "200", "--seed", "5", "--out", str(tmp_path / "run")],
                       cwd=LOAD, env=launcher.env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    data = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert data["design"] == "coldstart" and data["rate"] == 200
    ways = {("virtual", "jvm"), ("virtual", "warm"), ("virtual", "aot")}
    assert {(s["series"], s["way"]) for s in data["starts"]} == ways
    for s in coldstart.of_json(data).starts:
        assert len(s.seconds) == 8 and all(x.sent > 150 for x in s.seconds) and s.ready_ms > 0
        assert any(x.p99_ms for x in s.seconds)
    assert {(x["series"], x["way"]) for x in data["rows"]} == ways
    assert all("settle_s" in x for x in data["rows"]) and "native" in data["missing"]
    assert (tmp_path / "run" / "report.html").read_text().count("<svg") == 4
    assert not launcher.running()


def test_the_committed_run_renders_as_published():
    """docs/results/coldstart-2026-11-28 (docs/startup.md quotes it): its summary.json, read back, gives the same
    summary.md and the figures the page quotes."""
    d = os.path.join(os.path.dirname(LOAD), "docs", "results", "coldstart-2026-11-28")
    with open(os.path.join(d, "summary.json")) as f:
        run = of_json(json.load(f))
    with open(os.path.join(d, "summary.md")) as f:
        assert f.read() == coldstart_report.markdown(run)
    late = {(r.series, r.way): round(r.late.mean) for r in rows(run)}
    assert late["virtual", "jvm"] == 1422 and late["reactive", "jvm"] == 1715 and late["worker", "warm"] == 0
    assert run.rate == 700 and len(run.starts) == 45
