"""The plan, the presets and the time estimate of load/compare.sh, computed without starting anything."""
import pytest

from harness import cli
from harness.runs import plan, trial_plan
from harness.runs.system import System


def settings(*argv, env=None):
    """ENV: settings by name, {"RAMP_IN": "2s"} -> --set ramp_in=2s (the sequential design, rotation 0)."""
    flags = [x for k, v in {"ROTATE": "0", **(env or {})}.items() for x in ("--set", f"{k.lower()}={v}")]
    return plan.settings(cli.compare_parser().parse(["--design", "sequential", *flags, *argv]))


def steps(*argv, env=None):
    s = settings(*argv, env=env)
    return s, plan.build_plan(s)


def test_default_plan_is_the_published_run():
    s, p = steps()
    assert len(p) == 117 and sum(st.tool == "vegeta" for st in p) == 73
    assert plan.mode_order(s) == ["virtual", "worker", "reactive", "reactive-aa"]
    assert [st for st in p if st.series == "reactive-aa"] == [plan.Step("reactive-aa", "io", "vegeta", r)
                                                             for r in (500, 1500, 2500, 4000)]
    assert plan.app_starts(p, s.reuse) == [0, 41, 82, 113]   # a fresh app per series


def test_default_estimate_is_within_15_percent_of_the_measured_982_s():
    s, p = steps()
    assert abs(plan.estimate_s(s, p) - 982) <= 0.15 * 982
    assert plan.estimate_s(s, p, start=len(p) - 1) < 5 + 1 + 1 + 5   # the last step: its time and the report


def test_quick_is_one_app_one_level_each_no_aa():
    s, p = steps("--quick")
    assert (s.duration_ms, s.warmup_ms, s.warmup_max_s, s.ramp_ms, s.aa, s.reuse) == (1000, 1000, 0, 0, "", True)
    assert len(p) == 44 and plan.app_starts(p, s.reuse) == [0]
    assert 60 < plan.estimate_s(s, p) < 150
    s, p = steps("--quick", "--set", "reuse=false")
    assert len(plan.app_starts(p, s.reuse)) == 3


def test_a_workload_run_lets_the_jit_finish_longer():
    """Set beside advise (warm code): after compare's 45 s the JIT took 25-41 % of a core and a new shape measured
    17-34 % over the prediction; after up to 150 s, within 15 % (docs/advise.md, 2026-12-07)."""
    assert settings("--workload", "calls=2,delay=40").warmup_max_s == 150
    assert settings().warmup_max_s == 45 and settings("--workload", "calls=2", "--quick").warmup_max_s == 0
    assert settings("--workload", "calls=2", "--set", "warmup-max=60").warmup_max_s == 60


@pytest.mark.parametrize("argv, says", [
    (("--workload", "calls=999,delay=50"),
     "in every mode asked: it would wait 49950 ms for the delay service, more than the request deadline of 20000 ms"),
    (("--workload", "cpu=200000,delay=5", "--modes", "virtual,worker,reactive"),
     "in reactive: cpu must be at most 100000 in reactive mode, got 200000"),
])
def test_a_workload_the_app_would_refuse_is_an_error_before_anything_starts(argv, says):
    """A shape the app answers with 400 (its request deadline, reactive's CPU kernel on the event loop: GET
    /scenarios' deadlineMs and maxByMode) is named at once, not measured for 20 minutes as refusals."""
    with pytest.raises(plan.Fatal, match=says):
        settings(*argv)
    if "reactive" in argv[-1]:
        with pytest.raises(plan.Fatal, match="measure the others with --modes virtual,worker"):
            settings(*argv)
        assert settings("--workload", "cpu=200000,delay=5", "--modes", "virtual,worker").modes == ("virtual", "worker")
    assert settings("--workload", "calls=400,delay=50").scenarios == ("workload",)   # 20,000 ms fits


def test_rotation_moves_the_first_series_to_the_end():
    s = settings("--set", "rotate=1", "--aa", "none", "--modes", "virtual,worker")
    assert plan.mode_order(s) == ["worker", "virtual"]


def test_delay_client_variant_gets_its_own_app_even_with_reuse():
    s, p = steps("--quick", "--modes", "virtual,virtual+socket,reactive")
    starts = plan.app_starts(p, s.reuse)
    assert [p[i].series for i in starts] == ["virtual", "virtual+socket", "reactive"]
    assert plan.client_of("virtual+socket") == "socket" and plan.base_of("reactive-aa") == "reactive"


