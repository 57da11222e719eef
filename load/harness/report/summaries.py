"""A compare run's step folders -> summary.csv, summary.json, summary.md and report.html; a run folder -> its published
layout under docs/results.

Subcommands (`vtvr-harness report SUBCOMMAND -h`):
  build RUN_DIR             summaries and the HTML report for RUN_DIR/steps/* (or the steps in RUN_DIR/steps.tar.xz)
  render RUN_DIR            the same from RUN_DIR/summary.json (a published result, after a change of the report)
  median OUT RUN_DIR...     the same files in OUT from several runs: per step the row of the run whose p99
                            (successes) is the median, min-max of every figure, flags with their counts
  figures RUN_DIR OUT_DIR   io-p99.svg and io-throughput.svg for README (standalone SVG files)
  step STEP_DIR             one line about one finished step; exit 3 when the step saw errors
  hey-summary FILE.csv      a short summary of a hey CSV (load/hey.sh prints it)
  machine [--java JAVA] [--app-url URL] [--set KEY=VALUE ...] [--list KEY=A,B]   machine.json to stdout
  publish RUN_DIR DEST      RUN_DIR as a published result: what pages quote (summary.json, summary.md, report.html
                            <= 400 KB, else report.html left out), no raw data

Percentiles with hdrhistogram (3 significant digits), process figures with psutil, /q/metrics with prometheus_client's
parser, the page from templates/report.html.j2. The report is one HTML file with inline SVG figures, so it opens
offline. Vegeta percentiles come from the raw results (`vegeta encode`): all answers, and successes only (p50_ok_ms,
p99_ok_ms); when no vegeta binary is found, they come from Vegeta's JSON report, p99.9 and the success-only figures
are left empty. Environment: VEGETA (path of the vegeta binary; else PATH, else $VTVR_CACHE/bin/vegeta).
"""
import argparse
import csv
import functools
import glob
import json
import os
import re
import sys
from importlib import resources

import jinja2

from harness.analysis.steps import (
    AA_SUFFIX,
    FIELDS,
    fmt,
    hey_rows,
    one_line,
    params_of,
    percentile,
    read_json,
    series_names,
    sort_rows,
    step_row,
    worker_ceiling,
)
from harness.analysis.verdicts import median_rows, saturation, saturation_args, saturation_over_runs, targets
from harness.report import archive, ladder_report, verdict_report
from harness.report.charts import Tips, mode_color, series_for, svg_chart
from harness.sampling import machine

# The settings that make the comparison fair or bound it, printed in every report: (key, what it is)
SETTINGS = [
    ("quarkus.thread-pool.max-threads", "worker threads"), ("quarkus.thread-pool.queue-size", "worker queue"),
    ("bench.fanout-pool-size", "worker fan-out threads"), ("bench.fanout-queue-size", "worker fan-out queue"),
    ("quarkus.datasource.jdbc.max-size", "JDBC pool"), ("quarkus.datasource.reactive.max-size", "reactive pool"),
    ("bench.db-acquire-timeout", "DB pool wait"), ("bench.db-socket-timeout-ms", "DB socket timeout ms"),
    ("quarkus.rest-client.delay.connection-pool-size", "delay client connections"),
    ("bench.blocking-client", "blocking delay client"), ("bench.request-deadline", "request deadline"),
    ("bench.max-in-flight", "requests in progress per mode"), ("bench.max-n-event-loop", "reactive cpu n ceiling"),
    ("bench.delay-http2", "delay calls over h2c"),
    ("quarkus.http.limits.max-concurrent-streams", "HTTP/2 streams per connection"),
]


def settings_text(meta):
    """The run's settings as one line: 'worker threads 200, worker queue 400, ...' (as the app told them at /q/info;
    '?' for one it did not tell)."""
    values = meta.get("settings") or {}
    return ", ".join(f"{label} {values.get(key, '?')}" for key, label in SETTINGS)


def worker_pool_of(meta, default=200):
    """quarkus.thread-pool.max-threads of the run's app: the worker-mode ceiling's numerator."""
    v = str((meta.get("settings") or {}).get("quarkus.thread-pool.max-threads", ""))
    return int(v) if v.isdigit() else default


