"""The scale experiment's summary.json/md and report.html: rows per level, charts, targets."""
import json
import os

from harness.analysis import burst
from harness.analysis.scale import LEAK_CHECK_S, ceiling, leak_row, targets, threads_grown
from harness.analysis.steps import fmt
from harness.report import pages
from harness.report.charts import mode_color, svg_chart
from harness.report.run_text import settings_text

# ------------------------------------------------------------------------------------------ report
COLS = [("mode", "series"), ("transport", "transport"), ("level", "level"),
        ("past_ceiling", "past the files ceiling"), ("in_flight", "in flight"),
        ("load", "req/s"), ("delay_ms", "delay ms"), ("success_pct", "ok %"),
        ("p50_over_delay_ms", "p50 over delay"), ("p99_over_delay_ms", "p99 over delay"),
        ("cpu_ms_per_req", "CPU ms/req"), ("rss_kib", "RSS KiB"),
        ("heap_after_gc_kib", "heap after GC KiB"), ("mem_kib_per_request", "KiB/req (RSS)"),
        ("heap_kib_per_request", "KiB/req (heap)"), ("platform_threads", "OS threads"),
        ("open_files", "open files"), ("probe_ready_max_ms", "ready max ms"),
        ("probe_io_p99_ms", "probe p99 ms"), ("probe_io_slow", "probes over 100 ms"),
        ("probe_ok", "probe ok"), ("probe_machine_cpu_pct", "machine CPU % (probe)"),
        ("probe_app_cores", "app cores (probe)"), ("probe_gc_pause_ms", "GC paused ms (probe)"),
        ("probe_gc_pause_max_ms", "longest GC pause ms"),
        ("probe_gc_cycles_ms", "GC cycles ms (probe)"),
        ("probe_delay_gc_pause_ms", "delay service GC paused ms (probe)"), ("flags", "flags")]


def table_md(rows):
    out = ["| " + " | ".join(h for _, h in COLS) + " |", "|" + "---|" * len(COLS)]
    out += ["| " + " | ".join(fmt(r.get(k)) for k, _ in COLS) + " |" for r in rows]
    return out


def memory_charts(rows, idle_rows):
    """RSS and heap after a full GC against the achieved in-flight, a line per series/transport."""
    charts = []
    names = sorted({r["mode"] for r in rows})
    for key, title in (("rss_kib", "RSS"), ("heap_after_gc_kib", "heap after a full GC")):
        series = []
        for (mode, transport) in sorted({(r["mode"], r["transport"]) for r in rows}):
            pts = [x for x in idle_rows + rows
                   if x["mode"] == mode and x["transport"] == transport]
            series.append({"name": f"{mode} {transport}", "color": mode_color(mode, names),
                           "dash": transport == "http1",
                           "points": [(r.get("level") or 0,
                                       None if r.get(key) is None else r[key] / 1024,
                                       not r.get("probe_ok", True),
                                       f"{mode} {transport}: {fmt(r['in_flight'])} in flight, "
                                       f"{fmt(r.get(key))} KiB")
                                      for r in sorted(pts, key=lambda x: x.get("level") or 0)]})
        charts.append(svg_chart(
            title, "at each level (tooltip: the achieved peak from the app's own gauge)",
            series, "requests in flight (level)", "MiB", logy=False, w=520, h=320))
    return charts


CHART_FILES = ("memory.svg", "heap.svg")   # RSS, heap after a full GC


def leak_rows(ends):
    """The leak check's rows: each series' threads, heap and files at the start, then after."""
    leaks = []
    for e in ends:
        for key in ("platform_threads", "heap_after_gc_kib", "open_files"):
            a, b = e["start"].get(key), e["end"].get(key)
            if a and b is not None:
                leaks.append(leak_row(e["series"], e["transport"], key, a,
                                      (e.get("answered") or {}).get(key), b))
    return leaks