@pytest.mark.parametrize("exp, n, scenarios", [("E1", 18, {"io"}), ("e2", 18, {"cpu"}), ("E4", 6, {"fanout"}),
                                              ("E8", 20, {"pinning", "pinning-reentrant"}), ("saturate", 21, {"io"})])
def test_presets(exp, n, scenarios):
    s, p = steps("--experiment", exp, "--aa", "none")
    assert len(p) == n and {st.scenario for st in p} == scenarios


def test_preset_sets_parameters_and_flags_win():
    s = settings("--experiment", "E1", "--duration", "3s", "--rates", "7")
    assert s.env["IO_CALLS"] == "3" and s.env["DELAY"] == "300" and s.timeout == "30s" and s.timeout_s == 30
    assert s.duration_ms == 3000 and s.rates == (7,)
    assert settings("--experiment", "E1", "--set", "delay=50").env["DELAY"] == "50"
    assert settings("--experiment", "saturate").tools == ("vegeta",)


def test_scale_puts_the_app_and_the_delay_service_on_zgc_and_flags_win():
    s = settings("--experiment", "scale")
    assert (s.app_java_opts, s.delay_java_opts) == ("-XX:+UseZGC -XX:MaxRAMPercentage=50", "-XX:+UseZGC")
    s = settings("--experiment", "scale", "--set=delay_java_opts=-XX:+UseG1GC", "--app-java-opts=-XX:+UseG1GC")
    assert (s.app_java_opts, s.delay_java_opts) == ("-XX:+UseG1GC", "-XX:+UseG1GC")
    assert (settings().app_java_opts, settings().delay_java_opts) == ("-XX:+UseParallelGC", "")


def test_cost_plan_varies_the_work_not_the_load():
    s, p = steps("--experiment", "cost", "--modes", "virtual")
    assert s.aa == ""
    assert [str(x) for x in p[:3]] == [f"virtual fanout vegeta 20 FANOUT_CALLS={n}" for n in (1, 10, 100)]
    assert [x.level for x in p[3:]] == [50, 400, 1000, 2000, 4000]


def test_pinning_runs_for_virtual_and_worker_only():
    _, p = steps("--quick", "--scenario", "pinning")
    assert {st.series for st in p} == {"virtual", "worker"}


def test_environment_overrides():
    s = settings("--quick", "--app-java-opts=", env={"RAMP_IN": "2s", "SETTLE": "1", "TIMEOUT": "20s", "DELAY": "5"})
    assert (s.ramp_ms, s.settle_s, s.timeout, s.timeout_s, s.env["DELAY"], s.app_java_opts) == \
        (2000, 1, "20s", 20, "5", "")
    assert s.step_limit_s == (2000 + 1000 + 20000) // 1000 + 30


@pytest.mark.parametrize("argv, env, message", [
    (["--scenario", "nope"], {}, "unknown scenario 'nope'"),
    (["--modes", "reactive+socket"], {}, "exists for virtual, worker, ladder-vt-gateway, ladder-virtual only"),
    (["--modes", "quantum"], {}, "unknown mode 'quantum'"),
    (["--aa", "worker", "--modes", "virtual"], {}, "--aa worker: not one of the measured modes"),
    ([], {"ROTATE": "x"}, "rotate takes a whole number"),
    (["--set", "rotations=1"], {}, "--set rotations: unknown .one of: delay, io_calls"),
    (["--set", "runs"], {}, "--set takes NAME=VALUE"),
    ([], {"REUSE": "yes"}, "reuse is true or false, got 'yes'"),
    (["--tools", "wrk"], {}, "unknown tool 'wrk'"),
    (["--rates", "0"], {}, "positive integers"),
    ([], {"RUNS": "100"}, "runs takes 1 to 99"),
    (["--duration", "fast"], {}, "--duration must be a Go duration"),
    (["--experiment", "E9"], {}, "unknown experiment 'E9'"),
    ([], {"WARMUP_MAX": "x"}, "warmup_max takes a whole number"),
    ([], {"WARMUP_SCALE": "0"}, "warmup_scale takes a positive whole percentage"),
    ([], {"TIMEOUT": "soon"}, "timeout must be a Go duration"),
    ([], {"RAMP_IN": "soon"}, "ramp_in must be a Go duration"),
])
def test_bad_settings_are_clear_errors(argv, env, message):
    with pytest.raises(cli.Fatal, match=message.replace("+", r"\+")):
        plan.build_plan(settings(*argv, env=env))