# ---------------------------------------------------------------------------------------------- build
def load_rows(run, worker_pool):
    rows = []
    for step in sorted(glob.glob(os.path.join(run, "steps", "*"))):
        if os.path.exists(os.path.join(step, "meta.json")):
            rows.append(step_row(step, worker_pool))
    return sort_rows(rows)


def calls_of(r):
    return float(params_of(r["params"]).get("calls", 1))


def write_csv_json(run, rows):
    with open(os.path.join(run, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: "" if r.get(k) is None else json.dumps(r[k]) if isinstance(r[k], dict) else r[k]
                        for k in FIELDS})
    meta = read_json(os.path.join(run, "machine.json"), {})
    # read before the file is opened for writing: a published result's verdicts live in its summary.json
    lad, head = ladder_report.of_run(verdict_report.load(run), rows), verdict_report.json_head(run)
    with open(os.path.join(run, "summary.json"), "w") as f:   # one row a line: a fifth smaller than indented
        f.write("{" + head + (f'"ladder": {json.dumps(lad)},\n' if lad else "")
                + '"machine": ' + json.dumps(meta, indent=1) + ',\n"rows": [\n'
                + ",\n".join(json.dumps(r) for r in rows) + "\n]}\n")


MD_COLS = [("mode", "mode"), ("tool", "tool"), ("load", "load"), ("achieved_rps", "ok req/s"),
           ("success_pct", "ok %"), ("p50_ok_ms", "p50 ok ms"), ("p99_ok_ms", "p99 ok ms"), ("p50_ms", "p50 ms"),
           ("p90_ms", "p90 ms"), ("p99_ms", "p99 ms"),
           ("p999_ms", "p99.9 ms"), ("p99_all_ms", "p99 incl. ramp-in"), ("max_ms", "max ms"),
           ("cpu_ms_per_req", "CPU ms/req"), ("cpu_pct", "app CPU %"), ("gen_cpu_pct", "gen CPU %"),
           ("delay_cpu_pct", "delay CPU %"), ("host_cpu_pct", "machine CPU %"), ("jit_pct", "JIT %"),
           ("rss_peak_mib", "RSS MiB"),
           ("threads_peak", "threads"), ("heap_peak_mib", "heap MiB"),
           ("pinned_events", "pinned"), ("db_pool_active_peak", "pool act"),
           ("db_pool_awaiting_peak", "pool wait"), ("status_codes", "status"), ("flags", "flags")]


def load_label(r):
    return f"{fmt(r['load'])} {'req/s' if r['load_kind'] == 'rate' else 'conc'}"


def order_text(meta):
    """mode_order of a run (a list) or of several runs (a list of lists), as text."""
    o = meta.get("mode_order") or []
    if o and isinstance(o[0], list):
        return "; ".join(f"run {i + 1}: " + " > ".join(x) for i, x in enumerate(o))
    return " > ".join(o) if isinstance(o, list) else str(o)


def method_notes(meta):
    """How the figures were taken, for both reports."""
    return [
        "Order: the modes are measured in a rotated order per run (mode order above), so no mode always gets "
        "the warmest database and page cache; an A/A row (-aa) measures one mode twice to show the noise floor.",
        "CPU per request: the app process's user+system CPU (psutil) between two readings taken when the load "
        "tool starts and when it has ended, over the successful requests. /q/metrics is scraped during the "
        f"step every {meta.get('metrics_interval', '0.5')} s for the pool gauges; that cost stays in the figure "
        "(never subtracted) and is shown as 'scrape CPU %' (scrapes x one scrape's CPU measured at idle). "
        "'machine CPU %' is every core's busy time over the step (database, kernel and sampler included; "
        "100% = one core), read at the same two moments; with a remote app it is the generator's machine.",
        "Latency: 'ok' percentiles count successes only (the targets and charts use them, beside the success "
        "rate); the plain p50/p99 count every answer, fast errors included. Percentiles: HdrHistogram, "
        "3 significant digits.",
        "A remote app (--app-url without --app-pid) is measured from its /q/metrics only: CPU from "
        "process_cpu_time_ns_total, threads from jvm_threads_live_threads; RSS only if it exports "
        "process_resident_memory_bytes.",
    ]


