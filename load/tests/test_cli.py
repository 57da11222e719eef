"""The command line: every launcher's -h is generated from its parser, and bad input is one clear line."""
import re

import pytest

from harness import cli


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_help_is_generated_from_the_parser_and_names_every_option(command, capsys):
    assert cli.main([command, "-h", "--quick"]) == 0
    text = capsys.readouterr().out
    parser = cli.COMMANDS[command][0]()
    assert text == parser.format_help()
    options = {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
    assert options and all(o in text for o in options)
    assert "QUARKUS_DATASOURCE_JDBC_URL" in text      # the documented overrides


@pytest.mark.parametrize("argv, message", [
    (["compare", "--bogus"], "error: unknown option '--bogus' (load/compare.sh -h lists them)"),
    (["compare", "--bogus=1"], "error: unknown option '--bogus' (load/compare.sh -h lists them)"),
    (["compare", "--out"], "error: --out needs a value"),
    (["compare", "--modes", "x"], "error: unknown mode 'x'"),
    (["chaos", "--nope"], "error: unknown option '--nope' (load/chaos.sh -h lists them)"),
    (["startup", "now"], "error: unknown option 'now' (load/startup.sh -h lists them)"),
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
    assert one_run_argv(["--set", "runs=3", "--quick", "--out=/x", "--set", "rotate=2", "--modes", "virtual",
                         "--set=runs=3", "--set", "delay=5"]) == ["--quick", "--modes", "virtual", "--set", "delay=5"]


def test_delegated_subcommands_reach_their_module():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "harness", "report", "-h"], capture_output=True, text=True)
    assert r.returncode == 0 and "report" in r.stdout.lower()


def test_every_subcommand_is_a_function_reached_by_import():
    """No dispatch by string: each subcommand is a function of cli that imports what runs it."""
    import inspect
    source = inspect.getsource(cli)
    assert "importlib" not in source and "runpy" not in source and "sys.argv =" not in source
    assert all(callable(f) for _, f, _ in cli.COMMANDS.values()) and all(callable(f) for f, _ in cli.DELEGATED.values())
