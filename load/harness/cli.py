"""The harness's one command line: `vtvr-harness SUBCOMMAND [options]`; every option is a flag of a
subcommand, its -h generated from the parsers below. Each subcommand is a function that imports
only what runs it (a reader follows `compare` to runs/compare.run by imports; `advise` answers in
under a second). Environment variables: only the documented overrides of infra/settings."""
import argparse
import re
import sys
import textwrap

from harness.infra import catalogue
from harness.infra.errors import Fatal
from harness.infra.settings import OVERRIDES, SET_ONLY
from harness.runs import options

ENVIRONMENT = "environment (documented overrides): " + ", ".join(OVERRIDES)


class Parser(argparse.ArgumentParser):
    """argparse with the launchers' error line: `error: ... (load/X.sh -h lists them)`, exit 1."""

    def __init__(self, command, description, **kw):
        super().__init__(prog=f"load/{command}.sh", allow_abbrev=False, description=description,
                         epilog=ENVIRONMENT, formatter_class=argparse.RawDescriptionHelpFormatter,
                         **kw)
        self.command = command

    def error(self, message):
        if message.startswith("unrecognized arguments: "):
            option = message.split(": ", 1)[1].split()[0].split("=")[0]
            raise Fatal(f"unknown option '{option}' ({self.prog} -h lists them)")
        needs = re.match(r"argument (\S+?)(/\S+)?: expected one argument", message)
        raise Fatal(f"{needs.group(1)} needs a value" if needs else message)

    def parse(self, argv):
        """The parsed ARGV, or None after -h (which wins over all else, as in the launchers)."""
        if any(a in ("-h", "--help") for a in argv):
            self.print_help()
            return None
        return self.parse_args(argv)


def compare_parser():
    p = Parser("compare", "Runs the comparison: builds, starts the database, the delay service and "
               "one app per series, loads them with Vegeta (open model) and hey (closed model), "
               "samples their cost, and writes DIR/summary.csv|json|md and report.html "
               "(docs/harness.md).")
    p.epilog = "settings without a flag (--set NAME=VALUE or a --settings file):\n" + "".join(
        textwrap.fill(what, 118, initial_indent=f"  {name:17}", subsequent_indent=" " * 19) + "\n"
        for name, what in SET_ONLY.items()) + "\n" + ENVIRONMENT
    a = p.add_argument
    a("--design", help="interleaved (the default): every series its own app, blocks of short "
      "trials in a random order, verdicts with intervals; duet: two series at once; "
      "sequential: one mode at a time, rate and concurrency sweeps")
    a("--experiment", help="E1..E8, saturate, cost, ladder, scale, coldstart "
      "(docs/experiments.md): scenarios, parameters and levels preset; explicit flags still win")
    a("--scenario", "--scenarios", dest="scenario", help="comma-separated scenarios [the design's]")
    a("--modes", "--mode", dest="modes", help="comma-separated series: virtual, worker, reactive, "
      "virtual+socket, worker+socket, floor, the ladder's rungs, bare (a Vert.x process of its "
      "own) [the design's]")
    a("--aa", help="the mode measured twice (the A/A pair), or none [reactive]")
    a("--rates", help="rates in req/s (Vegeta, Hyperfoil), comma-separated [per scenario]")
    a("--concurrency", help="hey concurrency levels, comma-separated [per scenario]")
    a("--tools", help="vegeta, hyperfoil, hey [vegeta,hey]")
    a("--duration", help="each measured step or trial, Go duration "
      "[5s; --quick 1s; interleaved 3s, --quick 2s]")
    a("--budget", help="an interleaved run's time budget, Go duration [20m; --quick 100s]")
    a("--seed", help="the interleaved design's random order [random, printed]")
    a("--jvm-opts", dest="jvm_opts", action="append",
      help="SERIES=OPTIONS: extra JVM options of one series' app")
    a("--app-java-opts", help="JVM flags of every app [-XX:+UseParallelGC, docs/tuning.md; "
      "the scale experiment -XX:+UseZGC -XX:MaxRAMPercentage=50, docs/scale.md]")
    a("--set", action="append", metavar="NAME=VALUE", help="a scenario parameter (" + ", ".join(
      k.lower() for k in catalogue.PARAM_ENV) + "; unset, the app's default: GET /scenarios) "
      "or a setting below; repeat it")
    a("--workload", metavar="SHAPE", help="a workload: calls=N,fanout=N,queries=N,cpu=N,insert=0|1,"
      "delay=MS (any of them; the rest 0, delay the delay parameter's); sets --scenario workload "
      "unless given")
    a("--settings", "--workload-file", dest="settings", metavar="FILE", type=options.settings_file,
      help="a TOML file of settings: workload = \"calls=3,delay=50\" (or a [workload] table), "
      "rates = [800], modes = [\"virtual\", \"reactive\"], concurrency, a scenario parameter or a "
      "setting below by name; --set and the flags win over it")
    a("--out", help="where results go [load/results/<timestamp>]")
    a("--app-url",
      help="measure an app started elsewhere (no build, database, delay service or restarts)")
    for flag, what in (("--quick", "what three minutes can decide (the worker pool's ceiling, "
                        "threads and memory of waiting requests, thread costs under JMH); with "
                        "--design, --experiment or --scenario: that run, shortened"),
                       ("--dry-run", "print the plan and its estimated time, start nothing"),
                       ("--native", "run target/*-runner instead of the JVM jar"),
                       ("--no-build", "never build; use the jar as it is"),
                       ("--profile", "interleaved: async-profiler on every app during each "
                        "measured trial; flame graphs and where the CPU goes in DIR/profiles "
                        "(docs/floor.md)"),
                       ("--aot", "interleaved: a JDK 25 AOT cache from a training run of the app "
                        "serving every series' steps; every app but the bare process starts from "
                        "it (docs/statistics.md)")):
        a(flag, action="store_true", help=what)
    return p