def write_md(run, rows, meta, scenarios, worker_pool):
    lines = ["# vt-vs-reactive load run", ""]
    lines += [f"- **machine**: {meta.get('cores')} cores ({meta.get('cpu', '?')}), "
              f"{meta.get('memory_mib', '?')} MiB RAM, {meta.get('os', '?')}, kernel {meta.get('kernel', '?')}",
              f"- **JDK**: {meta.get('jdk', 'n/a')}", f"- **Quarkus**: {meta.get('quarkus', 'n/a')}",
              f"- **app**: {meta.get('app', 'n/a')}; JVM options: `{meta.get('java_opts') or 'JVM defaults'}`",
              f"- **run**: {meta.get('started', '?')}, `{meta.get('command', '')}`, commit {meta.get('git_commit')}",
              f"- **tools**: {meta.get('vegeta', 'vegeta')}, {meta.get('hey', 'hey')}",
              f"- **mode order**: {order_text(meta)}", f"- **CPU placement**: {meta.get('placement') or 'none'}",
              f"- **pools and limits** (every mode): {settings_text(meta)}",
              ""] + [f"- {x}" for x in method_notes(meta)] + [""]
    decided = verdict_report.md_lines(verdict_report.load(run))
    lines[2:2] = decided + ladder_report.md_lines(ladder_report.of_run(verdict_report.load(run), rows))
    lines += ["Vegeta rows (load in req/s) are the open model: latency truth at a fixed arrival rate; their "
              "percentiles leave out the requests of the step's ramp-in (RAMP_IN, 1 s by default), which "
              "'p99 incl. ramp-in' counts too. hey rows "
              "(load = requests in flight) are the closed model: they probe saturation throughput; their "
              "latency hides queueing. 'ok req/s' is Vegeta's throughput (successes over send time plus the "
              "wait for the last answers) or hey's successes per second. CPU ms/req is the app process's "
              "utime+stime during the step over successful requests (delay service not included). threads = "
              "peak OS threads of the app (platform threads). Flags: LOW_SEND_RATE = Vegeta sent < 95% of the "
              "asked rate (generator-limited, latency under-reported); BELOW_RATE = answers fell > 5% behind "
              "the asked rate (server saturated); ERRORS = success < 100%; NO_SAMPLES = no process samples; "
              "APP_UNRESPONSIVE = the "
              "app did not answer one more request after the step (thread dump in the step folder) and was "
              "restarted.", ""]
    lines += [] if decided else targets_md(rows, meta, worker_pool)   # no point verdicts beside the intervals
    for sc in scenarios:
        sr = [r for r in rows if r["scenario"] == sc]
        if not sr:
            continue
        lines += [f"## {sc} (`{sr[0]['params']}`)", ""]
        ceil = worker_ceiling(sc, sr[0]["params"], worker_pool)
        if ceil:
            lines += [f"Worker-mode ceiling by Little's law: {worker_pool} threads / request time = "
                      f"{ceil:,.0f} req/s.", ""]
        lines.append("| " + " | ".join(h for _, h in MD_COLS) + " |")
        lines.append("|" + "|".join("---" for _ in MD_COLS) + "|")
        for r in sr:
            cells = [load_label(r) if k == "load" else fmt(r[k], 3 if k == "cpu_ms_per_req" else 1)
                     for k, _ in MD_COLS]
            lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
        lines.append("")
    flagged = [r for r in rows if r["flags"]]
    lines += ["## Flagged steps", ""]
    lines += [f"- {r['scenario']} {r['mode']} {r['tool']} {load_label(r)}: {r['flags']}"
              + (f" ({r['errors']})" if r.get("errors") else "") for r in flagged] or ["none"]
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


CSS = resources.files(__package__).joinpath("templates", "report.css").read_text()
TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True,
                               trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
