"""The command line: every launcher's -h text is the one it had in bash, and bad input is one clear line."""
import re

import pytest

from harness import cli


@pytest.mark.parametrize("command", ["compare", "chaos", "startup", "contract"])
def test_help_is_the_usage_text(command, capsys):
    assert cli.main([command, "-h", "--quick"]) == 0
    assert capsys.readouterr().out == cli.usage_text(command)


@pytest.mark.parametrize("command, parser", [("compare", cli.compare_parser), ("chaos", cli.chaos_parser),
                                             ("contract", cli.contract_parser)])
def test_every_documented_option_is_parsed_and_no_other(command, parser):
    text = cli.usage_text(command)
    documented = set(re.findall(r"^ {2}(?:(?:-h, )?(--[a-z-]+)(?: [A-Z=]+[^ ]*)?)(?:\s|$)", text, re.M))
    documented |= set(re.findall(r"^ {2}--[a-z-]+ [A-Z]+ (--[a-z-]+)", cli.usage_text(command), re.M))
    known = {o for a in parser()._actions for o in a.option_strings if o.startswith("--")}
    assert documented - {"--help"} <= known


@pytest.mark.parametrize("argv, message", [
    (["compare", "--bogus"], "error: unknown option '--bogus' (load/compare.sh -h lists them)"),
    (["compare", "--bogus=1"], "error: unknown option '--bogus' (load/compare.sh -h lists them)"),
    (["compare", "--out"], "error: --out needs a value"),
    (["compare", "--modes", "x"], "error: unknown mode 'x'"),
    (["chaos", "--nope"], "error: unknown option '--nope' (load/chaos.sh -h lists them)"),
    (["startup", "now"], "error: unknown argument 'now' (all parameters are environment variables; load/startup.sh -h "
                            "lists them)"),
    (["contract", "--max-examples", "ten"], "error: --max-examples must be a whole number, not 'ten'"),
])
def test_bad_command_lines_exit_1_with_one_line(argv, message, capsys):
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_unknown_command_and_overview(capsys):
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err
    assert cli.main(["-h"]) == 0
    assert "compare" in capsys.readouterr().out


def test_dry_run_prints_the_plan_and_estimate(capsys):
    assert cli.main(["compare", "--dry-run", "--design", "sequential", "--quick", "--scenario", "io", "--modes",
                     "virtual"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["  1. virtual io vegeta 500", "  2. virtual io hey 50"]
    assert re.fullmatch(r"2 steps of 1s, warm-up 1s per mode, 1 app start\(s\): about \d+ s \(1 series\)", out[-1])


def test_one_of_n_runs_drops_runs_out_and_rotate():
    from harness.runs.compare import one_run_argv
    assert one_run_argv(["--runs", "3", "--quick", "--out=/x", "--rotate", "2", "--modes", "virtual", "--runs=3"]) \
        == ["--quick", "--modes", "virtual"]


def test_delegated_subcommands_reach_their_module():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "harness", "report", "-h"], capture_output=True, text=True)
    assert r.returncode == 0 and "report" in r.stdout.lower()