def chaos_parser():
    from harness.runs.chaos.params import DEFAULTS, QUICK
    p = Parser("chaos", "The fault checks: overload and recovery, SIGTERM under load, checkout "
               "through delay-service and database outages, hostile clients (docs/faults.md); a "
               "private database, delay service and app. The recovery and SIGTERM limits stretch "
               "by how much slower the machine's yardstick reads than where they were set "
               "(params.json: speed_us, limits_stretched_by).")
    p.add_argument("--quick", action="store_true", help="shorter checks (about 2 minutes)")
    p.add_argument("--checks", "--check", dest="checks",
                   default="hostile,overload,sigterm,checkout",
                   help="comma-separated checks [hostile,overload,sigterm,checkout]")
    p.add_argument("--modes", "--mode", dest="modes", default="worker,virtual,reactive",
                   help="comma-separated modes [worker,virtual,reactive]")
    p.add_argument("--out", help="where results go [load/results/chaos-<timestamp>]")
    p.add_argument("--app-java-opts", default="", help="JVM flags of the app [none]")
    p.add_argument("--delay-java-opts", default="", help="JVM flags of the delay service [none]")
    p.add_argument("--delay", help="ms of each delay call in io and checkout "
                   "[the app's default, GET /scenarios]")
    for k, (quick, default) in QUICK.items():
        p.add_argument("--" + k.lower().replace("_", "-"), dest=k.lower(),
                       help=f"[{default}; --quick {quick}]")
    for k, default in DEFAULTS.items():
        p.add_argument("--" + k.lower().replace("_", "-"), dest=k.lower(), help=f"[{default}]")
    return p


def startup_parser():
    from harness.runs.startup import DEFAULTS
    p = Parser("startup", "Startup and memory of the packaged app per variant (jvm, aot, "
               "quarkus-aot, native): time to the first 200, RSS then and after a fixed load, over "
               "several starts (docs/startup.md).")
    for k, default in DEFAULTS.items():
        p.add_argument("--" + k.lower().replace("_", "-"), dest=k.lower(),
                       help=f"[{default or 'none'}]")
    p.add_argument("--app-dir", help="the fast-jar folder [target/quarkus-app]")
    p.add_argument("--quarkus-aot-dir",
                   help="a quarkus-app folder with the app.aot Quarkus built [--app-dir's]")
    p.add_argument("--native-bin", help="the native executable [the newest target/*-runner]")
    p.add_argument("--out", help="output folder [load/results/startup-<timestamp>]")
    return p


def contract_parser():
    p = Parser("contract", "The API contract: Schemathesis against the packaged app and its "
               "/q/openapi, every check and phase (examples, coverage, fuzzing, stateful), a fixed "
               "and a random seed, each run bounded by test cases (about 1,200); fails on any "
               "failure, any 5xx, or fewer than --min-cases cases in all.")
    p.add_argument("--max-examples", dest="max_examples", default="8",
                   help="fuzzing's test cases per API operation in each run (Schemathesis -n) [8]")
    p.add_argument("--seed", default="20261122",
                   help="the fixed seed; the second run's is random [20261122]")
    p.add_argument("--min-cases", dest="min_cases", default="2000",
                   help="fewest generated test cases the two runs must reach in all [2000]")
    return p


def calibrate_parser():
    p = Parser("calibrate", "Measures what each part of a request costs each series on this "
               "machine (the workload scenario, one part varied at a time, two rates, repeated) "
               "and fits the cost model advise uses: DIR/calibration.json and calibration.md; "
               "load/results/calibration.json the newest (docs/advise.md).")
    p.add_argument("--modes", help="comma-separated series "
                   "[virtual,worker,reactive,virtual+socket,worker+socket]")
    p.add_argument("--reps", help="repetitions of the design, in a random order each "
                   "[3; --quick 1]")
    p.add_argument("--seconds", help="seconds of each trial [2; --quick 1]")
    p.add_argument("--seed", help="the trials' random order [random, printed]")
    p.add_argument("--out", help="where results go [load/results/calibrate-<timestamp>]")
    p.add_argument("--quick", action="store_true",
                   help="one repetition of 1-s trials (a check, not a calibration)")
    p.add_argument("--refit", nargs="+", metavar="FILE",
                   help="calibration.json files: fit the model again on their trials, measuring "
                   "nothing; several are pooled into --out (one machine calibrated more than once)")
    return p


