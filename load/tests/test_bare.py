"""The series `bare` (docs/floor.md): the bare Vert.x main (org.vtvr.bare.BareVertx) in a process of its own, started
by the harness from the jar's class path beside the apps, in every design; its CPU sampled like an app's, without
the /q endpoints it does not have. The last two tests run it for real (slow)."""
import json
import os
import subprocess

import pytest
from fakes import settings, system

from harness.infra import tools
from harness.runs import interleave, plan
from harness.runs import system as system_mod

LOAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_catalogue_names_it_a_bare_series():
    assert system_mod.bare("bare") and system_mod.bare("bare-aa")
    assert not any(system_mod.bare(x) for x in ("floor", "reactive", "virtual+socket", "ladder-rest"))


def test_it_starts_as_the_bare_main_on_the_apps_class_path_with_the_apps_settings():
    s = system("--modes", "bare,reactive", "--scenario", "io", "--app-java-opts=-XX:+UseParallelGC -Xmx1g")
    s.start_app("app bare", 9101, 9102, "/tmp/bare.log", "bare", java_opts=["-XX:+UseParallelGC"],
                env={"BENCH_DELAY_HTTP2": "true"})
    name, argv, kw = s.ps.started[-1]
    assert argv == ["/jdk/bin/java", "-XX:+UseParallelGC", "-cp", tools.app_classpath(), "org.vtvr.bare.BareVertx"]
    env = kw["env"]
    # the app's own keys: its port, the delay service's URL, any bench.* or quarkus.* setting of the run
    assert env["QUARKUS_HTTP_PORT"] == "9101" and env["QUARKUS_HTTP_HOST"] == "127.0.0.1"
    assert env["QUARKUS_REST_CLIENT_DELAY_URL"] == "http://127.0.0.1:9102" and env["BENCH_DELAY_HTTP2"] == "true"
    paths = tools.app_classpath().split(os.pathsep)
    assert [os.path.relpath(p, tools.ROOT) for p in paths] == ["target/quarkus-app/lib/boot/*",
                                                               "target/quarkus-app/lib/main/*",
                                                               "target/quarkus-app/app/*"]
    s.start_app("app reactive", 9103, 9102, "/tmp/app.log", "reactive")
    assert s.ps.started[-1][1][-2:] == ["-jar", tools.JAR]


def test_a_native_run_refuses_it():
    s = system("--modes", "bare", "--scenario", "io", "--aa", "none")
    s.runner = "/target/app-runner"
    with pytest.raises(Exception, match="runs on the JVM only"):
        s.start_app("app bare", 9101, 9102, "/tmp/bare.log", "bare")


def test_it_is_ready_when_it_serves_and_has_no_metrics_to_scrape():
    s = system("--modes", "bare,floor", "--scenario", "io", "--aa", "none")
    url = "http://127.0.0.1:9101"
    assert system_mod.ready_url(url, "bare") == url + "/bare/io?delay=100&calls=1"
    assert system_mod.ready_url(url, "floor") == url + "/q/health/ready"
    assert system_mod.metrics_url(url, "bare") == ""
    assert system_mod.metrics_url(url, "floor") == url + "/q/metrics"
    s.sampler("/tmp/samples.jsonl", 42, url, 43, "bare")
    argv = s.ps.started[-1][1]
    assert "--metrics" not in argv and argv[argv.index("--pid") + 1] == "42" and "delay=43" in argv
    s.sampler("/tmp/samples.jsonl", 42, url, 43, "floor")
    assert s.ps.started[-1][1][s.ps.started[-1][1].index("--metrics") + 1] == url + "/q/metrics"


def test_the_sequential_design_starts_a_fresh_process_to_and_from_it():
    steps = [plan.Step(series, "io", "vegeta", 500) for series in ("floor", "reactive", "bare", "virtual")]
    assert plan.app_starts(steps, reuse=True) == [0, 2, 3]
    assert plan.app_starts(steps, reuse=False) == [0, 1, 2, 3]


def test_the_interleaved_design_measures_it_where_it_serves():
    s = settings("--design", "interleaved", "--modes", "bare,floor,reactive", "--scenario", "io,db", "--rates", "800")
    tp, _ = interleave.trial_plan(s, 7)
    assert tp.series == ("bare", "floor", "reactive", "reactive-aa")
    assert interleave.serves("bare", "io") and not interleave.serves("bare", "db")


def test_an_external_app_cannot_serve_it():
    s = system("--modes", "bare,reactive", "--scenario", "io", "--app-url", "http://127.0.0.1:1")
    with pytest.raises(Exception, match="--app-url: the series bare is a process this script starts"):
        s.prepare()


def run_quick(launcher, tmp_path, *argv):
    """A real quick compare with ARGV; its results folder. Nothing it started may be left running."""
    out = tmp_path / "run"
    r = subprocess.run(["./compare.sh", "--quick", *argv, "--out", str(out)], cwd=LOAD, env=launcher.env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    left = launcher.running()
    assert not left, [p.cmdline() for p in left]
    return out


@pytest.mark.slow
def test_quick_interleaved_run_measures_bare_beside_the_floor_profiled_and_from_an_aot_cache(launcher, tmp_path):
    out = run_quick(launcher, tmp_path, "--design", "interleaved", "--modes", "bare,floor", "--scenario", "io",
                    "--seed", "5", "--profile", "--aot")
    records = [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]
    bare = [r for r in records if r["series"] == "bare"]
    assert bare and all(r["ok"] == r["requests"] > 0 and r["cpu_ms_per_req"] > 0 for r in bare), bare
    assert {r["series"] for r in records} == {"bare", "floor"}
    trial = next((out / "trials").glob("*-io-*-bare"))
    assert not (trial / "metrics-before.prom").exists()   # nothing scraped from it
    summary = json.loads((out / "summary.json").read_text())
    assert "bare" in summary["design"]["series"]
    # --aot: the training run's cache, which the floor's app started from (AOTMode=on: or it would not have started)
    assert (out / "app.aot").stat().st_size > 0
    metas = [json.loads((d / "meta.json").read_text()) for d in (out / "trials").glob("*")]
    opts = {m["series"]: m["java_opts"] for m in metas}
    assert f"-XX:AOTCache={out / 'app.aot'} -XX:AOTMode=on" in opts["floor"] and "AOTCache" not in opts["bare"]
    # --profile: every measured trial's samples, a flame graph per series, the floor over the bare process
    assert all((d / "profile.collapsed").stat().st_size > 0 for d in (out / "trials").glob("*-b[0-9][0-9]-*"))
    profiled = json.loads((out / "profiles" / "profiles.json").read_text())
    assert {p["series"] for p in profiled["profiles"]} == {"bare", "floor"}
    svgs = list((out / "profiles").glob("*.svg"))
    assert len(svgs) == 2 and all(f.stat().st_size > 0 for f in svgs)
    (diff,) = profiled["differences"]
    assert (diff["series"], diff["base"]) == ("floor", "bare") and diff["rows"]
    assert 'id="profiles"' in (out / "report.html").read_text()


@pytest.mark.slow
def test_quick_sequential_run_serves_io_and_fanout_from_it(launcher, tmp_path):
    out = run_quick(launcher, tmp_path, "--design", "sequential", "--modes", "bare", "--scenario", "io,fanout",
                    "--tools", "vegeta", "--aa", "none")
    rows = json.loads((out / "summary.json").read_text())["rows"]
    assert {(r["mode"], r["scenario"]) for r in rows} == {("bare", "io"), ("bare", "fanout")}
    assert all(r["success_pct"] == 100 and r["cpu_ms_per_req"] > 0 for r in rows), rows
