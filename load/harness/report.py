#!/usr/bin/env python3
"""Turns the raw step folders of a compare.sh run into summary.csv, summary.json, summary.md and report.html.

Usage:
  load/report.py build RUN_DIR             summaries and the HTML report for RUN_DIR/steps/*
  load/report.py median OUT RUN_DIR...     the same files in OUT from several runs: per step the row of the run
                                           whose p99 (successes) is the median, min-max of every figure, flags
                                           with their counts
  load/report.py figures RUN_DIR OUT_DIR   io-p99.svg and io-throughput.svg for README (standalone SVG files)
  load/report.py step STEP_DIR             one line about one finished step (compare.sh prints it);
                                           exit 3 when the step saw errors
  load/report.py hey-summary FILE.csv      a short summary of a hey CSV (load/hey.sh prints it)
  load/report.py machine [--java JAVA] [--set KEY=VALUE ...]   machine facts as JSON (compare.sh saves it)

Runs in the virtual environment of load/requirements.txt (load/tools.sh): percentiles with hdrhistogram (3
significant digits), process figures with psutil, /q/metrics with prometheus_client's parser. The report is one
HTML file with inline SVG figures, so it opens offline. Vegeta percentiles come from the raw results
(`vegeta encode`): all answers, and successes only (p50_ok_ms, p99_ok_ms); when no vegeta binary is found, they
come from Vegeta's JSON report, p99.9 and the success-only figures are left empty.
Environment: VEGETA (path of the vegeta binary; else PATH, else $VTVR_CACHE/bin/vegeta).
"""
import csv
import glob
import html
import json
import os
import platform
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
# the same folder: one step's row, what the rows say, the charts
from .steps import (AA_SUFFIX, FIELDS, fmt, hey_rows, one_line, params_of, percentile, read_json,
                   read_text, series_names, sort_rows, step_row, worker_ceiling)
from . import verdict_report
from .verdicts import median_rows, saturation, saturation_args, saturation_over_runs, targets
from .charts import mode_color, series_for, svg_chart

# The settings that make the comparison fair or bound it, printed in every report: (key, what it is)
SETTINGS = [
    ("quarkus.thread-pool.max-threads", "worker threads"), ("quarkus.thread-pool.queue-size", "worker queue"),
    ("bench.fanout-pool-size", "worker fan-out threads"), ("bench.fanout-queue-size", "worker fan-out queue"),
    ("quarkus.datasource.jdbc.max-size", "JDBC pool"), ("quarkus.datasource.reactive.max-size", "reactive pool"),
    ("bench.db-acquire-timeout", "DB pool wait"), ("bench.db-socket-timeout-ms", "DB socket timeout ms"),
    ("quarkus.rest-client.delay.connection-pool-size", "delay client connections"),
    ("bench.blocking-client", "blocking delay client"), ("bench.request-deadline", "request deadline"),
    ("bench.max-in-flight", "requests in progress per mode"), ("bench.max-n-event-loop", "reactive cpu n ceiling"),
]


def app_settings(java_opts=""):
    """SETTINGS as this build configures them: application.properties, else BenchConfig's @WithDefault, with
    -Dkey=value in the app's JVM options winning (what the app of this run was started with)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    props = read_text(os.path.join(root, "src", "main", "resources", "application.properties"))
    config = read_text(os.path.join(root, "src", "main", "java", "org", "vtvr", "scenario", "BenchConfig.java"))
    out = {}
    for key, _ in SETTINGS:
        m = re.search(r"^-?D?" + re.escape(key) + r"=(\S+)", " ".join((java_opts or "").split()).replace(" -D", "\n"), re.M)
        if not m:
            m = re.search(r"^" + re.escape(key) + r"\s*=\s*(.+)$", props, re.M)
        if not m and key.startswith("bench."):
            method = re.sub(r"-(\w)", lambda g: g.group(1).upper(), key[len("bench."):])
            m = re.search(r'@WithDefault\("([^"]*)"\)\s*\n\s*\S+\s+' + method + r"\(\)", config)
        value = m.group(1).strip() if m else "?"
        out[key] = re.sub(r"^\$\{[^:}]+:([^}]*)\}$", r"\1", value)   # ${bench.x:3s} -> 3s
    return out


def settings_text(meta):
    """The run's settings as one line: 'worker threads 200, worker queue 400, ...'."""
    values = meta.get("settings") or app_settings(meta.get("java_opts", ""))
    return ", ".join(f"{label} {values.get(key, '?')}" for key, label in SETTINGS)


