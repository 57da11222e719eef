"""A run's rows -> summary.csv, summary.json and summary.md (and report.html, html_report.py), all
from the result model (analysis/model.py: StepRow's fields, units and column labels)."""
import csv
import glob
import json
import os

from harness.analysis import model
from harness.analysis.steps import fmt, sort_rows, step_row, worker_ceiling
from harness.analysis.verdicts import saturation, saturation_args, targets
from harness.report import html_report, ladder_report, verdict_sections, verdict_summary
from harness.report.run_text import (
    TARGETS_NOTE,
    cell,
    load_label,
    method_notes,
    order_text,
    per_run_text,
    settings_text,
    worker_pool_of,
)


def load_rows(run, worker_pool):
    rows = []
    for step in sorted(glob.glob(os.path.join(run, "steps", "*"))):
        if os.path.exists(os.path.join(step, "meta.json")):
            rows.append(step_row(step, worker_pool))
    return sort_rows(rows)


def write_csv_json(run, rows, data, meta):
    """summary.csv and summary.json of ROWS; DATA: the run's verdicts (verdict_sections.load), read
    before summary.json is written over (a published result's verdicts are in it); META: its
    machine.json."""
    typed = [model.StepRow.of(r) for r in rows]
    with open(os.path.join(run, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=model.FIELDS)
        w.writeheader()
        w.writerows(r.csv_cells() for r in typed)
    lad, head = ladder_report.of_run(data, rows), verdict_sections.json_head(data)
    # one row a line: a fifth smaller than indented
    with open(os.path.join(run, "summary.json"), "w") as f:
        f.write("{" + head + (f'"ladder": {json.dumps(lad)},\n' if lad else "")
                + '"machine": ' + json.dumps(meta, indent=1) + ',\n"rows": [\n'
                + ",\n".join(json.dumps(r.as_dict()) for r in typed) + "\n]}\n")


def opening(data, rows, worker_pool):
    """The lines summary.md and report.html open with: the verdicts DATA's
    (verdict_summary.opening), or for a run without (sequential) what was swept and its point
    targets."""
    if data:
        return verdict_summary.opening(data)
    steps = ", ".join(
        f"{sc} ({', '.join(dict.fromkeys(load_label(r) for r in rows if r['scenario'] == sc))})"
        for sc in dict.fromkeys(r["scenario"] for r in rows))
    out = [f"Compared {', '.join(dict.fromkeys(r['mode'] for r in rows))} in a sequential sweep, "
           f"one reading per step and no intervals: {steps}."]
    t = targets(rows, worker_pool)
    if t:
        n = {v: sum(1 for *_, x in t if x == v) for v in ("PASS", "FAIL")}
        out.append(f"Targets on those readings: {n['PASS']} hold, {n['FAIL']} miss"
                   + (f" ({'; '.join(a for a, _, v in t if v == 'FAIL')[:300]})"
                      if n["FAIL"] else "")
                   + "; a difference is decided only by the interleaved design's intervals.")
    return out


def how_measured(data, meta):
    """The section summary.md ends with: the design (of the verdicts DATA), the machine, the tools,
    the method."""
    lines = ["## How this was measured", ""] + (
        [verdict_sections.design_text(data["design"]), ""] if data else [])
    lines += [f"- **machine**: {meta.get('cores')} cores ({meta.get('cpu', '?')}), "
              f"{meta.get('memory_mib', '?')} MiB RAM, {meta.get('os', '?')}, kernel "
              f"{meta.get('kernel', '?')}",
              f"- **JDK**: {meta.get('jdk', 'n/a')}",
              f"- **Quarkus**: {meta.get('quarkus', 'n/a')}",
              f"- **app**: {meta.get('app', 'n/a')}; JVM options: "
              f"`{meta.get('java_opts') or 'JVM defaults'}`",
              f"- **run**: {meta.get('started', '?')}, `{meta.get('command', '')}`, commit "
              f"{meta.get('git_commit')}",
              f"- **tools**: {meta.get('vegeta', 'vegeta')}, {meta.get('hey', 'hey')}"
              + (f", {meta['hyperfoil']}" if meta.get("hyperfoil") else ""),
              f"- **mode order**: {order_text(meta)}",
              f"- **CPU placement**: {meta.get('placement') or 'none'}",
              f"- **pools and limits** (every mode): {settings_text(meta)}",
              ""] + [f"- {x}" for x in method_notes(meta)] + [""]
    lines += ["Vegeta rows (load in req/s) are the open model: latency truth at a fixed arrival "
              "rate; their percentiles leave out the requests of the step's ramp-in (RAMP_IN, 1 s "
              "by default), which 'p99 incl. ramp-in' counts too. hey rows (load = requests in "
              "flight) are the closed model: they probe saturation throughput; their latency hides "
              "queueing. 'ok req/s' is Vegeta's throughput (successes over send time plus the wait "
              "for the last answers) or hey's successes per second. CPU ms/req is the app "
              "process's utime+stime during the step over successful requests (delay service not "
              "included). threads = peak OS threads of the app (platform threads). Flags: "
              "LOW_SEND_RATE = Vegeta sent < 95% of the asked rate (generator-limited, latency "
              "under-reported); BELOW_RATE = answers fell > 5% behind the asked rate (server "
              "saturated); ERRORS = success < 100%; NO_SAMPLES = no process samples; "
              "APP_UNRESPONSIVE = the app did not answer one more request after the step (thread "
              "dump in the step folder) and was restarted.", ""]
    return lines


def write_md(run, rows, meta, scenarios, worker_pool, data, head):
    """summary.md: HEAD (opening's lines), the verdicts DATA, the steps, how it was measured."""
    lines = ["# vt-vs-reactive load run", "", *head, ""]
    decided = verdict_sections.md_lines(data)
    lines += decided + ladder_report.md_lines(ladder_report.of_run(data, rows))
    # no point verdicts beside the intervals
    lines += [] if decided else targets_md(rows, meta, worker_pool)
    for sc in scenarios:
        sr = [r for r in rows if r["scenario"] == sc]
        if not sr:
            continue
        lines += [f"## {sc} (`{sr[0]['params']}`)", ""]
        ceil = worker_ceiling(sc, sr[0]["params"], worker_pool)
        if ceil:
            lines += [f"Worker-mode ceiling by Little's law: {worker_pool} threads / request time "
                      f"= {ceil:,.0f} req/s.", ""]
        lines.append("| " + " | ".join(model.label(k) for k in model.TABLE) + " |")
        lines.append("|" + "|".join("---" for _ in model.TABLE) + "|")
        for r in sr:
            cells = [cell(r, k) for k in model.TABLE]
            lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
        lines.append("")
    flagged = [r for r in rows if r["flags"]]
    lines += ["## Flagged steps", ""]
    lines += [f"- {r['scenario']} {r['mode']} {r['tool']} {load_label(r)}: {r['flags']}"
              + (f" ({r['errors']})" if r.get("errors") else "") for r in flagged] or ["none"]
    lines += ["", *how_measured(data, meta)]
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def targets_md(rows, meta, worker_pool):
    t = targets(rows, worker_pool)
    if not t:
        return []
    lines = ["## Targets", "", TARGETS_NOTE, "", "| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in t]
    sat = saturation(rows, **saturation_args(meta))
    if sat:
        runs = "saturation_runs" in (meta or {})
        lines += ["", "## Saturation (io)", "",
                  "| series | highest rate fully served, p99 < 2x delay"
                  + (" (median rows) | in each run | " if runs else " | ") + "limit |",
                  "|---|---|---|" + ("---|" if runs else "")]
        lines += [f"| {m} | {fmt(x, 0) if x else 'none'} | "
                  + (f"{per_run_text(meta, m)} | " if runs else "") + f"{w} |" for m, x, w in sat]
    return lines + [""]


def write_all(run, rows, meta):
    """summary.csv, summary.json, summary.md and report.html of ROWS into the folder RUN."""
    seen = list(dict.fromkeys(r["scenario"] for r in rows))
    worker_pool = worker_pool_of(meta)
    data = verdict_sections.load(run)   # once, before summary.json is written over
    head = opening(data, rows, worker_pool)
    write_csv_json(run, rows, data, meta)
    write_md(run, rows, meta, seen, worker_pool, data, head)
    html_report.write_html(run, rows, meta, seen, worker_pool, data, head)
    flagged = sum(1 for r in rows if r["flags"])
    print(f"{len(rows)} steps, {flagged} flagged -> {run}/summary.csv, summary.json, summary.md, "
          "report.html")
