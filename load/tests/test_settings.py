"""The settings of chaos and startup from options and environment: presets, overrides and clear errors."""
import pytest

from harness import cli
from harness.runs import startup
from harness.runs.chaos import params as chaos_params


def flags(env):
    """The flags that replaced the environment variables of ENV: {"RATE_WORKER": "1"} -> --rate-worker 1."""
    return [x for k, v in (env or {}).items() for x in ("--" + k.lower().replace("_", "-"), v)]


def chaos(*argv, env=None):
    return chaos_params.settings(cli.chaos_parser().parse([*argv, *flags(env)]))


def test_chaos_quick_and_default_presets_and_overrides():
    assert (chaos("--quick")["DURATION"], chaos()["DURATION"]) == (8, 30)
    assert chaos("--quick")["OVERLOAD_TIMEOUT"] == "5s" and chaos()["CHECKOUT_TAIL"] == 15
    p = chaos("--quick", "--duration", "4", env={"RATE_WORKER": "100", "HOSTILE_FLOOD": "2"})
    assert (p["DURATION"], p["RATE_WORKER"], p["HOSTILE_FLOOD"], p["CHECKOUT_TIMEOUT"]) == (4, 100, 2, "60s")


@pytest.mark.parametrize("argv, env, message", [
    (["--checks", "overload,nap"], {}, "unknown check 'nap'"),
    (["--modes", "fast"], {}, "unknown mode 'fast'"),
    (["--duration", "8s"], {}, "DURATION must be a whole number, got '8s'"),
    ([], {"OUTAGE": "-1"}, "OUTAGE must be a whole number"),
    ([], {"CHECKOUT_RATE": "0"}, "CHECKOUT_TAIL and CHECKOUT_RATE must be at least 1"),
])
def test_chaos_bad_settings(argv, env, message):
    with pytest.raises(cli.Fatal, match=message):
        chaos(*argv, env=env)


def test_startup_parameters():
    params = lambda env: startup.params(cli.startup_parser().parse(flags(env)))   # noqa: E731
    p = params({"RUNS": "2", "VARIANTS": "jvm,native"})
    assert p["RUNS"] == "2" and p["WARMUP_RUNS"] == "1" and p["FIRST_PATH"] == "/virtual/db"
    for env, message in (({"RUNS": "0"}, "--runs must be a positive integer"),
                         ({"WARMUP_RUNS": "x"}, "--warmup-runs must be an integer >= 0"),
                         ({"VARIANTS": "jvm,graal"}, "unknown variant 'graal'"),
                         ({"LOAD_REQUESTS": "-4"}, "--load-requests must be a positive integer"),
                         ({"SETTLE": "abc"}, "--settle takes seconds"),          # once a ValueError after the
                         ({"START_TIMEOUT": "nan"}, "--start-timeout takes seconds")):   # database had started
        with pytest.raises(cli.Fatal, match=message):
            params(env)


def test_hey_report_figures():
    text = ("Summary:\n  Total:\t1.5 secs\n\nLatency distribution:\n  [200]\t3 responses\n"
            "Status code distribution:\n  [200]\t95 responses\n  [503]\t5 responses\n")
    assert startup.hey_figures(text, 100) == (1.5, 95)
    assert startup.hey_figures("", 100) == (0.0, 0)