def write_report(out, rows, meta, limits, ends, nofile, bursts=(), skipped=()):
    """summary.json (a row per level and series; `fanout_bursts` a row per fan-out burst),
    summary.md, report.html, and its two charts as memory.svg and heap.svg."""
    idle_rows = [{"mode": e["series"], "transport": e["transport"], "in_flight": 0, "level": 0,
                  **e["start"]} for e in ends]
    leaks = leak_rows(ends)
    write_summary_json(out, rows, meta, limits, leaks, ends, bursts, skipped)
    verdicts = targets(rows, leaks)
    held = max((r.get("in_flight") or 0 for r in rows), default=0)
    opening = [f"Compared {', '.join(dict.fromkeys(r['mode'] for r in rows))} holding up to "
               f"{held:,} requests waiting "
               f"({', '.join(dict.fromkeys(r['transport'] for r in rows))}): the memory and "
               "threads each waiting request costs, and whether the app still answers meanwhile."]
    opening += [f"{v}: {t} ({m})." for t, v, m in verdicts[:6]]
    if len(verdicts) > 6:
        opening[-1] += f" And {len(verdicts) - 6} more targets below."
    lines = ["# vt-vs-reactive: requests in flight (scale)", "", *opening, "",
             "## Targets", "", "| target | verdict | measured |", "|---|---|---|",
             *[f"| {t} | {v} | {m} |" for t, v, m in verdicts], "",
             "## Levels", "", *table_md(rows), "",
             f"## Leak check (the idle app before the first level; 2 s and {LEAK_CHECK_S} s after "
             "the last level's last answer; back: at most 10 % above the start)", "",
             f"| series | transport | what | start | answers back | {LEAK_CHECK_S} s later | "
             "within 10 % |",
             "|---|---|---|---|---|---|---|",
             *[f"| {x['series']} | {x['transport']} | {x['what']} | {fmt(x['start'])} | "
               f"{fmt(x.get('answered'))} | {fmt(x['end'])} | {x['within_10_pct']} |"
               for x in leaks], "",
             "What the heap after GC kept that it did not at the start (the classes that grew "
             "most, live KiB start -> then, jcmd GC.class_histogram):", "",
             *[f"- {e['series']} {e['transport']}, {when}: "
               + (", ".join(f"{c} {a:,} -> {b:,}" for c, a, b in e.get(key) or [])
                  or "nothing grew")
               for e in ends for key, when in (("heap_growth_answered", "answers back"),
                                               ("heap_growth", f"{LEAK_CHECK_S} s later"))], "",
             f"The OS threads by name that were more {LEAK_CHECK_S} s after the last answer than "
             "at the start (start -> answers back -> then; /proc/PID/task/*/comm, numbers "
             "dropped):", "",
             *[f"- {e['series']} {e['transport']}: "
               + (", ".join(f"{n} {a} -> {b} -> {c}" for n, (a, b, c) in grown_threads(e).items())
                  or "none")
               for e in ends if (e.get("end") or {}).get("thread_names") is not None], "",
             f"## One request fanning out (calls of {burst.DELAY_MS} ms each, from a fresh app)",
             "", *burst.table_md(bursts, skipped), "",
             "## Delay calls per protocol (the delay service's own count, warm-up included)", "",
             *[f"- {e['series']} {e['transport']}: "
               + (", ".join(f"{p} {n:,}" for p, n in sorted(e.get("delay_calls", {}).items()))
                  or "n/a")
               for e in ends], "", *how_measured(meta, limits, nofile)]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines))
    charts = memory_charts(rows, idle_rows)
    for name, chart in zip(CHART_FILES, charts):   # on their own too, for pages that show one
        with open(os.path.join(out, name), "w") as f:
            f.write(pages.standalone(chart))
    write_html(out, charts, lines)
    print(f"{len(rows)} levels -> {out}/summary.json, summary.md, report.html")


def write_summary_json(out, rows, meta, limits, leaks, ends, bursts, skipped):
    """OUT/summary.json: the run's facts and targets, then its rows, one a line."""
    # one row a line, as compare's summary.json
    with open(os.path.join(out, "summary.json"), "w") as f:
        head = json.dumps({
            "experiment": "scale", "machine": meta, "limits": limits, "leak_check": leaks,
            "targets": [dict(zip(("target", "verdict", "measured"), t))
                        for t in targets(rows, leaks)],
            "delay_calls": {f"{e['series']} {e['transport']}": e.get("delay_calls") for e in ends},
            "heap_growth": {f"{e['series']} {e['transport']}": {
                "answers_back": e.get("heap_growth_answered"), "later": e.get("heap_growth")}
                for e in ends},
            "thread_names": {f"{e['series']} {e['transport']}": {
                w: (e.get(w) or {}).get("thread_names") for w in ("start", "answered", "end")}
                for e in ends},
            "fanout_bursts": list(bursts),
            "fanout_not_run": [dict(zip(("series", "transport", "calls", "why"), x))
                               for x in skipped]},
            indent=1)
        f.write(head[:-2] + ',\n"rows": [\n'
                + ",\n".join(json.dumps(r, default=str) for r in rows) + "\n]}\n")


