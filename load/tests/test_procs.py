"""procs.py with real processes: trees stopped, a process that ignores SIGTERM killed, everything stopped on error."""
import http.server
import os
import signal
import sys
import threading
import time

import psutil
import pytest

from harness.infra import procs

# a shell that starts a grandchild and ignores SIGTERM, as a stuck JVM would
STUBBORN = "trap '' TERM; sleep 300 & wait"


def gone(pid):
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_stop_reaches_the_whole_tree_and_kills_what_ignores_sigterm(tmp_path):
    with procs.Procs() as ps:
        p = ps.start("stubborn", ["bash", "-c", STUBBORN], log_path=tmp_path / "log")
        deadline = time.monotonic() + 10
        while not psutil.Process(p.pid).children() and time.monotonic() < deadline:
            time.sleep(0.05)
        tree = [p.pid] + [c.pid for c in psutil.Process(p.pid).children(recursive=True)]
        t0 = time.monotonic()
        ps.stop(p, grace_s=1)
        assert time.monotonic() - t0 < 5
        assert all(gone(pid) for pid in tree) and not ps.running


def test_everything_is_stopped_when_the_run_fails(tmp_path):
    pids = []
    with pytest.raises(RuntimeError), procs.Procs() as ps:
        for i in range(3):
            pids.append(ps.start(f"sleep {i}", ["sleep", "300"]).pid)
        ps.adopt("daemon", ps.start("daemon", ["sleep", "300"]).pid)
        raise RuntimeError("a step failed")
    assert all(gone(pid) for pid in pids)


def test_sigterm_to_the_runner_stops_its_processes(tmp_path):
    code = ("import sys, time; from harness.infra import procs\n"
            "with procs.Procs() as ps:\n"
            "    p = ps.start('child', ['sleep', '300'])\n"
            "    print(p.pid, flush=True)\n"
            "    time.sleep(300)\n")
    runner = psutil.Popen([sys.executable, "-c", code], stdout=-1, text=True)
    child = int(runner.stdout.readline())
    runner.send_signal(signal.SIGTERM)
    assert runner.wait(10) != 0
    assert gone(child)


def test_run_times_out_with_124_and_reports_exit_status():
    with procs.Procs() as ps:
        assert ps.run("false", ["false"]) == 1
        t0 = time.monotonic()
        assert ps.run("sleep", ["sleep", "30"], timeout=0.5) == 124
        assert time.monotonic() - t0 < 8


def test_free_port_never_hands_out_a_port_twice_before_a_server_binds_it():
    ports = [procs.free_port() for _ in range(500)]     # none bound: each still free when the next is asked
    assert len(set(ports)) == 500


def test_free_port_and_wait_ready():
    port = procs.free_port()
    assert procs.port_free(port) and port < 32768
    server = http.server.HTTPServer(("127.0.0.1", port), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert not procs.port_free(port)
        assert procs.wait_ready(None, f"http://127.0.0.1:{port}/", 5)
        assert procs.http_status(f"http://127.0.0.1:{port}/no-such-file") == 404
    finally:
        server.shutdown()
        server.server_close()
    assert procs.http_status(f"http://127.0.0.1:{port}/", timeout=0.5) == 0


def test_wait_ready_gives_up_at_once_when_the_process_exited():
    with procs.Procs() as ps:
        p = ps.start("exits", ["true"])
        p.wait(5)
        t0 = time.monotonic()
        assert not procs.wait_ready(p, f"http://127.0.0.1:{procs.free_port()}/", 30)
        assert time.monotonic() - t0 < 3


def test_log_lines_and_tail(tmp_path, capsys):
    procs.log("hello")
    assert capsys.readouterr().err.endswith("hello\n")
    f = tmp_path / "x.log"
    f.write_text("".join(f"{i}\n" for i in range(30)))
    assert procs.tail(f, 2) == "28\n29\n" and procs.tail(tmp_path / "none") == ""
    assert os.path.exists(f)
