"""What a compare run will do and how long it takes: the presets (data), the settings, the plan and
its time estimate, all pure functions of the options and the environment (nothing starts here)."""
import random
import re
from dataclasses import dataclass, field

from harness.analysis import ladder
from harness.drivers import DRIVERS, RATE_TOOLS, is_rate
from harness.infra.catalogue import PARAMS, shaped, table
from harness.infra.durations import parse_ms
from harness.infra.errors import Fatal
from harness.infra.series import base_of, client_of  # noqa: F401  (the runs' names for them)
from harness.runs.options import boolean, csv, duration_ms, flag, ints, whole

# Per scenario: (Vegeta rates in req/s, hey concurrency levels), sized for a 2-core machine that
# also runs the load generator, the delay service and the database
LEVELS = {
    # 2,500 > the worker ceiling of 2,000; 400 in flight > 200 threads
    "io": ((500, 1500, 2500, 4000), (50, 400)),
    "fanout": ((50, 150, 300), (10, 100)),     # x10 delay calls each
    "db": ((200, 800, 1600), (10, 100)),
    "slow-query": ((10, 20, 40), (10, 100)),   # 20 connections / 0.5 s = 40 req/s for every mode
    "checkout": ((50, 150, 300), (10, 100)),
    "cpu": ((50, 200, 400), (2, 16)),
    "pinning": ((20, 100, 400), (10, 300)),    # and every pinning-* scenario
    "workload": ((200, 800), (10, 100)),       # any shape: what yours sustains, --rates says
}
DEFAULT_LEVELS = ((50,), (10,))

# The experiments of docs/experiments.md; explicit flags win over a preset. `env` sets scenario
# parameters and the request timeout (TIMEOUT; hey takes its whole seconds).
T30 = {"TIMEOUT": "30s"}
EXPERIMENTS = {
    "E1": dict(scenarios="io", env={"IO_CALLS": "3", "DELAY": "300", **T30}, rates=(100, 200, 400),
               conc=(300, 1500, 3000), duration="10s"),
    "E2": dict(scenarios="cpu", env={"CPU_N": "10000000", "BENCH_MAX_N_EVENT_LOOP": "10000000",
                                     **T30}, rates=(5, 10, 20), conc=(2, 8, 32), duration="10s"),
    "E3": dict(scenarios="cpu,fanout", env={"CPU_N": "1000000", "BENCH_MAX_N_EVENT_LOOP": "1000000",
                                            "FANOUT_CALLS": "50", "DELAY": "100"},
               rates=(10, 20, 40), conc=(4, 16, 64)),
    "E4": dict(scenarios="fanout", env={"FANOUT_CALLS": "100", "DELAY": "100"}, rates=(10,),
               conc=(10,), duration="30s"),
    "E5": dict(scenarios="checkout", env={"DELAY": "100"}, rates=(50, 150, 300), conc=(50, 500),
               duration="10s"),
    "E6": dict(scenarios="fanout", env={"FANOUT_CALLS": "100", "DELAY": "1000", "TIMEOUT": "60s"},
               rates=(1, 5, 10), conc=(1, 10), duration="10s"),
    "E7": dict(scenarios="slow-query", env={"SLOW_DELAY": "1000", **T30}, rates=(5, 10, 20, 30),
               conc=(20, 100), duration="10s"),
    "E8": dict(scenarios="pinning,pinning-reentrant", modes="virtual,worker", env={"DELAY": "100"},
               rates=(20, 100, 400), conc=(10, 300)),
    "saturate": dict(scenarios="io", tools="vegeta",
                     rates=(1000, 2500, 4000, 5500, 7000, 8500, 10000)),
    "cost": dict(scenarios="io,fanout", cost=True, duration="10s", aa="none"),
    # issue #21, docs/floor.md: the floor, every rung and the shipped modes in one interleaved run;
    # io at two rates all serve fully (1,500 = 75 % of the worker's 2,000 req/s ceiling; 2,500
    # fails the worker: docs/results.md). One invocation per series (16 apps): restarts cost more
    # than the blocks they buy in 15 min. --quick: the floor, the rung below our code, reactive.
    "ladder": dict(scenarios="io", design="interleaved", rates=(1000, 1500), tools="vegeta",
                   trial="2s", budget="15m", restart_every=10 ** 6,
                   modes=",".join(dict.fromkeys(s for rungs in ladder.LADDERS.values()
                                                for s in rungs)),
                   quick=dict(modes="floor,ladder-rest-client,reactive", rates=(500,))),
    # io at 1,000 .. 100,000 in flight (runs/scale.py); both JVMs on ZGC (ParallelGC's or G1's
    # pauses made the probe miss), the app's heap up to half the memory (at a quarter ZGC
    # collected back to back: docs/scale.md)
    "scale": dict(scenarios="io", tools="vegeta", aa="none",
                  app_java_opts="-XX:+UseZGC -XX:MaxRAMPercentage=50",
                  delay_java_opts="-XX:+UseZGC"),
    # issue #44 (runs/coldstart.py): fresh apps, loaded from their first ready second; 30 s timeout
    "coldstart": dict(scenarios="io", tools="vegeta", aa="none", modes="virtual,reactive,worker",
                      env=T30),
}
# The cost experiment's own plan: the work per request varies, not the load
COST_STEPS = [("fanout", "vegeta", 20, f"FANOUT_CALLS={x}") for x in (1, 10, 100)] + \
             [("io", "hey", x, "") for x in (50, 400, 1000, 2000, 4000)]