def how_measured(meta, limits, nofile):
    """The summary's "How this was measured" lines: machine, collectors, limits, method."""
    app_settings = settings_text(meta)
    return ["## How this was measured", "",
            f"- **machine**: {meta.get('cores')} cores ({meta.get('cpu', '?')}), "
            f"{meta.get('memory_mib', '?')} MiB, JDK {meta.get('jdk', '?')}, run "
            f"{meta.get('started', '?')}, `{meta.get('command', '')}`",
            collectors_line(meta),
            f"- **pools and limits** (as the first app told them at /q/info): {app_settings}",
            "- **raised for this experiment** (per series and transport; a normal run keeps the "
            "defaults): ",
            *[f"  - {k}: " + ", ".join(f"{n}={v}" for n, v in lim.items() if n != "http1_ceiling")
              for k, lim in limits.items()],
            f"- **what stops HTTP/1.1 here**: {ceiling('http1', '', nofile)[1]}: at most "
            f"{ceiling('http1', '', nofile)[0]:,} waiting requests per app (the socket client with "
            f"h2c in front: {ceiling('h2c', 'socket', nofile)[0]:,})",
            "- **method**: io?delay=D at R req/s holds R x D requests once D has passed; each "
            "level is held, probed (/q/health/ready within 1 s, virtual/io?delay=0 p99 within 100 "
            "ms), then a full GC (jcmd GC.run) gives the heap the waiting requests keep alive and "
            "NMT (jcmd VM.native_memory summary) the native memory. Memory per waiting request: "
            "the least-squares slope of RSS (and of the heap after GC) against the achieved "
            "in-flight, from the idle app up to that level.", ""]


def collectors_line(meta):
    """Which collector the app and the delay service ran on, and why this default differs."""
    app, delay = (meta.get("java_opts") or "JVM defaults",
                  meta.get("delay_java_opts") or "JVM defaults (G1)")
    why = (" (this experiment's default: the comparison's other runs keep ParallelGC for the app, "
           "docs/tuning.md, but the pauses of ParallelGC and G1, the app's and the delay "
           "service's, reached 0.3-1.8 s at 25,000-100,000 waiting requests and made the probe "
           "miss: docs/scale.md)"
           if "-XX:+UseZGC" in app.split() and "-XX:+UseZGC" in delay.split() else "")
    return f"- **collectors**: app `{app}`, delay service `{delay}`{why}"


def grown_threads(e):
    """{thread name: (start, answers back, later)}: the names with more threads later."""
    start, answered, end = ((e.get(k) or {}).get("thread_names") or {}
                            for k in ("start", "answered", "end"))
    return {n: (a, answered.get(n, 0), b) for n, (a, b) in threads_grown(start, end).items()}


def write_html(out, charts, md_lines):
    """OUT/report.html (templates/scale.html.j2): CHARTS (inline SVG) above summary.md's text."""
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(pages.render("scale.html.j2", charts=charts, md="\n".join(md_lines)))


def rerender(out, data, nofile):
    """OUT's scale report again from its summary.json DATA, with this code's targets and tables:
    a published result after a change of the report."""
    ends = {}
    for x in data.get("leak_check") or []:
        e = ends.setdefault((x["series"], x["transport"]),
                            {"series": x["series"], "transport": x["transport"],
                             "start": {}, "answered": {}, "end": {}})
        for when, key in (("start", "start"), ("answered", "answered"), ("end", "end")):
            e[when][x["what"]] = x.get(key)
    for e in ends.values():
        key = f"{e['series']} {e['transport']}"
        e["delay_calls"] = (data.get("delay_calls") or {}).get(key) or {}
        growth = (data.get("heap_growth") or {}).get(key) or {}
        # "deadlines_passed": the key of results read after every deadline
        e["heap_growth_answered"], e["heap_growth"] = (
            growth.get("answers_back"), growth.get("later", growth.get("deadlines_passed")))
        for when, names in ((data.get("thread_names") or {}).get(key) or {}).items():
            e[when]["thread_names"] = names
    skipped = [(x["series"], x["transport"], x["calls"], x["why"])
               for x in data.get("fanout_not_run") or []]
    write_report(out, data["rows"], data.get("machine") or {}, data.get("limits") or {},
                 list(ends.values()), nofile, data.get("fanout_bursts") or [], skipped)
