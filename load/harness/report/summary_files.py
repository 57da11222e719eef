"""A run's contents (contents.py) -> summary.csv, summary.json and summary.md (and report.html,
html_report.py), all from the result model (analysis/model.py: StepRow's fields, units and column
labels)."""
import csv
import json
import os

from harness.analysis import model
from harness.report import html_report
from harness.report.run_text import TARGETS_NOTE


def write_csv_json(run, c):
    """summary.csv and summary.json of the Contents C into the folder RUN (a published result's
    verdicts, in its summary.json, were read before it is written over)."""
    typed = [model.StepRow.of(r) for r in c.rows]
    with open(os.path.join(run, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=model.FIELDS)
        w.writeheader()
        w.writerows(r.csv_cells() for r in typed)
    lad = c.ladder.data
    # one row a line: a fifth smaller than indented
    with open(os.path.join(run, "summary.json"), "w") as f:
        f.write("{" + c.decided.json_head + (f'"ladder": {json.dumps(lad)},\n' if lad else "")
                + '"machine": ' + json.dumps(c.meta, indent=1) + ',\n"rows": [\n'
                + ",\n".join(json.dumps(r.as_dict()) for r in typed) + "\n]}\n")


def how_measured(c):
    """The section summary.md ends with: the design, the machine, the tools, the method."""
    meta, t = c.meta, c.run
    lines = ["## How this was measured", ""] + ([c.decided.design, ""] if c.decided.design else [])
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
              f"- **mode order**: {t.order}",
              f"- **CPU placement**: {meta.get('placement') or 'none'}",
              f"- **pools and limits** (every mode): {t.settings}",
              ""] + [f"- {x}" for x in t.notes] + [""]
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


def write_md(run, c):
    """summary.md of the Contents C: its opening, verdicts, the steps, how it was measured."""
    t = c.run
    lines = ["# vt-vs-reactive load run", "", *c.opening, ""]
    # no point targets beside verdicts
    lines += c.decided.md + c.advised.md + c.ladder.md + targets_md(t)
    for sc in t.scenarios:
        lines += [f"## {sc.name} (`{sc.params}`)", ""]
        if sc.ceiling:
            lines += [f"Worker-mode ceiling by Little's law: {t.worker_pool} threads / request "
                      f"time = {sc.ceiling:,.0f} req/s.", ""]
        lines.append("| " + " | ".join(model.label(k) for k in model.TABLE) + " |")
        lines.append("|" + "|".join("---" for _ in model.TABLE) + "|")
        lines += ["| " + " | ".join(text.replace("|", "/") for _, text in cells) + " |"
                  for cells in sc.cells]
        lines.append("")
    lines += ["## Flagged steps", ""]
    lines += [f"- {r['scenario']} {r['mode']} {r['tool']} {load}: {r['flags']}"
              + (f" ({r['errors']})" if r.get("errors") else "")
              for r, load in t.flagged] or ["none"]
    lines += ["", *how_measured(c)]
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def targets_md(t):
    """The point targets' table of a run without verdicts (run_text.Texts T), io's saturation."""
    if not t.targets:
        return []
    lines = ["## Targets", "", TARGETS_NOTE, "", "| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {v} |" for a, b, v in t.targets]
    if t.saturation:
        lines += ["", "## Saturation (io)", "",
                  "| series | highest rate fully served, p99 < 2x delay"
                  + (" (median rows) | in each run | " if t.per_run else " | ") + "limit |",
                  "|---|---|---|" + ("---|" if t.per_run else "")]
        lines += [f"| {m} | {x} | " + (f"{per} | " if t.per_run else "") + f"{w} |"
                  for m, x, per, w in t.saturation]
    return lines + [""]


def write_all(run, c):
    """summary.csv, summary.json, summary.md and report.html of the Contents C into RUN."""
    write_md(run, c)
    write_csv_json(run, c)
    html_report.write_html(run, c)
    flagged = len(c.run.flagged)
    print(f"{len(c.rows)} steps, {flagged} flagged -> {run}/summary.csv, summary.json, summary.md, "
          "report.html")
