"""Tests of `compare --profile`'s parts: the flame graph (report/flamegraph.py), where the CPU goes and the frames
that differ (analysis/profiles.py) on known stacks, the report section, and async-profiler attached to a real JVM
(infra/profiler.py)."""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

from harness.analysis import profiles
from harness.infra import procs, profiler, tools
from harness.infra.errors import Fatal
from harness.report import flamegraph, profile_report

# the floor: the bare process's stacks plus a metrics layer under the HTTP handler (hex addresses differ by process)
BARE = """[vert.x-eventloop-thread-0 tid=11];io/netty/Loop.run;io/vertx/Http.handle;org/vtvr/floor/FloorWork.io 60
[vert.x-eventloop-thread-0 tid=11];io/netty/Loop.run;epoll_wait 30
[C2 CompilerThread0 tid=12];C2Compiler::compile 10
"""
FLOOR = """[vert.x-eventloop-thread-1 tid=21];io/netty/Loop.run;io/vertx/Http.handle;org/vtvr/floor/FloorWork.io 60
[vert.x-eventloop-thread-1 tid=21];io/netty/Loop.run;io/vertx/Http.handle;io/micrometer/Timer.record;\
io/micrometer/Clock$$Lambda.0x00007f01.now 25
[vert.x-eventloop-thread-1 tid=21];io/netty/Loop.run;io/vertx/Http.handle;io/micrometer/Timer.record;\
io/micrometer/Tags.of 15
[vert.x-eventloop-thread-1 tid=21];io/netty/Loop.run;epoll_wait 30
[C2 CompilerThread0 tid=22];C2Compiler::compile 10
"""


def write_trial(root, name, series, stacks, block=0):
    d = root / "trials" / name
    d.mkdir(parents=True)
    (d / "meta.json").write_text(json.dumps({"scenario": "io", "load": 2500, "series": series, "block": block}))
    (d / profiles.TRIAL_FILE).write_text(stacks)
    return str(d)


def records(**cpu):
    return [{"scenario": "io", "rate": 2500.0, "series": s, "cpu_ms_per_req": ms} for s, ms in cpu.items()]


def test_read_turns_threads_into_kinds_and_drops_hidden_class_addresses(tmp_path):
    f = tmp_path / "p.collapsed"
    f.write_text(FLOOR)
    stacks = profiles.read(str(f))
    assert stacks[("event loop", "io/netty/Loop.run", "epoll_wait")] == 30
    assert stacks[("event loop", "io/netty/Loop.run", "io/vertx/Http.handle", "io/micrometer/Timer.record",
                   "io/micrometer/Clock$$Lambda.0x.now")] == 25
    assert sum(stacks.values()) == 140


def test_the_frames_that_differ_are_where_the_cpu_is_spent(tmp_path):
    dirs = [write_trial(tmp_path, "0001-b00-io-2500-bare", "bare", BARE),
            write_trial(tmp_path, "0002-b00-io-2500-floor", "floor", FLOOR)]
    # the floor spends 140 samples where bare spends 100, at 1.4x the CPU per request: the same per sample
    data = profiles.analyse(dirs, records(bare=0.100, floor=0.140))
    (d,) = data["differences"]
    assert (d["series"], d["base"]) == ("floor", "bare")
    # the frames running in the samples the floor has more of; Timer.record, Http.handle and Loop.run only call them
    assert [r["frame"] for r in d["rows"][:2]] == ["io/micrometer/Clock$$Lambda.0x.now", "io/micrometer/Tags.of"]
    top = d["rows"][0]
    assert top["diff_ms"] == pytest.approx(0.025) and top["base_ms"] == 0
    assert top["share"] == pytest.approx(25 / 140)
    assert {r["frame"]: r["diff_ms"] for r in d["rows"]}["org/vtvr/floor/FloorWork.io"] == pytest.approx(0.0)
    assert "io/micrometer/Timer.record" not in {r["frame"] for r in d["rows"]}
    floor = next(p for p in data["profiles"] if p["series"] == "floor")
    assert floor["layers"]["threads"]["JIT"] == pytest.approx(0.010)
    # the Micrometer samples count for Micrometer, not for the HTTP handler or the event loop that called it
    assert floor["layers"]["layers"]["Micrometer (HTTP binders, timers)"] == pytest.approx(0.040)
    assert floor["layers"]["layers"]["our code (modes, floor, delay clients)"] == pytest.approx(0.060)
    assert floor["layers"]["layers"]["Netty (I/O, event loop)"] == pytest.approx(0.030)   # epoll_wait's caller