def _worker_pool(default=200):
    """quarkus.thread-pool.max-threads: the worker-mode ceiling's numerator."""
    v = app_settings().get("quarkus.thread-pool.max-threads", "")
    return int(v) if v.isdigit() else default


# ---------------------------------------------------------------------------------------------- machine
def machine(argv):
    info = {"cores": os.cpu_count(), "os": platform.platform(), "kernel": platform.release(),
            "python": platform.python_version()}
    for line in read_text("/etc/os-release").splitlines():
        if line.startswith("PRETTY_NAME="):
            info["os"] = line.split("=", 1)[1].strip('"')
    for line in read_text("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            info["cpu"] = line.split(":", 1)[1].strip()
            break
    for line in read_text("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            info["memory_mib"] = int(line.split()[1]) // 1024
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    m = re.search(r"<quarkus\.platform\.version>([^<]+)<", read_text(os.path.join(root, "pom.xml")))
    info["quarkus"] = m.group(1) if m else None
    it = iter(argv)
    for a in it:
        if a == "--java":
            java = next(it)
            try:
                out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
                info["jdk"] = " / ".join(out.strip().splitlines()[:2])
            except (OSError, subprocess.SubprocessError):
                info["jdk"] = None
        elif a == "--set":
            k, v = next(it).split("=", 1)
            info[k] = v
        elif a == "--list":
            k, v = next(it).split("=", 1)
            info[k] = [x for x in v.split(",") if x]
    info["settings"] = app_settings(info.get("java_opts", ""))
    try:
        info["git_commit"] = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                                            capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        info["git_commit"] = None
    print(json.dumps(info, indent=2))


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
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump({**verdict_report.summary_json(verdict_report.load(run)), "machine": meta, "rows": rows}, f,
                  indent=1)


MD_COLS = [("mode", "mode"), ("tool", "tool"), ("load", "load"), ("achieved_rps", "ok req/s"),
           ("success_pct", "ok %"), ("p50_ok_ms", "p50 ok ms"), ("p99_ok_ms", "p99 ok ms"), ("p50_ms", "p50 ms"), ("p90_ms", "p90 ms"), ("p99_ms", "p99 ms"),
           ("p999_ms", "p99.9 ms"), ("p99_all_ms", "p99 incl. ramp-in"), ("max_ms", "max ms"),
           ("cpu_ms_per_req", "CPU ms/req"), ("cpu_pct", "app CPU %"), ("gen_cpu_pct", "gen CPU %"),
           ("delay_cpu_pct", "delay CPU %"), ("host_cpu_pct", "machine CPU %"), ("jit_pct", "JIT %"), ("rss_peak_mib", "RSS MiB"),
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
    lines[2:2] = verdict_report.md_lines(verdict_report.load(run))
    lines += ["Vegeta rows (load in req/s) are the open model: latency truth at a fixed arrival rate; their "
              "percentiles leave out the requests of the step's ramp-in (RAMP_IN, 1 s by default), which "
              "'p99 incl. ramp-in' counts too. hey rows "
              "(load = requests in flight) are the closed model: they probe saturation throughput; their "
              "latency hides queueing. 'ok req/s' is Vegeta's throughput (successes over send time plus the "
              "wait for the last answers) or hey's successes per second. CPU ms/req is the app process's "
              "utime+stime during the step over successful requests (delay service not included). threads = "
              "peak OS threads of the app (platform threads). Flags: LOW_SEND_RATE = Vegeta sent < 95% of the "
              "asked rate (generator-limited, latency under-reported); BELOW_RATE = answers fell > 5% behind "
              "the asked rate (server saturated); ERRORS = success < 100%; NO_SAMPLES = no process samples; APP_UNRESPONSIVE = the "
              "app did not answer one more request after the step (thread dump in the step folder) and was "
              "restarted.", ""]
    lines += targets_md(rows, meta, worker_pool)
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


CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1380px;
 color:#222;padding:0 16px}
h1{font-size:22px;margin:0 0 6px} h2{font-size:18px;margin:30px 0 4px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:14px;margin:12px 0 4px;color:#444}
.meta{color:#444;font-size:13px} .meta td{padding:1px 10px 1px 0} .note{color:#555;font-size:12.5px;max-width:1100px}
.row{display:flex;flex-wrap:wrap;gap:8px}
.chart{background:#fff;border:1px solid #e3e3e3;border-radius:4px}
.chart .t{font-size:13px;font-weight:600;fill:#222} .chart .st{font-size:11px;fill:#666}
.chart .ax{font-size:10.5px;fill:#555} .chart .lg{font-size:11px;fill:#333}
.chart .plot{fill:#fcfcfc;stroke:#ccc} .chart .grid{stroke:#eee}
.chart .flag{fill:none;stroke:#d62728;stroke-width:2}
.chart .ceil{stroke:#e6730f;stroke-dasharray:2,3;stroke-width:1.5} .chart .ceilt{font-size:10.5px;fill:#b35300}
table.d{border-collapse:collapse;font-size:12px;margin:6px 0} table.d th,table.d td{border:1px solid #ddd;padding:2px 6px;
 text-align:right;white-space:nowrap} table.d th{background:#f3f3f3} table.d td.l{text-align:left}
tr.flagged td{background:#fff1f0} .flagtxt{color:#c0392b;font-weight:600}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px}
"""


def write_html(run, rows, meta, scenarios, worker_pool):
    e = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vt-vs-reactive load report"
             f"</title><style>{CSS}</style></head><body>",
             "<h1>Virtual threads vs reactive vs worker pool: load report</h1>",
             f"<p class='note'>{e(meta.get('started', '?'))}, {e(str(meta.get('cores', '?')))} cores; mode order "
             f"{e(order_text(meta))}; CPU placement: {e(meta.get('placement') or 'none')}. The run's details "
             "follow the targets.</p>",
             verdict_report.html_section(verdict_report.load(run)),
             targets_html(rows, meta, worker_pool),
             "<h2>This run</h2><table class='meta'>"]
    for k, label in (("cores", "cores"), ("cpu", "CPU"), ("memory_mib", "memory MiB"), ("os", "OS"),
                     ("jdk", "JDK"), ("quarkus", "Quarkus"), ("app", "app"), ("java_opts", "JVM options"),
                     ("started", "started"), ("command", "command"), ("git_commit", "commit"),
                     ("vegeta", "Vegeta"), ("hey", "hey"), ("mode_order", "mode order"),
                     ("placement", "CPU placement"), ("settings", "pools and limits (every mode)")):
        v = order_text(meta) if k == "mode_order" else settings_text(meta) if k == "settings" else meta.get(k)
        if k == "placement" and not v:
            v = "none: every process may use every core"
        if k == "java_opts" and not v:
            v = "JVM defaults (max heap = 1/4 of RAM)"
        parts.append(f"<tr><td>{label}</td><td>{e(str(v if v not in (None, '') else 'n/a'))}</td></tr>")
    parts.append("</table>")
    names = series_names(rows)
    parts.append("<p>Modes:" + "".join(f"<span class='sw' style='background:{mode_color(m, names)}'></span>{m}"
                                       for m in names) +
                 f" (a name ending in {AA_SUFFIX} is the A/A row, dashed: that mode measured a second time, from a "
                 "fresh app). <span class='flagtxt'>Red rings</span> mark flagged steps (hover a point for its "
                 "numbers).</p>")
    parts.append("<p class='note'>" + "<br>".join(e(x) for x in method_notes(meta)) + "</p>")
    if str(meta.get("reuse")) == "1":
        parts.append("<p class='note'><b>One app served every mode in turn</b> (--reuse or --quick): peak threads, "
                     "RSS and heap carry over from the modes measured before; run without --reuse for a fresh "
                     "app and delay service per mode.</p>")
    parts.append("<p class='note'>Latency figures come from <b>Vegeta</b> (open model: a constant arrival rate, "
                 "so queueing shows as latency; nearest-rank percentiles of every request sent after the step's "
                 "ramp-in, RAMP_IN, 1 s by default, whose requests 'p99 incl. ramp-in' also counts). "
                 "Throughput-vs-concurrency "
                 "figures come from <b>hey</b> (closed model: N requests in flight; the saturation probe). "
                 "Resource figures are sampled from the app process (/proc: utime+stime, VmRSS, Threads) "
                 "during the Vegeta steps. Flags: LOW_SEND_RATE = Vegeta sent &lt; 95% of the asked rate "
                 "(load generator limited; coordinated omission); BELOW_RATE = answers fell behind the asked "
                 "rate (saturated); ERRORS = success &lt; 100%; APP_UNRESPONSIVE = the app did not answer one more "
                 "request after the step (its thread dump is in the step folder) and was restarted.</p>")
    for sc in scenarios:
        sr = [r for r in rows if r["scenario"] == sc]
        if not sr:
            continue
        veg = [r for r in sr if r["tool"] == "vegeta"]
        hey = [r for r in sr if r["tool"] == "hey"]
        params = " | ".join(dict.fromkeys(r["params"] or "" for r in sr))   # several in the cost experiment
        parts.append(f"<h2 id='{e(sc)}'>{e(sc)} <small style='font-weight:normal;color:#666'>"
                     f"{e(params)}</small></h2>")
        ceil = worker_ceiling(sc, sr[0]["params"], worker_pool)
        if ceil:
            parts.append(f"<p class='note'>Worker mode cannot pass {worker_pool} threads / request time = "
                         f"<b>{ceil:,.0f} req/s</b> (Little's law); dotted line in the hey figure.</p>")
        charts = []   # (heading, [svg]) per row of charts; a tool without steps here gets none
        cost_keys = (("cpu_ms_per_req", "CPU per request", "CPU ms/req"), ("rss_peak_mib", "peak RSS", "MiB"))
        if veg:
            charts.append(("Latency vs request rate &mdash; Vegeta (open model)", [
                svg_chart(f"{label} latency", f"Vegeta, constant rate, {sub}", series_for(veg, key),
                          "requested rate (req/s)", "ms")
                for key, label, sub in (("p50_ok_ms", "p50", "successes only"), ("p99_ok_ms", "p99", "successes only"),
                                        ("p999_ms", "p99.9", "all answers"))] + [
                svg_chart("success rate", "Vegeta: 2xx/3xx answers / requests", series_for(veg, "success_pct"),
                          "requested rate (req/s)", "% ok", logy=False),
                svg_chart("achieved throughput", "Vegeta: successes / (send + wait)",
                          series_for(veg, "achieved_rps"), "requested rate (req/s)", "req/s", logy=False)]))
        if hey:
            hl = [(ceil, f"worker ceiling {ceil:,.0f}/s")] if ceil else []
            charts.append(("Throughput vs concurrency &mdash; hey (closed model)", [
                svg_chart("throughput", "hey, N requests in flight", series_for(hey, "achieved_rps"),
                          "concurrency", "ok req/s", hlines=hl, logy=False),
                svg_chart("p50 latency", "hey, successes only (closed model hides queueing)",
                          series_for(hey, "p50_ok_ms"), "concurrency", "ms"),
                svg_chart("p99 latency", "hey, successes only", series_for(hey, "p99_ok_ms"), "concurrency", "ms"),
                svg_chart("peak platform threads", "hey steps, /proc Threads", series_for(hey, "threads_peak"),
                          "concurrency", "threads", logy=False)] + [
                svg_chart(f"{label} vs concurrency", "hey steps", series_for(hey, key), "concurrency", unit, logy=False)
                for key, label, unit in cost_keys]))
        if len({r["params"] for r in veg}) > 1:   # the cost experiment: the work per request varies
            charts.append(("Cost growth &mdash; work per request (Vegeta, same rate)", [
                svg_chart(f"{label} vs calls", "delay calls per request", series_for(veg, key, x=calls_of),
                          "calls per request", unit, logy=False) for key, label, unit in cost_keys]))
        if veg:
            charts.append(("Server cost &mdash; app process during the Vegeta steps", [
                svg_chart(label, "Vegeta steps, sampled every 250 ms", series_for(veg, key),
                          "requested rate (req/s)", unit, logy=False)
                for key, label, unit in cost_keys + (("threads_peak", "peak platform threads", "threads"),
                                                     ("heap_peak_mib", "peak heap used", "MiB"))]))
        for heading, svgs in charts:
            parts.append(f"<h3>{heading}</h3><div class='row'>" + "".join(svgs) + "</div>")
        parts.append("<details><summary>all numbers</summary><table class='d'><tr>" +
                     "".join(f"<th>{e(h)}</th>" for _, h in MD_COLS) + "</tr>")
        for r in sr:
            cls = " class='flagged'" if r["flags"] else ""
            cells = []
            for k, _ in MD_COLS:
                v = load_label(r) if k == "load" else fmt(r[k], 3 if k == "cpu_ms_per_req" else 1)
                c = " class='l'" if k in ("mode", "tool", "status_codes", "flags") else ""
                cells.append(f"<td{c}>{e(v)}</td>")
            parts.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
        parts.append("</table></details>")
    flagged = [r for r in rows if r["flags"]]
    parts.append("<h2>Flagged steps</h2>")
    if flagged:
        parts.append("<ul>" + "".join(
            f"<li>{e(r['scenario'])} {e(r['mode'])} {e(r['tool'])} {e(load_label(r))}: "
            f"<span class='flagtxt'>{e(r['flags'])}</span>{(' — ' + e(r['errors'])) if r.get('errors') else ''}</li>"
            for r in flagged) + "</ul>")
    else:
        parts.append("<p>none</p>")
    parts.append("<p class='note'>Files: summary.csv, summary.json, summary.md; raw Vegeta results "
                 "(steps/*/results.bin, decode with <code>vegeta report</code>) and hey CSVs (steps/*/results.csv)."
                 "</p></body></html>")
    with open(os.path.join(run, "report.html"), "w") as f:
        f.write("\n".join(parts))


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
                  + (" (median rows) | in each run | " if runs else " | ") + "limit |", "|---|---|---|" + ("---|" if runs else "")]
        lines += [f"| {m} | {fmt(x, 0) if x else 'none'} | " + (f"{per_run_text(meta, m)} | " if runs else "")
                  + f"{w} |" for m, x, w in sat]
    return lines + [""]


FLAGGED = " class='flagged'"
TARGETS_NOTE = ("The performance targets (docs/results.md \"Targets\"), judged on this run's rows: latency on successes only "
                "(p99 ok), beside the success rate. A ratio within the A/A spread (the same mode measured twice in "
                "this run) is 'within noise', not PASS or FAIL. They are meant for a "
                "default run or the medians of several (5 s steps after the warm-up); --quick steps are too short.")


def targets_html(rows, meta, worker_pool):
    t = targets(rows, worker_pool)
    if not t:
        return ""
    e = html.escape
    out = (f"<h2 id='targets'>Targets</h2><p class='note'>{e(TARGETS_NOTE)}</p>"
           "<table class='d'><tr><th>target</th><th>measured</th><th>verdict</th></tr>"
           + "".join(f"<tr{FLAGGED if c == 'FAIL' else ''}><td class='l'>{e(a)}</td>"
                     f"<td class='l'>{e(b)}</td><td class='l'>{e(c)}</td></tr>" for a, b, c in t) + "</table>")
    sat = saturation(rows, **saturation_args(meta))
    if sat:
        runs = "saturation_runs" in (meta or {})
        out += ("<h3>Saturation (io): highest rate with 100% success and p99 under 2x the delay</h3>"
                "<table class='d'><tr><th>series</th><th>rate" + (" (median rows)</th><th>in each run</th>" if runs else "</th>")
                + "<th>what limited the next rate</th></tr>"
                + "".join(f"<tr><td class='l'>{e(m)}</td><td>{fmt(x, 0) if x else 'none'}</td>"
                          + (f"<td class='l'>{e(per_run_text(meta, m))}</td>" if runs else "")
                          + f"<td class='l'>{e(w)}</td></tr>" for m, x, w in sat) + "</table>")
    return out


# ---------------------------------------------------------------------------------------------- commands
def median(out, runs, worker_pool):
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
        m.get("command", "?") + f" ({os.path.basename(r.rstrip('/'))})" for m, r in zip(metas, runs))
    meta["mode_order"] = [m.get("mode_order") for m in metas]
    meta["saturation_runs"] = saturation_over_runs([saturation(rr, **saturation_args(m))
                                                    for rr, m in zip(runs_rows, metas)])
    with open(os.path.join(out, "machine.json"), "w") as f:
        json.dump(meta, f, indent=1)
    publish(out, rows, meta, worker_pool)


def publish(run, rows, meta, worker_pool):
    seen = []
    for r in rows:
        if r["scenario"] not in seen:
            seen.append(r["scenario"])
    write_csv_json(run, rows)
    write_md(run, rows, meta, seen, worker_pool)
    write_html(run, rows, meta, seen, worker_pool)
    flagged = sum(1 for r in rows if r["flags"])
    print(f"{len(rows)} steps, {flagged} flagged -> {run}/summary.csv, summary.json, summary.md, report.html")


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
            f.write(svg.replace(">", "><style>" + CSS + "</style>", 1))
        print(os.path.join(out, name))


def build(run, worker_pool):
    rows = load_rows(run, worker_pool)
    if not rows:
        sys.exit(f"no steps found under {run}/steps")
    publish(run, rows, read_json(os.path.join(run, "machine.json"), {}), worker_pool)


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


def main(argv):
    worker_pool = _worker_pool()
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd = argv[1]
    if cmd == "build" and len(argv) == 3:
        build(argv[2], worker_pool)
    elif cmd == "figures" and len(argv) == 4:
        figures(argv[2], argv[3], worker_pool)
    elif cmd == "median" and len(argv) >= 4:
        median(argv[2], argv[3:], worker_pool)
    elif cmd == "step" and len(argv) == 3:
        row = step_row(argv[2], worker_pool)
        print(one_line(row))
        return 3 if re.search(r"ERRORS|NO_ANSWERS|NO_RESULTS", row["flags"] or "") else 0
    elif cmd == "hey-summary" and len(argv) == 3:
        hey_summary(argv[2])
    elif cmd == "machine":
        machine(argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