FACTS = (("cores", "cores"), ("cpu", "CPU"), ("memory_mib", "memory MiB"), ("os", "OS"), ("jdk", "JDK"),
         ("quarkus", "Quarkus"), ("app", "app"), ("java_opts", "JVM options"), ("started", "started"),
         ("command", "command"), ("git_commit", "commit"), ("vegeta", "Vegeta"), ("hey", "hey"),
         ("mode_order", "mode order"), ("placement", "CPU placement"), ("settings", "pools and limits (every mode)"))
LEFT_COLS = ("mode", "tool", "status_codes", "flags")


def fact(meta, key):
    """One line of the report's 'This run' table."""
    v = order_text(meta) if key == "mode_order" else settings_text(meta) if key == "settings" else meta.get(key)
    if key == "placement" and not v:
        v = "none: every process may use every core"
    if key == "java_opts" and not v:
        v = "JVM defaults (max heap = 1/4 of RAM)"
    return str(v if v not in (None, "") else "n/a")


def cell(r, k):
    return load_label(r) if k == "load" else fmt(r[k], 3 if k == "cpu_ms_per_req" else 1)


def scenario_charts(sr, ceil, tips):
    """(heading, [svg]) per row of charts of one scenario's rows; a tool without steps here gets none."""
    draw = functools.partial(svg_chart, tips=tips)
    veg = [r for r in sr if r["tool"] == "vegeta"]
    hey = [r for r in sr if r["tool"] == "hey"]
    charts = []
    cost_keys = (("cpu_ms_per_req", "CPU per request", "CPU ms/req"), ("rss_peak_mib", "peak RSS", "MiB"))
    if veg:
        charts.append(("Latency vs request rate \u2014 Vegeta (open model)", [
            draw(f"{label} latency", f"Vegeta, constant rate, {sub}", series_for(veg, key),
                      "requested rate (req/s)", "ms")
            for key, label, sub in (("p50_ok_ms", "p50", "successes only"), ("p99_ok_ms", "p99", "successes only"),
                                    ("p999_ms", "p99.9", "all answers"))] + [
            draw("success rate", "Vegeta: 2xx/3xx answers / requests", series_for(veg, "success_pct"),
                      "requested rate (req/s)", "% ok", logy=False),
            draw("achieved throughput", "Vegeta: successes / (send + wait)",
                      series_for(veg, "achieved_rps"), "requested rate (req/s)", "req/s", logy=False)]))
    if hey:
        hl = [(ceil, f"worker ceiling {ceil:,.0f}/s")] if ceil else []
        charts.append(("Throughput vs concurrency \u2014 hey (closed model)", [
            draw("throughput", "hey, N requests in flight", series_for(hey, "achieved_rps"),
                      "concurrency", "ok req/s", hlines=hl, logy=False),
            draw("p50 latency", "hey, successes only (closed model hides queueing)",
                      series_for(hey, "p50_ok_ms"), "concurrency", "ms"),
            draw("p99 latency", "hey, successes only", series_for(hey, "p99_ok_ms"), "concurrency", "ms"),
            draw("peak platform threads", "hey steps, /proc Threads", series_for(hey, "threads_peak"),
                      "concurrency", "threads", logy=False)] + [
            draw(f"{label} vs concurrency", "hey steps", series_for(hey, key), "concurrency", unit, logy=False)
            for key, label, unit in cost_keys]))
    if len({r["params"] for r in veg}) > 1:   # the cost experiment: the work per request varies
        charts.append(("Cost growth \u2014 work per request (Vegeta, same rate)", [
            draw(f"{label} vs calls", "delay calls per request", series_for(veg, key, x=calls_of),
                      "calls per request", unit, logy=False) for key, label, unit in cost_keys]))
    if veg:
        charts.append(("Server cost \u2014 app process during the Vegeta steps", [
            draw(label, "Vegeta steps, sampled every 250 ms", series_for(veg, key),
                      "requested rate (req/s)", unit, logy=False)
            for key, label, unit in cost_keys + (("threads_peak", "peak platform threads", "threads"),
                                                 ("heap_peak_mib", "peak heap used", "MiB"))]))
    return charts


