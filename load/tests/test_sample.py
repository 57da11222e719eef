"""Tests of harness/sample.py on real processes: one reading, the scrape cost, and a sampling run that ends when its
process does."""
import json
import os
import subprocess
import sys

from harness.sampling import sample

METRICS = """jvm_memory_used_bytes{area="heap",id="eden"} 1048576.0
agroal_active_count{datasource="default"} 3.0
sql_pool_active{pool_type="sql",pool_name="x"} 2.0
worker_pool_active{pool_name="vert.x-worker-thread"} 7.0
process_cpu_time_ns_total 5000000.0
"""


def test_one_reading_of_this_process(capsys):
    assert sample.main(["--pid", str(os.getpid()), "--once"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["cpu_ms"] > 0 and r["rss_kb"] > 0 and r["threads"] >= 1 and r["jit_ms"] == 0.0


def test_jvm_figures_from_metrics():
    m = sample.jvm_metrics(METRICS)
    assert m["heap_bytes"] == 1048576.0 and m["pool_active"] == 5.0 and m["worker_active"] == 7.0
    assert m["process_cpu_ms"] == 5.0 and m["pinned"] is None and m["pool_awaiting"] is None


def test_scrape_cost_and_a_failed_scrape(http_server, capsys):
    base, routes = http_server
    routes["/q/metrics"] = (200, METRICS)
    assert sample.main(["--pid", str(os.getpid()), "--scrape-cost", base + "/q/metrics"]) == 0
    assert json.loads(capsys.readouterr().out)["scrape_cpu_ms"] >= 0
    assert sample.scrape(base + "/nope") is None


def test_sampling_ends_with_its_process_and_keeps_both_ends(tmp_path, http_server):
    base, routes = http_server
    routes["/q/metrics"] = (200, METRICS)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.2)"])
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        out = tmp_path / "samples.jsonl"
        assert sample.main(["--pid", str(child.pid), "--out", str(out), "--interval", "0.1", "--metrics",
                            base + "/q/metrics", "--metrics-interval", "0.2", "--also", f"delay={other.pid}",
                            "--also", "gone=999999999"]) == 0
    finally:
        child.wait()
        other.kill()
        other.wait()
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) >= 3
    assert "host_busy_ms" in rows[0] and "delay_cpu_ms" in rows[0] and "gone_cpu_ms" not in rows[0]
    assert any(r.get("metrics", {}).get("heap_bytes") == 1048576.0 for r in rows)
    assert rows[-1]["scrapes"] >= 1


def test_a_remote_app_is_sampled_from_its_metrics_alone(tmp_path, http_server):
    base, routes = http_server
    calls = []

    def metrics():
        calls.append(1)
        return (200, METRICS) if len(calls) < 4 else (500, "")
    routes["/q/metrics"] = metrics
    out = tmp_path / "remote.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "harness.sampling.sample", "--metrics", base + "/q/metrics", "--out",
                             str(out), "--interval", "0.05"], cwd=os.path.dirname(os.path.dirname(__file__)))
    try:
        import time
        deadline = time.time() + 20
        while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 5):
            time.sleep(0.05)
    finally:
        proc.terminate()
        assert proc.wait(10) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows[0]["metrics"]["process_cpu_ms"] == 5.0 and "host_busy_ms" in rows[0]
