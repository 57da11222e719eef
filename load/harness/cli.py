"""The one command line of the harness: `vtvr-harness SUBCOMMAND [options]`, each subcommand's options parsed here."""
import argparse
import importlib
import re
import runpy
import sys
from importlib import resources

from harness.infra.errors import Fatal

# Subcommands whose module owns its options (the analysis side): the arguments go to that module's own parser
DELEGATED = {
    "report": ("harness.report.summaries", "summaries, report.html, figures and one-step lines"),
    "sample": ("harness.sampling.sample", "the per-step process and /q/metrics sampler"),
    "chaos-probe": ("harness.runs.chaos.chaos", "the fault checks' probes and analysis (targets, recover, verify)"),
    "hostile": ("harness.runs.chaos.hostile", "the hostile-client checks"),
}


def usage_text(command):
    """The -h text of load/COMMAND.sh (kept word for word from the bash scripts they replace)."""
    return resources.files("harness").joinpath("usage", command + ".txt").read_text()


class Parser(argparse.ArgumentParser):
    """argparse with the launchers' own -h text and their error line: `error: ... (load/X.sh -h lists them)`, exit 1."""

    def __init__(self, command, **kw):
        super().__init__(prog=f"load/{command}.sh", add_help=False, allow_abbrev=False, **kw)
        self.command = command
        self.add_argument("-h", "--help", action="store_true")

    def error(self, message):
        if message.startswith("unrecognized arguments: "):
            option = message.split(": ", 1)[1].split()[0].split("=")[0]
            raise Fatal(f"unknown option '{option}' ({self.prog} -h lists them)")
        needs = re.match(r"argument (\S+?)(/\S+)?: expected one argument", message)
        raise Fatal(f"{needs.group(1)} needs a value" if needs else message)

    def parse(self, argv):
        # -h wins over every other argument and over a missing value, as in the bash option loops
        if any(a in ("-h", "--help") for a in argv):
            print(usage_text(self.command), end="")
            return None
        return self.parse_args(argv)


def compare_parser():
    p = Parser("compare")
    flag = lambda name, **kw: p.add_argument(name, action="store_true", **kw)  # noqa: E731
    for name in ("--quick", "--dry-run", "--native", "--rebuild", "--no-build"):
        flag(name)
    p.add_argument("--reuse", dest="reuse", action="store_const", const=True, default=None)
    p.add_argument("--fresh", dest="reuse", action="store_const", const=False)
    for names in (("--experiment",), ("--scenario", "--scenarios"), ("--modes", "--mode"), ("--rates",),
                  ("--concurrency",), ("--tools",), ("--duration",), ("--warmup",), ("--delay",), ("--out",),
                  ("--app-url",), ("--app-pid",), ("--aa",), ("--rotate",), ("--cpus",), ("--design",),
                  ("--budget",), ("--seed",)):
        p.add_argument(*names, dest=names[0][2:].replace("-", "_"))
    p.add_argument("--runs", default="1")
    p.add_argument("--jvm-opts", dest="jvm_opts", action="append")
    return p


def chaos_parser():
    p = Parser("chaos")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--checks", "--check", dest="checks", default="hostile,overload,sigterm,checkout")
    p.add_argument("--modes", "--mode", dest="modes", default="worker,virtual,reactive")
    p.add_argument("--duration")
    p.add_argument("--out")
    return p


def startup_parser():
    p = Parser("startup")
    p.add_argument("unexpected", nargs="*")
    return p


def contract_parser():
    p = Parser("contract")
    p.add_argument("--max-examples", dest="max_examples", default="8")
    p.add_argument("--seed", default="20261122")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    commands = {"compare": (compare_parser, "harness.runs.compare"),
                "chaos": (chaos_parser, "harness.runs.chaos.run"),
                "startup": (startup_parser, "harness.runs.startup"),
                "contract": (contract_parser, "harness.runs.contract")}
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: vtvr-harness COMMAND [options]   (COMMAND -h for its options)\n")
        for name in commands:
            print(f"  {name:12} load/{name}.sh")
        for name, (_, what) in DELEGATED.items():
            print(f"  {name:12} {what}")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command in DELEGATED:
        sys.argv = [f"vtvr-harness {command}", *rest]
        runpy.run_module(DELEGATED[command][0], run_name="__main__", alter_sys=True)
        return 0
    if command not in commands:
        print(f"error: unknown command '{command}' (vtvr-harness -h lists them)", file=sys.stderr)
        return 2
    parser, module = commands[command]
    from harness.infra.procs import Terminated
    try:
        args = parser().parse(rest)
        if args is None:
            return 0
        args.argv = rest
        return importlib.import_module(module).run(args)
    except Fatal as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return 143