def render_html(rows, meta, scenarios, worker_pool, decided=None):
    """report.html's text, from templates/report.html.j2; DECIDED: an interleaved run's verdicts.json, which
    opens the page (and replaces the point verdicts of the targets table), the floor and the ladder after it."""
    names = series_names(rows)
    runs = "saturation_runs" in (meta or {})
    sections, tips = [], Tips()
    for sc in scenarios:
        sr = [r for r in rows if r["scenario"] == sc]
        if not sr:
            continue
        ceil = worker_ceiling(sc, sr[0]["params"], worker_pool)
        sections.append({
            "name": sc, "params": " | ".join(dict.fromkeys(r["params"] or "" for r in sr)),  # several in cost
            "ceiling": f"{ceil:,.0f}" if ceil else None, "charts": scenario_charts(sr, ceil, tips),
            "table": [(bool(r["flags"]), [(k in LEFT_COLS, cell(r, k)) for k, _ in MD_COLS]) for r in sr]})
    sat = saturation(rows, **saturation_args(meta))
    return TEMPLATES.get_template("report.html.j2").render(
        css=CSS, meta=meta, order=order_text(meta), targets=[] if decided else targets(rows, worker_pool),
        targets_note=TARGETS_NOTE, verdicts=verdict_report.html_section(decided),
        ladder=ladder_report.html_section(ladder_report.of_run(decided, rows)),
        saturation=[{"series": m, "rate": fmt(x, 0) if x else "none", "per_run": per_run_text(meta, m), "limit": w}
                    for m, x, w in sat],
        per_run=runs, facts=[(label, fact(meta, k)) for k, label in FACTS],
        modes=[(m, mode_color(m, names)) for m in names], aa_suffix=AA_SUFFIX, notes=method_notes(meta),
        reuse=str(meta.get("reuse")) == "1", scenarios=sections, worker_pool=worker_pool,
        columns=[h for _, h in MD_COLS],
        flagged=[dict(r, load=load_label(r)) for r in rows if r["flags"]],
        tips=tips.texts)


def write_html(run, rows, meta, scenarios, worker_pool):
    with open(os.path.join(run, "report.html"), "w") as f:
        f.write(render_html(rows, meta, scenarios, worker_pool, verdict_report.load(run)))


# ---------------------------------------------------------------------------------------------- targets
def per_run_text(meta, mode):
    """'5,500 / 4,000 / 7,000 (median 5,500)': a series' saturation point in each run of a --runs summary."""
    per = (meta or {}).get("saturation_runs", {}).get(mode)
    if not per:
        return ""
    known = sorted(x for x in per if x)
    med = f" (median {fmt(known[(len(known) - 1) // 2], 0)})" if known else ""
    return " / ".join(fmt(x, 0) if x else "none" for x in per) + med


