"""The verdicts of an interleaved or duet run in its results folder: trials.jsonl (one record per trial) and
verdicts.json (the design and stats.analyse's result) written by the runner, and the parts the report shows from
them: summary.json's top-level `verdicts`, the opening of summary.md and of report.html (interval plot, plain-language
summary, one table row per target and step)."""
from __future__ import annotations

import glob
import html
import json
import os

from harness.analysis.steps import read_json, step_row
from harness.analysis.targets import LABELS
from harness.analysis.verdicts import median_rows
from harness.report import verdict_plot, verdict_summary

VERDICTS = "verdicts.json"
TRIALS = "trials.jsonl"
KEYS = ("target", "scenario", "rate", "metric", "series", "ratio", "ci_low", "ci_high", "level", "blocks",
        "invocations", "verdict", "aa", "aa_half_width", "method", "blocks_needed", "region", "missing", "dropped",
        "note")


def write(run, records, result, design):
    """The runner's output: RECORDS (trial records), RESULT (stats.analyse) and DESIGN (what was run, how)."""
    with open(os.path.join(run, TRIALS), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    with open(os.path.join(run, VERDICTS), "w") as f:
        json.dump({"design": design, **result}, f, indent=1)


def load(run):
    """verdicts.json of RUN, else the verdicts summary.json carries (a published result, whose verdicts.json is in
    its archive), or None (a sequential run has none)."""
    data = read_json(os.path.join(run, VERDICTS))
    if data is None:
        data = read_json(os.path.join(run, "summary.json"), {})
        data = {k: data[k] for k in ("verdicts", "design", "design_broken", "skipped", "ladder") if k in data} \
            if "verdicts" in data else None
    return data


def summary_json(data):
    """The top-level keys summary.json gets from verdicts.json DATA: verdicts, design, design_broken, skipped."""
    if not data:
        return {}
    return {"verdicts": [{k: e.get(k) for k in KEYS} for e in data["verdicts"]], "design": data["design"],
            "design_broken": data["design_broken"], "skipped": data["skipped"]}


def json_head(run):
    """The start of summary.json's text for RUN: its verdict keys (summary_json), one verdict a line; '' for a
    sequential run."""
    head = summary_json(load(run))
    return "".join(f'"{k}": ' + ("[\n" + ",\n".join(json.dumps(e) for e in v) + "\n]" if k == "verdicts"
                                 else json.dumps(v)) + ",\n" for k, v in head.items())


def _ci(e):
    if e["ci_low"] is None:
        return "no interval"
    return f"{e['ratio']:.3f}x [{e['ci_low']:.3f}, {e['ci_high']:.3f}]"


def _hw(e):
    return "" if e.get("aa_half_width") is None else f"+-{100 * e['aa_half_width']:.1f} %"


def design_text(d):
    steps = ", ".join(f"{sc} {lv:g}{' req/s' if tool == 'vegeta' else ' in flight'}" for sc, lv, tool in d["steps"])
    what = (f"duet (pairs loaded at the same moment, the step's rate split between them: "
            f"{'; '.join(' + '.join(p) for p in d['pairs'])})" if d["design"] == "duet"
            else "interleaved (one series loaded at a time, a fresh random order per step and block)")
    jvm = "; ".join(f"{k}: `{v}`" for k, v in (d.get("jvm_opts") or {}).items())
    restarts = (f"apps restarted every {d['restart_every']} blocks" if d["restart_every"] < d["blocks"]
                else "one app invocation per series")
    if d.get("warm_blocks"):
        settle = ", ".join(f"{x:.2f}x" for x in d.get("settling") or [])
        restarts += (f", {d['warm_blocks']} warm block(s) after each start, discarded"
                     + (f" (their CPU per request over the next block's: {settle})" if settle else ""))
    return (f"Design: {what}. Series: {', '.join(d['series'])}. Steps: {steps}. {d['blocks']} blocks of "
            f"{d['trial']} trials (after a {d['ramp_in']} ramp-in), {restarts}, seed {d['seed']}, looks at "
            f"{d['looks'] or 'the end only'}, intervals at "
            f"{100 * d['level']:.1f} %; {d['seconds']} s in all." + (f" Extra JVM options: {jvm}." if jvm else ""))


def md_lines(data):
    """summary.md's opening section."""
    if not data:
        return []
    out = ["## Verdicts", "", design_text(data["design"]), ""]
    out += [f"- {x}" for x in verdict_summary.summary(data)] + [""]
    out += ["| target | step | series | metric | ratio [interval] | A/A band | blocks | verdict | note |",
            "|---|---|---|---|---|---|---|---|---|"]
    for e in data["verdicts"]:
        out.append(f"| {e['target']} | {e['scenario']} {e['rate']:,.0f} | {' / '.join(e['series'])} | "
                   f"{LABELS[e['metric']]} | {_ci(e)} | {_hw(e)} | {e['blocks']} | {e['verdict']} | "
                   f"{(e.get('note') or '').replace('|', '/')} |")
    out += ["", "Method: docs/statistics.md in the repository (geometric mean of per-block "
            "ratios, Student's t on the log ratios with invocation-level standard error; Georges et al. 2007, "
            "Kalibera and Jones 2013). The table rows below are medians over the blocks.", ""]
    return out


def html_section(data):
    """report.html's opening: the interval plot, the summary and the table."""
    if not data:
        return ""
    e = html.escape
    rows = "".join(
        f"<tr><td class='l'>{e(v['target'])}</td><td class='l'>{e(v['scenario'])} {v['rate']:,.0f}</td>"
        f"<td>{e(_ci(v))}</td><td>{e(_hw(v))}</td><td>{v['blocks']}</td><td class='l'><b>{v['verdict']}</b></td>"
        f"<td class='l'>{e(v.get('note') or '')}</td></tr>" for v in data["verdicts"])
    return ("<h2>Verdicts</h2>" + verdict_plot.svg(data["verdicts"])
            + "<ul>" + "".join(f"<li>{e(x)}</li>" for x in verdict_summary.summary(data)) + "</ul>"
            + f"<p class='note'>{e(design_text(data['design']))}</p>"
            + "<table class='d'><tr><th>target</th><th>step</th><th>ratio [interval]</th><th>A/A band</th>"
            + f"<th>blocks</th><th>verdict</th><th>note</th></tr>{rows}</table>"
            + "<p class='note'>The tables and charts below show, per series and step, the median of the blocks' "
              "trials (the run column names the block).</p>")


def rows_of(run, worker_pool):
    """The report's rows of an interleaved run: per series and step, the median over its blocks' trials."""
    by_block = {}
    for d in sorted(glob.glob(os.path.join(run, "trials", "*"))):
        meta = read_json(os.path.join(d, "meta.json"), {})
        if meta:
            by_block.setdefault(meta.get("block", 0), []).append(step_row(d, worker_pool))
    return median_rows([by_block[b] for b in sorted(by_block)])


def publish(run, worker_pool):
    """summary.csv/json/md and report.html of an interleaved run (report.write_all, the verdicts on top)."""
    from harness.report import summaries as report  # report imports this module for its sections
    rows = rows_of(run, worker_pool)
    if not rows:
        return 1
    report.write_all(run, rows, read_json(os.path.join(run, "machine.json"), {}))
    return 0


def headline(data):
    """A few lines for the end of the runner's log."""
    out = [f"{x['verdict']:12} {x['scenario']} {x['rate']:g} {x['target']}: {_ci(x)}"
           for x in data["verdicts"]]
    if data.get("design_broken"):
        out.insert(0, "DESIGN BROKEN: " + data["design_broken"])
    return out
