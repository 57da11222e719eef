"""The interleaved and duet designs' plan (docs/statistics.md) before anything starts: series,
steps, trials.Plan, time model and the --dry-run printing them (the runner: interleave.py)."""
from __future__ import annotations

import math

from harness.analysis import advice, steps, trials
from harness.analysis.targets import AA_PAIRS, pairs_of
from harness.drivers import RATE_TOOLS, unit
from harness.infra.catalogue import table
from harness.infra.errors import Fatal
from harness.infra.procs import log
from harness.runs import plan

# A default run: one step per scenario the targets name, at rates every series served fully
# in earlier runs (docs/results.md); io 2,500 is the A/A yardstick's rate; a --workload
# without --rates: its lowest rate of plan.LEVELS.
DEFAULT_STEPS = (("io", "vegeta", 2500), ("fanout", "vegeta", 150), ("db", "vegeta", 800),
                 ("checkout", "vegeta", 150), ("cpu", "hey", 16),
                 ("workload", "vegeta", plan.levels("workload")[0][0]))
# cpu (with worker: its target) only when asked: time
DEFAULT_SCENARIOS = ("io", "fanout", "db", "checkout")
DEFAULT_SERIES = ("virtual", "virtual+socket", "reactive")
QUICK_STEPS = (("io", "vegeta", 500),)
QUICK_SERIES = ("virtual", "reactive")
QUICK_BLOCKS = 3          # --quick runs this many blocks whatever its budget says, and looks once
MAX_WARM_BLOCKS = 3       # warm blocks after a restart: one, up to this many while unsettled
# per trial beside its load (sampler, scrapes, tool start): 72 s blocks of 16 4-s trials
TRIAL_OVERHEAD_S = 0.6


def serves(series, scenario):
    """True when SERIES (a mode, the floor, a rung; +client, -aa) serves SCENARIO (/scenarios)."""
    return plan.base_of(series) in table().series_for(scenario)


def steps_of(s):
    """[(scenario, tool, load)] of an interleaved run: --rates/--concurrency per chosen scenario
    when given, else its default step (DEFAULT_STEPS; QUICK_STEPS for --quick)."""
    default = {sc: (tool, lv) for sc, tool, lv in DEFAULT_STEPS}
    if s.quick:
        default.update({sc: (tool, lv) for sc, tool, lv in QUICK_STEPS})
    chosen = (s.scenarios if s.scenarios_given
              else [sc for sc, *_ in QUICK_STEPS] if s.quick else DEFAULT_SCENARIOS)
    rate_tools = [t for t in s.tools if t in RATE_TOOLS]
    if len(rate_tools) > 1:
        raise Fatal(f"--tools {','.join(s.tools)}: the {s.design} design keys its trials by "
                    "scenario and load, so it takes one rate tool; compare tools with "
                    "--design sequential (docs/distributed.md)")
    rate_tool = rate_tools[0] if rate_tools else None
    default = {sc: (rate_tool if tool == "vegeta" else tool, lv)
               for sc, (tool, lv) in default.items()}
    out = []
    for sc in chosen:
        if s.rates and rate_tool:
            out += [(sc, rate_tool, r) for r in s.rates]
        if s.conc and "hey" in s.tools:
            out += [(sc, "hey", c) for c in s.conc]
        if not (s.rates or s.conc) and sc in default and default[sc][0] in s.tools:
            out.append((sc, *default[sc]))
    if not out:
        raise Fatal("nothing to run: no chosen scenario has a step (give --rates or --concurrency)")
    return out


def series_of(s):
    """The series of an interleaved run: the chosen modes (--modes, else DEFAULT_SERIES or
    QUICK_SERIES), plus the A/A series (e.g. reactive-aa); --jvm-opts must name one of them."""
    modes = list(s.modes) if s.modes_given else list(QUICK_SERIES if s.quick else DEFAULT_SERIES)
    out = modes + ([s.aa + steps.AA_SUFFIX] if s.aa and s.aa in modes else [])
    for name in s.jvm_opts:
        if name not in out:
            raise Fatal(f"--jvm-opts {name}=...: {name} is not a series of this run "
                        f"({','.join(out)})")
    return tuple(out)


def duet_pairs(series):
    """The pairs a duet run loads together (targets.pairs_of), the A/A pair last: the order a
    seed's schedule draws from, kept as before pairs_of."""
    return tuple(sorted(pairs_of(series), key=lambda p: p in AA_PAIRS))


def timing(s, n_series):
    """trials.Timing of this run's settings: plan.py's app start and warm-up shared by the apps
    started together (the warm blocks are trials.duration_s's)."""
    return trials.Timing(trial_s=s.duration_ms / 1000, ramp_s=s.ramp_ms / 1000,
                         gap_s=TRIAL_OVERHEAD_S, start_s=plan.APP_START_S / n_series * 2,
                         warmup_s=plan.warmup_s(s) / n_series, warm_together=False)


