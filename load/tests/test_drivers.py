"""The drivers' one interface: what each starts (its command line), and the Result it reads back from its files."""
import os
import stat

import pytest

from harness.drivers import DRIVERS, Hey, Vegeta, driver
from harness.drivers.base import Load, Result, Target, loopback_source
from harness.drivers.hey import rows, summary
from harness.drivers.vegeta import from_csv
from harness.infra import procs

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def recorder(tmp_path):
    """A stand-in binary that records its arguments (one a line) and prints a CSV line, as the tools write."""
    path = tmp_path / "tool"
    path.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path}/argv\necho "response-time,status-code,offset"\n')
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_every_driver_has_the_interface():
    assert set(DRIVERS) == {"vegeta", "hyperfoil", "hey"} and isinstance(driver("hey", "/bin/hey"), Hey)
    for cls in DRIVERS.values():
        assert cls.model in ("rate", "concurrency") and all(callable(getattr(cls, m)) for m in
                                                            ("start", "finish", "result"))


def test_vegeta_sends_at_a_rate_from_a_loopback_source_and_writes_a_body_beside_its_targets(tmp_path):
    v = Vegeta(recorder(tmp_path))
    target = Target("POST", "http://127.0.0.1:9/virtual/orders?delay=5", '{"a":1}')
    with procs.Procs() as ps:
        assert v.start(ps, target, Load(250, 1500, 2.5, ("-h2c",)), str(tmp_path / "r"), name="x").wait(10) == 0
    argv = (tmp_path / "argv").read_text().split("\n")
    assert argv[0] == "attack" and argv[argv.index("-rate") + 1] == "250/1s"
    assert argv[argv.index("-duration") + 1] == "1500ms" and argv[argv.index("-timeout") + 1] == "2.5s"
    assert argv[argv.index("-output") + 1] == str(tmp_path / "r.bin") and "-h2c" in argv
    assert argv[argv.index("-laddr") + 1].startswith("127.0.0.")
    assert (tmp_path / "r.targets").read_text().startswith("POST http://127.0.0.1:9/virtual/orders?delay=5\n"
                                                            "Content-Type: application/json\n@")
    assert (tmp_path / "r-body-0.json").read_text() == '{"a":1}'


def test_hey_keeps_n_in_flight_and_its_csv_is_the_result(tmp_path):
    h = Hey(recorder(tmp_path))
    with procs.Procs() as ps:
        assert h.start(ps, Target("GET", "http://127.0.0.1:9/io"), Load(40, 2000, 0.2), str(tmp_path / "r")) \
            .wait(10) == 0
    argv = (tmp_path / "argv").read_text().split("\n")
    assert argv[:6] == ["-z", "2000ms", "-c", "40", "-t", "1"] and argv[-2] == "http://127.0.0.1:9/io"
    (tmp_path / "r.csv").write_text("response-time,DNS+dialup,status-code,offset\n0.1,0,200,0.5\n0.3,0,503,1.0\n"
                                    "bad,row\n")
    res = h.finish(str(tmp_path / "r"), str(tmp_path / "log"))
    assert (res.requests, res.ok, res.status) == (2, 1, {"200": 1, "503": 1})
    assert res.percentile_ms(50) == pytest.approx(100, rel=1e-3) and res.max_ms == pytest.approx(300)
    assert "requests 2 " in (tmp_path / "log").read_text() and rows(str(tmp_path / "none.csv")) == []
    assert summary(str(tmp_path / "none.csv")) == ["no answered requests"]


def test_vegeta_results_leave_out_the_ramp_in_but_count_its_status_and_errors():
    with open(os.path.join(FIX, "vegeta.csv")) as f:
        res = from_csv(f.read(), ramp_in_s=0.05)
    assert res.requests == 5 and res.every_ms.get_total_count() == 6 and res.ok == 3
    assert res.status == {"200": 4, "503": 1, "0": 1} and res.send_rate > 0
    assert from_csv("").requests == 0 and from_csv("").percentile_ms(99) is None


def test_sub_millisecond_latencies():
    res = Result("x")
    for ms in (0.25, 0.25, 1000.0):
        res.record(ms, ok=ms < 1)
    assert res.percentile_ms(50) == pytest.approx(0.25, rel=1e-2) and res.ok == 2 and res.requests == 3


def test_a_loopback_source_only_for_a_loopback_target():
    assert loopback_source("http://localhost:8080/x").startswith("127.0.0.")
    assert loopback_source("http://10.0.0.5:8080/x") is None