def test_a_workload_is_the_scenario_measured_with_its_shape():
    s, p = steps("--workload", "queries=2, calls=3,delay=50", "--rates", "800")
    assert (s.scenarios, s.scenarios_given, s.env["WORKLOAD"]) == (("workload",), True, "delay=50,calls=3,queries=2")
    assert s.aa == "" and {(st.scenario, st.tool, st.level) for st in p} == {
        ("workload", "vegeta", 800), ("workload", "hey", 10), ("workload", "hey", 100)}   # hey: LEVELS
    assert System(s, "", None).request("worker", "workload").path == \
        "/worker/workload?delay=50&calls=3&fanout=0&queries=2&cpu=0&insert=0"
    assert settings("--workload", "calls=3", "--scenario", "io,workload").scenarios == ("io", "workload")
    assert "workload" not in settings().scenarios   # a plain run: every scenario but the workload
    with pytest.raises(cli.Fatal, match="workload: 'calls=-3'"):
        settings("--workload", "calls=-3")


def test_a_workload_in_the_interleaved_design():
    s = plan.settings(cli.compare_parser().parse(["--workload", "calls=3", "--rates", "800,1600", "--seed", "1"]))
    assert trial_plan.steps_of(s) == [("workload", "vegeta", 800), ("workload", "vegeta", 1600)]
    s = plan.settings(cli.compare_parser().parse(["--workload", "calls=3", "--seed", "1", "--design", "duet"]))
    assert trial_plan.steps_of(s) == [("workload", "vegeta", 200)]   # without --rates: one default step


@pytest.mark.parametrize("design, expected", [
    ("interleaved", ["trial block 0 workload 800 ", "design interleaved: 4 series, 1 steps"]),
    ("duet", ["trial block 0 workload 800 ", "design duet: 4 series, 1 steps"]),
    ("sequential", ["  1. worker workload vegeta 800", "  2. worker workload hey 10", "9 steps of 5s"]),
])
def test_a_workloads_dry_run(design, expected, capsys):
    argv = ["--workload", "calls=3,delay=50,queries=2", "--rates", "800", "--dry-run", "--design", design]
    assert cli.main(["compare", *argv, "--seed", "1", "--set", "rotate=1"]) == 0
    out = capsys.readouterr().out
    assert all(x in out for x in expected), out


def test_a_settings_file_gives_what_no_flag_does(tmp_path):
    (tmp_path / "w.toml").write_text('rates = [800, 1600]\nmodes = ["virtual", "reactive"]\n'
                                     '[workload]\ncalls = 3\ndelay = 50\n')
    s = settings("--workload-file", str(tmp_path / "w.toml"))   # the name it had first
    assert (s.scenarios, s.env["WORKLOAD"], s.rates, s.modes) == (("workload",), "delay=50,calls=3", (800, 1600),
                                                                 ("virtual", "reactive"))
    s = settings("--rates", "400", "--workload-file", str(tmp_path / "w.toml"), "--workload", "queries=1",
                 "--modes", "worker")
    assert (s.env["WORKLOAD"], s.rates, s.modes) == ("queries=1", (400,), ("worker",))   # the flags win
    (tmp_path / "w.toml").write_text('workload = "calls=3"\nrates = ["fast"]\n')
    with pytest.raises(cli.Fatal, match="positive integers, got 'fast'"):
        settings("--workload-file", str(tmp_path / "w.toml"))
    with pytest.raises(cli.Fatal, match="nope.toml: No such file"):
        settings("--workload-file", str(tmp_path / "nope.toml"))


def test_a_settings_file_and_set_give_the_settings_without_a_flag(tmp_path):
    (tmp_path / "s.toml").write_text('runs = 3\nreuse = true\nramp-in = "0s"\ndelay = 20\n')
    s = settings("--settings", str(tmp_path / "s.toml"))
    assert (s.runs, s.reuse, s.ramp_ms, s.env["DELAY"]) == (3, True, 0, "20")
    s = settings("--settings", str(tmp_path / "s.toml"), "--set", "runs=2", "--set", "DELAY=30")   # --set wins
    assert (s.runs, s.reuse, s.env["DELAY"]) == (2, True, "30")


def test_compare_keeps_at_most_25_options():
    options = [a for a in cli.compare_parser()._actions if a.option_strings]
    assert len(options) <= 25, [a.option_strings for a in options]
