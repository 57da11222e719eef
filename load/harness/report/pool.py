"""`vtvr-harness report pool OUT RUN_DIR...`: the verdicts of several interleaved (or duet)
runs of the same series and steps, taken together.

Each run's blocks and invocations stay its own (renumbered), so the standard error comes from
all runs' invocations: three default runs give 6-9 where one gives 2-3 (docs/statistics.md,
"Pooling runs"). Decide how many runs to pool before looking at their verdicts: pooling until
an interval decides makes false decisions likelier than 5 %. Pooled intervals are at 95 %
(each run's looks spent their error share on that run's early stop, not on the pool).

The pooled runs also measure the noise better: per pair and step, Kalibera and Jones' two
components and the half-width they leave to one run of I invocations (docs/statistics.md,
"What one run can resolve")."""
from __future__ import annotations

import dataclasses
import math
import os

from harness.analysis import ladder, stats, trials
from harness.analysis.steps import read_json, worker_pool_of
from harness.analysis.targets import AA_PAIRS, for_series, pairs_of
from harness.infra.errors import Fatal
from harness.report import contents, summary_files, verdict_report, verdict_sections
from harness.report.verdict_sections import TRIALS, VERDICTS

SAME = ("design", "series", "steps", "pairs")   # what every pooled run must share (design keys)
RUN_INVOCATIONS = (3, 4, 6, 8, 12)               # one run's invocations noise() gives widths for


def read_run(run):
    """(records, design) of one interleaved or duet run folder; Fatal when it has none."""
    design = (read_json(os.path.join(run, VERDICTS)) or {}).get("design")
    if not design or not os.path.isfile(os.path.join(run, TRIALS)):
        raise Fatal(f"{run}: no {TRIALS} and {VERDICTS} "
                    "(pool takes the folders of interleaved or duet runs)")
    return verdict_sections.records_of(run), design


def merge(runs):
    """(records, designs) of RUNS: blocks and invocations renumbered run after run, each record
    naming its run; Fatal with fewer than two runs or when they differ in SAME."""
    if len(runs) < 2:
        raise Fatal("pool takes at least two run folders")
    records, designs, blocks, invocations = [], [], 0, 0
    for run in runs:
        recs, design = read_run(run)
        first = designs[0] if designs else design
        differ = [k for k in SAME if design.get(k) != first.get(k)]
        if differ:
            raise Fatal(f"{run} differs from {runs[0]} in {', '.join(differ)}: "
                        "pool only runs of the same design")
        name = os.path.basename(os.path.normpath(run))
        records += [dataclasses.replace(r, run=name, block=blocks + r.block,
                                        invocation=invocations + (r.invocation or 0))
                    for r in recs]
        own = 1 + max((r.invocation or 0 for r in recs), default=-1)
        blocks += 1 + max((r.block for r in recs), default=-1)
        invocations += own
        designs.append({**design, "run": name, "invocations": own})
    return records, designs


def pool(out, runs):
    """The pooled verdicts of RUNS into the folder OUT: trials.jsonl, verdicts.json, summaries."""
    records, designs = merge(runs)
    level, seed = 1 - trials.ALPHA, designs[0]["seed"]
    result = stats.analyse(records, for_series(designs[0]["series"]), AA_PAIRS, level, seed=seed)
    result["ladder"] = ladder.analyse(records, level, seed,
                                      result["design_broken"] or result["cannot_decide"])
    design_noise = noise(records, designs[0])
    machines = [read_json(os.path.join(run, "machine.json"), {}) for run in runs]
    commits = sorted({m.get("git_commit") for m in machines if m.get("git_commit")})
    design = {**{k: designs[0][k] for k in SAME}, "pooled": designs, "commits": commits,
              "level": level, "blocks": sum(d["blocks"] for d in designs),
              "seconds": sum(d.get("seconds", 0) for d in designs), "noise": design_noise}
    os.makedirs(out, exist_ok=True)
    verdict_report.write(out, records, result, design)
    rows = contents.trial_rows(runs, worker_pool_of(machines[0]))
    started = ", ".join(f"{d['run']} ({m.get('started') or '?'})"
                        for d, m in zip(designs, machines, strict=True))
    summary_files.write_all(out, contents.of(out, rows, {
        **machines[0], "started": f"{len(runs)} runs pooled: {started}",
        "command": f"vtvr-harness report pool {out} {' '.join(runs)}",
        "git_commit": ", ".join(commits)}))
    for line in verdict_report.headline(result, design) + [noise_line(n) for n in design_noise]:
        print(line)
    if len(commits) > 1:
        print(f"warning: the runs are of different commits ({', '.join(commits)}): "
              "pool runs of one app and harness")
    return 0


def noise(records, design):
    """Per pair (A/A and targets) and step of DESIGN: trials.components_of RECORDS (CPU per
    request) and trials.half_width of one run of I invocations (RUN_INVOCATIONS): [with the
    pooled blocks per invocation, with any number of blocks]."""
    out = []
    for a, b in pairs_of(design["series"]):
        for sc, rate, *_ in design["steps"]:
            comp = trials.components_of(records, [(a, b)], [(sc, rate)])
            if comp is None:
                continue
            per = comp.n_blocks / comp.n_inv
            out.append({"pair": [a, b], "step": [sc, rate], "invocations": comp.n_inv,
                        "blocks": comp.n_blocks, "between_sd": round(math.sqrt(comp.between), 4),
                        "within_sd": round(math.sqrt(comp.within), 4),
                        "half_width": {i: [round(trials.half_width(comp, i, i * per), 4),
                                           round(trials.half_width(comp, i), 4)]
                                       for i in RUN_INVOCATIONS}})
    return out


def noise_line(n):
    """One printed line of a noise() entry."""
    per = n["blocks"] / n["invocations"]
    return (f"noise of {n['pair'][0]} / {n['pair'][1]} at {n['step'][0]} {n['step'][1]:g} "
            f"(CPU per request, over {n['invocations']} invocations and {n['blocks']} blocks): "
            f"between invocations sd {n['between_sd']:.3f}, "
            f"between blocks of one {n['within_sd']:.3f}; one run of I invocations of {per:.1f} "
            "blocks each gives about "
            + ", ".join(f"I={i} +-{100 * w:.1f} %" for i, (w, _) in n["half_width"].items())
            + "; of any number of blocks at best "
            + ", ".join(f"I={i} +-{100 * f:.1f} %" for i, (_, f) in n["half_width"].items()))