def targets_md(rows, meta, worker_pool):
    t = targets(rows, worker_pool)
    if not t:
        return []
    lines = ["## Targets", "", TARGETS_NOTE, "", "| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in t]
    sat = saturation(rows, **saturation_args(meta))
    if sat:
        runs = "saturation_runs" in (meta or {})
        lines += ["", "## Saturation (io)", "", "| series | highest rate fully served, p99 < 2x delay"
                  + (" (median rows) | in each run | " if runs else " | ") + "limit |",
                  "|---|---|---|" + ("---|" if runs else "")]
        lines += [f"| {m} | {fmt(x, 0) if x else 'none'} | " + (f"{per_run_text(meta, m)} | " if runs else "")
                  + f"{w} |" for m, x, w in sat]
    return lines + [""]


TARGETS_NOTE = ("The performance targets (docs/results.md \"Targets\"), judged on this run's rows: latency on "
                "successes only "
                "(p99 ok), beside the success rate. A ratio within the A/A spread (the same mode measured twice in "
                "this run) is 'within noise', not PASS or FAIL. They are meant for a "
                "default run or the medians of several (5 s steps after the warm-up); --quick steps are too short.")


# ---------------------------------------------------------------------------------------------- commands
def median(out, runs):
    """OUT's summaries and report from the medians of several runs' summary.json (RUNS: their folders)."""
    runs_rows = []
    for run in runs:
        data = read_json(os.path.join(run, "summary.json"))
        if data is None:
            sys.exit(f"no summary.json in {run} (a finished compare.sh run folder)")
        runs_rows.append(data["rows"])
    rows = median_rows(runs_rows)
    os.makedirs(out, exist_ok=True)
    metas = [read_json(os.path.join(r, "machine.json"), {}) for r in runs]
    meta = dict(metas[0])
    meta["command"] = f"medians of {len(runs)} runs: " + ", ".join(
        m.get("command", "?") + f" ({os.path.basename(r.rstrip('/'))})" for m, r in zip(metas, runs, strict=True))
    meta["mode_order"] = [m.get("mode_order") for m in metas]
    meta["saturation_runs"] = saturation_over_runs([saturation(rr, **saturation_args(m))
                                                    for rr, m in zip(runs_rows, metas, strict=True)])
    with open(os.path.join(out, "machine.json"), "w") as f:
        json.dump(meta, f, indent=1)
    write_all(out, rows, meta)


def write_all(run, rows, meta):
    """summary.csv, summary.json, summary.md and report.html of ROWS into the folder RUN."""
    seen = list(dict.fromkeys(r["scenario"] for r in rows))
    worker_pool = worker_pool_of(meta)
    write_csv_json(run, rows)
    write_md(run, rows, meta, seen, worker_pool)
    write_html(run, rows, meta, seen, worker_pool)
    flagged = sum(1 for r in rows if r["flags"])
    print(f"{len(rows)} steps, {flagged} flagged -> {run}/summary.csv, summary.json, summary.md, report.html")


def standalone(svg):
    """A chart as an SVG file of its own (a README's figure): the report's style inside it."""
    return svg.replace(">", "><style>" + CSS + "</style>", 1)


def figures(run, out, worker_pool):
    """The README's two io figures from a run's (or a median's) summary.json, as standalone SVG files."""
    data = read_json(os.path.join(run, "summary.json"))
    if data is None:
        sys.exit(f"no summary.json in {run}")
    io_rows = [r for r in data["rows"] if r["scenario"] == "io"]
    veg = [r for r in io_rows if r["tool"] == "vegeta"]
    hey = [r for r in io_rows if r["tool"] == "hey"]
    ceil = worker_ceiling("io", io_rows[0]["params"], worker_pool) if io_rows else None
    os.makedirs(out, exist_ok=True)
    for name, svg in (
            ("io-p99.svg", svg_chart("p99 latency", "io, Vegeta, constant rate", series_for(veg, "p99_ok_ms"),
                                     "requested rate (req/s)", "ms")),
            ("io-throughput.svg", svg_chart("throughput", "io, hey, N requests in flight",
                                            series_for(hey, "achieved_rps"), "concurrency", "ok req/s",
                                            hlines=[(ceil, f"worker ceiling {ceil:,.0f}/s")] if ceil else (),
                                            logy=False))):
        with open(os.path.join(out, name), "w") as f:
            f.write(standalone(svg))
        print(os.path.join(out, name))


def build(run):
    """RUN's summaries and report from its step folders (RUN/steps/*, or those in RUN/steps.tar.xz)."""
    meta = read_json(os.path.join(run, "machine.json"), {})
    with archive.readable(run) as raw:
        rows = load_rows(raw, worker_pool_of(meta)) or verdict_report.rows_of(raw, worker_pool_of(meta))
    if not rows:
        sys.exit(f"no steps found under {run}/steps")
    write_all(run, rows, meta)


def render(result):
    """RESULT's summaries and report again from its summary.json (a published result whose per-request records
    were left out of its archive, after a change of the report's code or template)."""
    data = read_json(os.path.join(result, "summary.json"))
    if data is None:
        sys.exit(f"no summary.json in {result}")
    write_all(result, data["rows"], read_json(os.path.join(result, "machine.json"), data.get("machine") or {}))


def hey_summary(path):
    rows = hey_rows(path)
    if not rows:
        print("no answered requests")
        return
    lats = sorted(r[0] for r in rows)
    elapsed = max(r[2] for r in rows)
    codes = {}
    for r in rows:
        codes[r[1]] = codes.get(r[1], 0) + 1
    print(f"requests {len(rows)}  elapsed {elapsed:.2f}s  {len(rows) / elapsed:.1f} req/s  "
          f"status {' '.join(f'{c}:{n}' for c, n in sorted(codes.items()))}")
    print("latency ms: " + "  ".join(f"{n} {percentile(lats, p):.2f}" for n, p in
                                     (("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9))) +
          f"  max {lats[-1]:.2f}")
    print(f"(written to {path})")


def machine_json(java=None, app_url=None, sets=(), lists=()):
    """machine.json's facts (machine.facts) with the app's from its /q/info at APP_URL and KEY=VALUE extras."""
    extra = dict(kv.split("=", 1) for kv in sets)
    extra.update({k: [x for x in v.split(",") if x] for k, v in (kv.split("=", 1) for kv in lists)})
    facts = machine.facts(java=java, app=machine.app_info(app_url) if app_url else None)
    facts.update(extra)   # after: an extra may be named app (the app's description)
    return facts


def parser():
    p = argparse.ArgumentParser(prog="vtvr-harness report", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n")[1])
    sub = p.add_subparsers(dest="cmd", required=True, metavar="SUBCOMMAND")
    sub.add_parser("build", help="summaries and report.html of a run folder").add_argument("run")
    sub.add_parser("render", help="the same from the run's summary.json (a published result)").add_argument("run")
    m = sub.add_parser("median", help="the same from the medians of several runs")
    m.add_argument("out")
    m.add_argument("runs", nargs="+")
    f = sub.add_parser("figures", help="README's io figures as SVG files")
    f.add_argument("run")
    f.add_argument("out")
    sub.add_parser("step", help="one line about one finished step; exit 3 when it saw errors").add_argument("step")
    sub.add_parser("hey-summary", help="a short summary of a hey CSV").add_argument("file")
    mc = sub.add_parser("machine", help="machine.json to stdout")
    mc.add_argument("--java", help="the java binary the apps ran on, for its version")
    mc.add_argument("--app-url", help="a running app whose /q/info tells its settings and Quarkus version")
    mc.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    mc.add_argument("--list", action="append", default=[], metavar="KEY=A,B")
    pb = sub.add_parser("publish", help="a run folder as a published result (docs/results), without its raw data")
    pb.add_argument("run")
    pb.add_argument("dest")
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    if a.cmd == "build":
        build(a.run)
    elif a.cmd == "render":
        render(a.run)
    elif a.cmd == "median":
        median(a.out, a.runs)
    elif a.cmd == "figures":
        figures(a.run, a.out, worker_pool_of(read_json(os.path.join(a.run, "machine.json"), {})))
    elif a.cmd == "step":
        row = step_row(a.step, worker_pool_of(read_json(os.path.join(a.step, "..", "..", "machine.json"), {})))
        print(one_line(row))
        return 3 if re.search(r"ERRORS|NO_ANSWERS|NO_RESULTS", row["flags"] or "") else 0
    elif a.cmd == "hey-summary":
        hey_summary(a.file)
    elif a.cmd == "machine":
        print(json.dumps(machine_json(a.java, a.app_url, a.set, a.list), indent=2))
    else:
        try:
            size, left = archive.pack(a.run, a.dest)
        except ValueError as e:
            print(f"not published: {e}", file=sys.stderr)
            return 1
        for rel in left:
            print(f"warning: {rel} left out (summary.json, summary.md and report.html together over "
                  f"{archive.LIMIT / 1000:,.0f} KB: docs/results/README.md); it stays in {a.run}", file=sys.stderr)
        print(f"{a.dest}: {size / 1024:,.0f} KiB (the raw files stay in {a.run}: not committed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