CLIENTS = ("socket", "rest-client")

# The time model, calibrated on the default run of 2026-11-22 (docs/results/default-1run-2026-11-22:
# 117 steps, 73 Vegeta, 4 fresh apps, 982 s) and --quick runs: a step costs its duration plus
# STEP_OVERHEAD_S (tool start, in-flight tail, sampler stop, report line), a Vegeta step its ramp-in
# too; an app start APP_START_S; a warm-up its ramp plus WARMUP_JIT_SHARE of the time up to
# WARMUP_MAX (the four warm-ups ran on while the JIT compiled: 34-46 s, mean 42 s of at most 45);
# RUN_FIXED_S for the machine facts and the final report.
STEP_OVERHEAD_S = 0.87
APP_START_S = 12.0
WARMUP_JIT_SHARE = 0.92
WARMUP_ROUND_S = 0.6
RUN_FIXED_S = 5.0
# The interleaved design (harness/interleave.py): default and --quick time budgets; docs/harness.md
DEFAULT_BUDGET_S = 20 * 60   # issue #29: a default run in at most 20 minutes
QUICK_BUDGET_S = 100
DESIGNS = ("interleaved", "duet", "sequential")


def levels(scenario):
    return LEVELS.get("pinning" if scenario.startswith("pinning") else scenario, DEFAULT_LEVELS)


@dataclass
class Settings:
    """One compare run's settings: the options, the preset and the environment resolved."""
    quick: bool = False
    dry_run: bool = False
    runs: int = 1
    reuse: bool = False
    aa: str = ""
    rotate: int = 0
    cpus: str = ""
    cost: bool = False
    native: bool = False
    rebuild: bool = False
    no_build: bool = False
    profile: bool = False
    aot: bool = False
    experiment: str = ""
    out: str = ""
    app_url: str = ""
    agents: tuple = ()
    app_pid: str = ""
    scenarios: tuple = ()
    modes: tuple = ()
    rates: tuple = ()
    conc: tuple = ()
    tools: tuple = ("vegeta", "hey")
    duration: str = "5s"
    warmup: str = "10s"
    duration_ms: int = 5000
    warmup_ms: int = 10000
    warmup_max_s: int = 45
    ramp_ms: int = 1000
    timeout: str = "10s"
    timeout_s: int = 10
    settle_s: int = 0
    warmup_scale: int = 100
    warmup_jit_pct: int = 5
    metrics_interval: str = "0.5"
    app_java_opts: str = "-XX:+UseParallelGC"
    design: str = "sequential"   # interleaved | duet | sequential (interleave.py: the first two)
    budget_s: float = DEFAULT_BUDGET_S
    jvm_opts: dict = field(default_factory=dict)   # series -> its app's extra JVM options
    seed: int = 0
    restart_every: int = 2
    scenarios_given: bool = False
    modes_given: bool = False
    env: dict = field(default_factory=dict)   # scenario parameters (DELAY, ...) and app settings
    app_env: dict = field(default_factory=dict)   # what of env every app gets (BENCH_*, QUARKUS_*)
    delay_java_opts: str = ""

    @property
    def step_limit_s(self):
        """A step's tool is stopped after this: the step, ramp-in, request timeout and a margin."""
        return (self.ramp_ms + self.duration_ms
                + max(parse_ms(self.timeout), self.timeout_s * 1000)) // 1000 + 30


@dataclass(frozen=True)
class Step:
    series: str
    scenario: str
    tool: str
    level: int
    extra: str = ""      # one scenario parameter for this step only, e.g. FANOUT_CALLS=10

    def __str__(self):
        return " ".join(x for x in (self.series, self.scenario, self.tool, str(self.level),
                                    self.extra) if x)