def trial_plan(s, seed):
    """The trials.Plan of a run: its series, steps (scenario, load) and design."""
    series = series_of(s)
    st = steps_of(s)
    idle = [x for x in series if not any(serves(x, sc) for sc, *_ in st)]
    if idle:
        raise Fatal(f"{', '.join(idle)}: no chosen scenario is served by it "
                    f"({', '.join(dict.fromkeys(sc for sc, *_ in st))}; "
                    "the ladder's rungs serve io only)")
    pairs = duet_pairs(series) if s.design == "duet" else ()
    if s.design == "duet" and not pairs:
        raise Fatal("--design duet: no target compares two of the chosen series")
    warm = (1, 1) if s.quick else (1, MAX_WARM_BLOCKS)
    return (trials.Plan(series, tuple((sc, float(lv)) for sc, _, lv in st), seed,
                        s.restart_every, pairs, *warm),
            {(sc, float(lv)): tool for sc, tool, lv in st})


def planned_looks(s, tp, tools, left_s):
    """The looks a run plans for the LEFT_S seconds of its budget, logged with its design."""
    tm = timing(s, len(tp.series))
    n_max = trials.max_blocks(tp, left_s, tm)
    plan_looks = ([max(QUICK_BLOCKS, n_max)] if s.quick
                  else trials.looks(trials.MIN_BLOCKS, n_max))
    units = len(tp.pairs or tp.series)
    log(f"design {s.design}: series [{' '.join(tp.series)}], steps "
        f"[{', '.join(f'{sc} {lv:g}{unit(tools[(sc, lv)])}' for sc, lv in tp.steps)}], "
        f"{units * len(tp.steps)} trials of {s.duration} a block, "
        + (f"apps restarted every {tp.restart_every} blocks" if tp.restart_every < 1000
           else "one app start each")
        + f"; budget {s.budget_s / 60:.1f} min: "
        + (f"about {n_max} blocks" if n_max >= QUICK_BLOCKS or not s.quick
           else f"{QUICK_BLOCKS} blocks, past it")
        + f", looks at {plan_looks or 'none'}")
    if not tp.pairs:
        log(resolves(tp, max(plan_looks or [n_max])))
    for line in foresee(s, tp):
        log(line)
    return plan_looks


def dry_run(s):
    tp, tools = trial_plan(s, s.seed)
    tm = timing(s, len(tp.series))
    n = trials.max_blocks(tp, s.budget_s - 20, tm)
    for k, (kind, x) in enumerate(trials.schedule(tp, min(n, 2) or 1)):
        print(f"{k + 1:3d}. {kind} "
              f"{x if kind == 'restart' else f'block {x.block} {x.scenario} {x.rate:g} '}"
              + ("" if kind == "restart" else " + ".join(x.series)))
    print(f"design {s.design}: {len(tp.series)} series, {len(tp.steps)} steps; "
          f"budget {s.budget_s:.0f} s fits about "
          f"{n} blocks (about {trials.duration_s(tp, n, tm):.0f} s); looks at "
          f"""{trials.looks(trials.MIN_BLOCKS, n)
               or f'the end only (fewer than {trials.MIN_BLOCKS} blocks)'}""")
    if not tp.pairs:
        print(resolves(tp, n))
    for line in foresee(s, tp):
        print(line)
    return 0


def foresee(s, tp):
    """For a workload run: advise's answer for TP's steps and series, before the user waits."""
    if not s.env.get("WORKLOAD"):
        return []
    return advice.preview(s.env["WORKLOAD"], [lv for sc, lv in tp.steps if sc == "workload"],
                          [x for x in tp.series if not x.endswith(steps.AA_SUFFIX)])


def resolves(tp, blocks):
    """What BLOCKS blocks of an interleaved TP can resolve, in one sentence (trials.expected_widths;
    a duet's noise differed from run to run too much for a figure: docs/statistics.md)."""
    widths = trials.expected_widths(tp, blocks)
    n_inv = trials.invocations(tp, blocks)
    if not all(math.isfinite(w) for w in widths.values()):
        return (f"{blocks} blocks over {n_inv} app invocation(s) resolve no difference in CPU "
                "per request (an interval needs two invocations): a longer --budget does")
    said = " and ".join(f"+-{100 * w:.0f} % at {k}'s" for k, w in widths.items())
    return (f"{blocks} blocks over {n_inv} app invocations: a ratio of CPU per request resolves "
            f"to about {said} noise on this project's machine (docs/statistics.md); a smaller "
            "difference reads INCONCLUSIVE")