def advise_parser():
    p = Parser("advise", "A workload's predicted CPU, memory, threads and highest rate per series, "
               "from a calibration, without starting anything; --verify measures it beside the "
               "prediction (docs/advise.md).")
    p.prog = "vtvr-harness advise"
    p.add_argument("--workload", action="append", help="calls=N,fanout=N,queries=N,cpu=N,"
                   "insert=0|1,delay=MS (repeat it to ask several)")
    p.add_argument("--rate", help="requests per second")
    p.add_argument("--settings", "--workload-file", dest="settings", metavar="FILE",
                   type=options.settings_file, help="compare's TOML settings file: its workload, "
                   "rates (each answered) and modes; the flags win over it")
    p.add_argument("--calibration", help="a calibration.json [load/results/calibration.json, "
                   "else the committed docs/results/calibrate-2026-12-07/calibration.json]")
    p.add_argument("--modes", help="comma-separated series "
                   "[every calibrated one; --verify: virtual,worker,reactive]")
    p.add_argument("--json", action="store_true", help="the answer as JSON")
    p.add_argument("--verify", action="store_true", help="measure each workload too: CPU at 20, "
                   "50, 80 %% of each series' predicted ceiling, then a sweep until p99 doubles")
    p.add_argument("--repeat", help="--verify: trials per CPU point, in a random order [2]")
    p.add_argument("--seed", help="--verify: that order [random]")
    p.add_argument("--seconds", help="--verify: seconds of each CPU trial [3]")
    p.add_argument("--out", help="--verify: where results go [load/results/verify-<timestamp>]")
    return p


def targets_parser():
    p = Parser("targets", "One scenario's request in one mode, from the app's catalogue "
               "(GET /scenarios).")
    p.prog = "vtvr-harness targets"
    p.add_argument("scenario")
    p.add_argument("mode")
    p.add_argument("--app-url", help="the app whose catalogue to read [http://127.0.0.1:8080]")
    p.add_argument("--param", action="append",
                   help="NAME=VALUE: a scenario parameter (DELAY, IO_CALLS, ...)")
    return p


def compare(args):
    from harness.runs import compare
    return compare.run(args)


def chaos(args):
    from harness.runs.chaos import run
    return run.run(args)


def startup(args):
    from harness.runs import startup
    return startup.run(args)


def contract(args):
    from harness.runs import contract
    return contract.run(args)


def targets(args):
    from harness.infra import targets
    return targets.run(args)


def calibrate(args):
    from harness.runs import calibrate
    return calibrate.run(args)


def advise(args):
    from harness.runs import advise
    return advise.run(args)


# name -> (its parser, the function that runs it, what it is)
COMMANDS = {"compare": (compare_parser, compare, "load/compare.sh"),
            "chaos": (chaos_parser, chaos, "load/chaos.sh"),
            "startup": (startup_parser, startup, "load/startup.sh"),
            "contract": (contract_parser, contract, "load/contract.sh"),
            "targets": (targets_parser, targets, "the request load/vegeta.sh and hey.sh send"),
            "calibrate": (calibrate_parser, calibrate, "load/calibrate.sh"),
            "advise": (advise_parser, advise, "a workload's predicted cost per series")}


# Subcommands whose module owns its options (the analysis side): arguments go to its main(argv)
def report(argv):
    from harness.report import summaries
    return summaries.main(argv)


def sample(argv):
    from harness.sampling import sample
    return sample.main(argv)


def chaos_probe(argv):
    from harness.runs.chaos import chaos
    return chaos.main(argv)


def hostile(argv):
    from harness.runs.chaos import hostile
    return hostile.main(argv)


# name -> (the function of its arguments, what it is)
DELEGATED = {"report": (report, "summaries, report.html, figures and one-step lines"),
             "sample": (sample, "the per-step process and /q/metrics sampler"),
             "chaos-probe": (chaos_probe,
                             "the fault checks' probes and analysis (targets, recover, verify)"),
             "hostile": (hostile, "the hostile-client checks")}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: vtvr-harness COMMAND [options]   (COMMAND -h for its options)\n")
        for name, (*_, what) in COMMANDS.items():
            print(f"  {name:12} {what}")
        for name, (_, what) in DELEGATED.items():
            print(f"  {name:12} {what}")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS and command not in DELEGATED:
        print(f"error: unknown command '{command}' (vtvr-harness -h lists them)", file=sys.stderr)
        return 2
    from harness.infra.procs import Terminated
    try:
        if command in DELEGATED:
            return DELEGATED[command][0](rest) or 0
        parser, function, _ = COMMANDS[command]
        args = parser().parse(rest)
        if args is None:
            return 0
        args.argv = rest
        if getattr(args, "app_url", None):
            catalogue.use(url=args.app_url)   # the scenario catalogue of the app the run measures
        return function(args)
    except Fatal as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return 143