def _preset(s, args, env, exp):
    """Experiment EXP's preset into S and ENV (the flags win over it, applied after); the preset."""
    preset = EXPERIMENTS.get(exp if exp in ("saturate", "cost", "ladder", "scale", "coldstart")
                             else exp.upper())
    if preset is None:
        raise Fatal(f"unknown experiment '{exp}' "
                    "(E1 .. E8, saturate, cost, ladder, scale, coldstart)")
    if s.quick:
        preset = {**preset, **preset.get("quick", {})}
    s.experiment = exp
    s.scenarios = csv(preset["scenarios"])
    s.modes = csv(preset.get("modes")) or s.modes
    s.rates, s.conc = preset.get("rates", ()), preset.get("conc", ())
    s.tools = csv(preset.get("tools")) or s.tools
    s.duration = preset.get("duration", s.duration)
    s.cost = preset.get("cost", False)
    env.update({k: v for k, v in preset.get("env", {}).items() if flag(args, k.lower()) is None})
    s.app_java_opts = preset.get("app_java_opts", s.app_java_opts)
    s.delay_java_opts = preset.get("delay_java_opts", s.delay_java_opts)
    return preset


def settings(args, rng=random):
    """A run's settings from its parsed options ARGS (cli.compare_parser); Fatal on bad input."""
    sc = table()
    # scenario parameters by catalogue name (DELAY, IO_CALLS, ...): given flags only, else the app's
    env = sc.canonical({k: flag(args, k.lower()) for k in PARAMS
                        if flag(args, k.lower()) is not None})
    env["TIMEOUT"] = flag(args, "timeout", "10s")
    s = Settings(scenarios=sc.plain, modes=sc.modes, quick=args.quick, dry_run=args.dry_run,
                 native=args.native, rebuild=bool(boolean(args, "rebuild")), no_build=args.no_build,
                 profile=args.profile, aot=args.aot, out=args.out or "", app_url=args.app_url or "",
                 app_pid=flag(args, "app_pid", ""), cpus=flag(args, "cpus", ""))
    exp = args.experiment or ""
    preset = _preset(s, args, env, exp) if exp else {}
    reuse = boolean(args, "reuse")
    if s.quick:
        s.duration, s.warmup = "1s", "1s"
    s.reuse = bool(s.quick if reuse is None else reuse)
    # a workload: its scenario unless told
    s.scenarios = csv(args.scenario) or shaped(env) or s.scenarios
    # a workload is set beside advise, whose calibration measured compiled code: after 45 s the
    # JIT still took 25-41 % of a core and CPU per request 17-34 % more (docs/advise.md, 2026-12-07)
    s.warmup_max_s = whole(args, "warmup_max", "0" if s.quick else
                           "150" if "workload" in s.scenarios else "45")
    s.modes = csv(flag(args, "modes")) or s.modes
    s.rates = ints(flag(args, "rates"), "rates") or s.rates
    s.conc = ints(flag(args, "concurrency"), "concurrency") or s.conc
    s.tools = csv(args.tools) or s.tools
    s.agents = csv(flag(args, "agents"))
    # pods of Hyperfoil's k8s deployer
    if len(s.agents) == 1 and re.fullmatch(r"k8s:[1-9][0-9]*", s.agents[0]):
        s.agents = ("",) * int(s.agents[0][4:])
    if s.agents and not ("hyperfoil" in s.tools and args.dry_run):
        raise Fatal("agents: Hyperfoil benchmarks for a controller's agents (docs/distributed.md); "
                    "they are written, not run, by a --dry-run with --tools hyperfoil")
    s.duration = args.duration or s.duration
    s.warmup = flag(args, "warmup") or s.warmup
    env.setdefault("DELAY", sc.default("DELAY"))   # the app's catalogue
    s.env = env
    # app settings a preset names (E2, E3: the reactive cpu guard) reach every app it starts
    s.app_env = {k: v for k, v in env.items() if k.startswith(("BENCH_", "QUARKUS_"))}
    s.settle_s = whole(args, "settle", "0", what="whole seconds")
    s.app_java_opts = flag(args, "app_java_opts", s.app_java_opts)
    s.delay_java_opts = flag(args, "delay_java_opts", s.delay_java_opts)
    s.metrics_interval = flag(args, "metrics_interval", "0.5")
    s.warmup_scale = whole(args, "warmup_scale", "100", least=1, what="a positive whole percentage")
    s.warmup_jit_pct = whole(args, "warmup_jit_pct", "5", what="a whole percentage")
    s.duration_ms = duration_ms(s.duration, "--duration must be a Go duration like 5s or 1m")
    s.warmup_ms = duration_ms(s.warmup, "warmup must be a Go duration like 10s")
    s.ramp_ms = duration_ms(flag(args, "ramp_in", "0s" if s.quick else "1s"),
                            "ramp_in must be a Go duration like 1s")
    s.timeout = env.pop("TIMEOUT")
    s.timeout_s = max(1, duration_ms(s.timeout, "timeout must be a Go duration like 10s") // 1000)
    _check(s, sc, args.aa or preset.get("aa", ""))
    if "workload" in s.scenarios and not s.app_env:   # a preset's app settings: not the catalogue's
        sc.refuse(env.get("WORKLOAD"), s.modes)   # the app's 400s, named before anything starts
    s.runs = whole(args, "runs", "1", least=1, most=99, what="1 to 99")
    design_opts(s, args, exp, preset)
    rotate = None if flag(args, "rotate") is None else whole(args, "rotate", "0")
    s.rotate = rotate if rotate is not None else rng.randrange(len(s.modes) + (1 if s.aa else 0))
    return s


def _check(s, sc, aa):
    """Checks S's scenarios, modes, tools against catalogue SC; sets A/A series AA (or default)."""
    for sc_name in s.scenarios:
        if sc_name not in sc.scenarios:
            raise Fatal(f"unknown scenario '{sc_name}' (one of: {' '.join(sc.scenarios)})")
    for m in s.modes:
        if base_of(m) not in sc.series:
            raise Fatal(f"unknown mode '{m}' (one of: {' '.join(sc.series)}, "
                        "or virtual+socket, worker+socket)")
        takes = ("virtual", "worker", *ladder.CLIENT_RUNGS)
        if client_of(m) and (base_of(m) not in takes or client_of(m) not in CLIENTS):
            raise Fatal(f"mode '{m}': a delay client (+socket, +rest-client) exists for "
                        f"{', '.join(takes)} only")
    for t in s.tools:
        if t not in DRIVERS:
            raise Fatal(f"unknown tool '{t}' ({', '.join(DRIVERS)})")
    aa = aa or ("reactive" if not s.quick and "io" in s.scenarios
                and any(is_rate(t) for t in s.tools) else "")
    s.aa = "" if aa == "none" else aa
    if s.aa and s.aa not in s.modes:
        raise Fatal(f"--aa {s.aa}: not one of the measured modes ({','.join(s.modes)})")


def design_opts(s, args, experiment, preset):
    """--design, --budget, --jvm-opts, --seed into S. Default design: interleaved for a plain run
    (and --quick), sequential for an experiment, runs > 1, --cost, --app-url, cpus, or PRESET's."""
    s.scenarios_given = bool(args.scenario or shaped(s.env) or preset.get("scenarios"))
    s.modes_given = bool(flag(args, "modes") or preset.get("modes"))
    plain = not (experiment or s.runs > 1 or s.app_url or s.cpus)
    s.design = args.design or preset.get("design") or ("interleaved" if plain else "sequential")
    if s.design not in DESIGNS:
        raise Fatal(f"--design takes {', '.join(DESIGNS)}, got '{s.design}'")
    s.budget_s = QUICK_BUDGET_S if s.quick else duration_ms(preset["budget"], "budget") / 1000 \
        if "budget" in preset else DEFAULT_BUDGET_S
    if args.budget:
        s.budget_s = duration_ms(args.budget,
                                 "--budget must be a Go duration like 20m or 90s") / 1000
    s.restart_every = preset.get("restart_every", s.restart_every)
    for item in args.jvm_opts or ():
        name, eq, opts = item.partition("=")
        if not eq or not name or not opts.strip():
            raise Fatal("--jvm-opts takes SERIES=OPTIONS (e.g. "
                        f"'reactive-aa=-XX:TieredStopAtLevel=1'), got '{item}'")
        s.jvm_opts[name] = " ".join(filter(None, (s.jvm_opts.get(name), opts.strip())))
    for what, given in (("--jvm-opts", s.jvm_opts), ("--profile", s.profile), ("--aot", s.aot)):
        if given and s.design == "sequential":
            raise Fatal(f"{what} needs the interleaved or duet design (every series its own app)")
    if args.seed is not None and not re.fullmatch(r"[0-9]+", args.seed):
        raise Fatal(f"--seed takes a whole number, got '{args.seed}'")
    s.seed = int(args.seed) if args.seed is not None else random.randrange(2 ** 31)
    if s.design != "sequential":
        if s.quick:
            s.restart_every = 10 ** 6   # one invocation: a few blocks fit in --quick's budget
            if not args.duration:
                s.duration, s.duration_ms = "2s", 2000
        elif not args.duration:         # short trials, more blocks: docs/harness.md
            s.duration = preset.get("trial", "3s")
            s.duration_ms = duration_ms(s.duration, "duration")
        if not s.aa and args.aa != "none":
            s.aa = "reactive"
        if flag(args, "warmup") is None:
            s.warmup, s.warmup_ms = ("2s", 2000) if s.quick else ("10s", 10000)


def mode_order(s):
    """The series in measuring order, rotated by the rotate setting (the last one gets the warmest
    DB buffer pool and page cache); the A/A series rotates as one of its own, so its two
    measurements sit at different places."""
    order = list(s.modes) + ([s.aa + "-aa"] if s.aa else [])
    k = s.rotate % len(order)
    return order[k:] + order[:k]


def build_plan(s):
    """The steps of one run, in order."""
    sc = table()
    plan = []
    for m in mode_order(s):
        if s.cost:
            if not m.endswith("-aa"):
                plan += [Step(m, scen, tool, lv, extra) for scen, tool, lv, extra in COST_STEPS]
            continue
        for scen in s.scenarios:
            if base_of(m) not in sc.series_for(scen) or (m.endswith("-aa") and scen != "io"):
                continue   # the A/A row: io, a rate tool
            r, c = levels(scen)
            r, c = s.rates or r, s.conc or c
            if s.quick:
                r, c = s.rates or r[:1], s.conc or c[:1]
            rate_tools = [t for t in s.tools if t in RATE_TOOLS]
            k = s.rotate % len(rate_tools) if rate_tools else 0   # 2 rate tools alternate by run
            rate_tools = rate_tools[k:] + rate_tools[:k]
            # the A/A row: the first rate tool
            for tool in rate_tools[:1] if m.endswith("-aa") else rate_tools:
                plan += [Step(m, scen, tool, x) for x in r]
            if "hey" in s.tools and not m.endswith("-aa"):
                plan += [Step(m, scen, "hey", x) for x in c]
    if not plan:
        raise Fatal("nothing to run: no chosen scenario has a chosen mode")
    return plan


def app_starts(plan, reuse):
    """Indexes of the steps before which an app (and delay service) starts: each series with a
    fresh app; with reuse only the first, a delay-client variant, the A/A row, a process change."""
    starts, current, client = [], None, None
    own = table().bare
    process = lambda series: base_of(series) if base_of(series) in own else "app"   # noqa: E731
    for i, st in enumerate(plan):
        if st.series != current:
            if (not reuse or current is None or st.series.endswith("-aa")
                    or client_of(st.series) != client or process(st.series) != process(current)):
                starts.append(i)
                client = client_of(st.series)
            current = st.series
    return starts


def series_starts(plan):
    """The indexes of the steps that begin a series (each is preceded by that series' warm-up)."""
    return [i for i, st in enumerate(plan) if i == 0 or plan[i - 1].series != st.series]


def warmup_s(s):
    """The expected length of one warm-up: its ramp, then the JIT rounds up to WARMUP_MAX."""
    extension = max(0.0, s.warmup_max_s - s.warmup_ms / 1000) * WARMUP_JIT_SHARE
    return s.warmup_ms / 1000 + WARMUP_ROUND_S + extension


def estimate_s(s, plan, start=0, step_overhead_s=STEP_OVERHEAD_S, app_start_s=APP_START_S,
               warm_s=None, prepared=False):
    """Seconds from step START (0-based) of PLAN to the end of the run; PREPARED: the app start and
    warm-up before step START are done. A run in progress's measured figures (step overhead, app
    start, warm-up) replace the model's when given."""
    warm_s = warmup_s(s) if warm_s is None else warm_s
    rest = plan[start:]
    first = start + 1 if prepared else start
    starts = sum(1 for i in app_starts(plan, s.reuse) if i >= first)
    warms = sum(1 for i in series_starts(plan) if i >= first)
    step = s.duration_ms / 1000 + step_overhead_s + s.settle_s
    ramp = s.ramp_ms / 1000 * sum(1 for st in rest if is_rate(st.tool))
    return len(rest) * step + ramp + starts * app_start_s + warms * warm_s + RUN_FIXED_S