def test_a_sample_counts_for_its_deepest_framed_layer():
    assert profiles.layer_of(("event loop", "io/netty/Loop.run", "org/vtvr/http/HttpLimits.handle",
                              "io/vertx/ext/web/RoutingContextImpl.next", "java/util/HashMap.get")) == \
        "Vert.x Web router"
    assert profiles.layer_of(("JIT", "C2Compiler::compile")) == "JIT"
    assert profiles.layer_of(("other: x", "start_thread")) == "JDK, kernel, other"


def test_write_keeps_measured_trials_only_and_main_redoes_it(tmp_path):
    measured = [write_trial(tmp_path, "0001-b00-io-2500-bare", "bare", BARE),
                write_trial(tmp_path, "0002-b00-io-2500-floor", "floor", FLOOR)]
    write_trial(tmp_path, "0003-b00-io-2500-floor", "floor", FLOOR.replace(" 60\n", " 6000\n", 1))  # a warm block
    recs = records(bare=0.1, floor=0.14)
    (tmp_path / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    data = profile_report.write(str(tmp_path), recs, measured)
    assert [p["samples"] for p in data["profiles"]] == [100, 140]
    out = tmp_path / profiles.OUT
    assert sorted(os.listdir(out)) == ["io-2500-bare.svg", "io-2500-floor.svg", "profiles.json", "profiles.md",
                                       profiles.MEASURED]
    md = (out / "profiles.md").read_text()
    assert "`io/micrometer/Clock$$Lambda.0x.now` | 0.0250 (17.9 %) | 0.0000 (0.0 %) | +0.0250" in md
    (out / "profiles.json").unlink()
    assert profile_report.main([str(tmp_path)]) == 0
    assert json.loads((out / "profiles.json").read_text())["profiles"][1]["samples"] == 140
    html = profile_report.html_section(profile_report.load(str(tmp_path)))
    assert 'src="profiles/io-2500-floor.svg"' in html and "floor over bare" in html


def test_flame_graph_widths_follow_samples_and_tiny_frames_are_left_out():
    stacks = {("event loop", "a", "b"): 1500, ("event loop", "a", "c"): 490, ("event loop", "tiny"): 9}
    root = ET.fromstring(flamegraph.svg(stacks, "t"))
    ns = "{http://www.w3.org/2000/svg}"
    widths = {r.find(ns + "title").text.split(":")[0]: float(r.get("width"))
              for r in root.iter(ns + "rect") if r.find(ns + "title") is not None}
    assert set(widths) == {"event loop", "a", "b", "c"}       # "tiny" is 0.45 % of the samples: under MIN_SHARE
    assert widths["b"] / widths["c"] == pytest.approx(1500 / 490, rel=0.01)
    assert widths["event loop"] == pytest.approx(flamegraph.WIDTH - 0.5, abs=0.01)


@pytest.mark.slow
def test_async_profiler_attached_to_a_running_jvm_writes_its_samples(tmp_path):
    """A real JVM spinning on one thread, async-profiler (fetched from Maven Central) started and stopped in it by
    jcmd: the samples name the spinning method."""
    java_home = tools.java_home()
    src = tmp_path / "Spin.java"
    src.write_text("public class Spin { static long x; static void spin() { for (long i = 0; ; i++) x += i % 7; }"
                   " public static void main(String[] a) { spin(); } }")
    # compiled first: run as a source file, the JVM compiles it in the sampled half second, and once (CI, 2026-11-28
    # 18:00, the contract check beside it) no sample at all was in Spin.spin
    subprocess.run([os.path.join(java_home, "bin", "javac"), "-d", str(tmp_path), str(src)], check=True, timeout=120)
    p = subprocess.Popen([os.path.join(java_home, "bin", "java"), "-XX:+EnableDynamicAgentLoading", "-cp",
                          str(tmp_path), "Spin"])
    try:
        prof = profiler.Profiler(java_home, profiler.library())
        # jcmd answers once the JVM has started its attach listener: the first start waits for that
        for _ in range(100):
            try:
                prof.start(p.pid)
                break
            except Fatal:
                if p.poll() is not None:
                    raise
        ticks = os.sysconf("SC_CLK_TCK")
        base = cpu_s(p.pid, ticks)
        assert procs.wait_for(lambda: cpu_s(p.pid, ticks) - base >= 0.5, 30)   # half a second of its CPU sampled
        out = tmp_path / "spin.collapsed"
        prof.stop(p.pid, str(out))
        stacks = profiles.read(str(out))
        spin = sum(n for s, n in stacks.items() if "Spin.spin" in s)
        # 2 ms of CPU a sample would be 250 in 0.5 s; a loaded machine (the contract check beside it) gave 77-91, and
        # the JIT took the rest, one or two a stack
        assert spin >= 20 and "Spin.spin" in max(stacks, key=stacks.get)
    finally:
        p.kill()
        p.wait()


def cpu_s(pid, ticks):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks
