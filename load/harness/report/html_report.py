"""report.html of a run's rows: the page (templates/report.html.j2) with its charts (charts.py),
the verdicts and the ladder on top when the run has them."""
import functools
import os

from harness.analysis import model
from harness.analysis.steps import AA_SUFFIX, fmt, series_names, worker_ceiling
from harness.analysis.verdicts import saturation, saturation_args, targets
from harness.drivers import RATE_TOOLS
from harness.report import ladder_report, pages, profile_report, verdict_sections
from harness.report.charts import Tips, mode_color, series_for, svg_chart
from harness.report.run_text import (
    TARGETS_NOTE,
    calls_of,
    cell,
    load_label,
    method_notes,
    order_text,
    per_run_text,
    settings_text,
)

FACTS = (("cores", "cores"), ("cpu", "CPU"), ("memory_mib", "memory MiB"), ("os", "OS"),
         ("jdk", "JDK"), ("quarkus", "Quarkus"), ("app", "app"), ("java_opts", "JVM options"),
         ("delay_java_opts", "delay service JVM options"), ("started", "started"),
         ("command", "command"), ("git_commit", "commit"), ("vegeta", "Vegeta"),
         ("hyperfoil", "Hyperfoil"), ("hey", "hey"), ("mode_order", "mode order"),
         ("placement", "CPU placement"), ("settings", "pools and limits (every mode)"))
LEFT_COLS = ("mode", "tool", "status_codes", "flags")   # text, left-aligned


def fact(meta, key):
    """One line of the report's 'This run' table."""
    v = (order_text(meta) if key == "mode_order"
         else settings_text(meta) if key == "settings" else meta.get(key))
    if key == "placement" and not v:
        v = "none: every process may use every core"
    if key in ("java_opts", "delay_java_opts") and not v:
        v = "JVM defaults (max heap = 1/4 of RAM)"
    return str(v if v not in (None, "") else "n/a")


def scenario_charts(sr, ceil, tips):
    """(heading, [svg]) per row of charts of a scenario's rows; a tool with no steps gets none."""
    draw = functools.partial(svg_chart, tips=tips)
    hey = [r for r in sr if r["tool"] == "hey"]
    charts = []
    cost_keys = (("cpu_ms_per_req", "CPU per request", "CPU ms/req"),
                 ("rss_peak_mib", "peak RSS", "MiB"))
    for tool in RATE_TOOLS:   # each rate tool its own charts: one tool's figures a line
        rate, name = [r for r in sr if r["tool"] == tool], tool.capitalize()
        if not rate:
            continue
        charts.append((f"Latency vs request rate \u2014 {name} (open model)", [
            draw(f"{label} latency", f"{name}, constant rate, {sub}", series_for(rate, key),
                 "requested rate (req/s)", "ms")
            for key, label, sub in (("p50_ok_ms", "p50", "successes only"),
                                    ("p99_ok_ms", "p99", "successes only"),
                                    ("p999_ms", "p99.9", "all answers"))] + [
            draw("success rate", f"{name}: 2xx/3xx answers / requests",
                 series_for(rate, "success_pct"), "requested rate (req/s)", "% ok", logy=False),
            draw("achieved throughput", f"{name}: successes / (send + wait)",
                 series_for(rate, "achieved_rps"), "requested rate (req/s)", "req/s", logy=False)]))
    veg = [r for r in sr if r["tool"] == "vegeta"]
    if hey:
        hl = [(ceil, f"worker ceiling {ceil:,.0f}/s")] if ceil else []
        charts.append(("Throughput vs concurrency \u2014 hey (closed model)", [
            draw("throughput", "hey, N requests in flight", series_for(hey, "achieved_rps"),
                 "concurrency", "ok req/s", hlines=hl, logy=False),
            draw("p50 latency", "hey, successes only (closed model hides queueing)",
                 series_for(hey, "p50_ok_ms"), "concurrency", "ms"),
            draw("p99 latency", "hey, successes only", series_for(hey, "p99_ok_ms"),
                 "concurrency", "ms"),
            draw("peak platform threads", "hey steps, /proc Threads",
                 series_for(hey, "threads_peak"), "concurrency", "threads", logy=False)] + [
            draw(f"{label} vs concurrency", "hey steps", series_for(hey, key), "concurrency",
                 unit, logy=False)
            for key, label, unit in cost_keys]))
    if len({r["params"] for r in veg}) > 1:   # the cost experiment: the work per request varies
        charts.append(("Cost growth \u2014 work per request (Vegeta, same rate)", [
            draw(f"{label} vs calls", "delay calls per request", series_for(veg, key, x=calls_of),
                      "calls per request", unit, logy=False) for key, label, unit in cost_keys]))
    if veg:
        charts.append(("Server cost \u2014 app process during the Vegeta steps", [
            draw(label, "Vegeta steps, sampled every 250 ms", series_for(veg, key),
                 "requested rate (req/s)", unit, logy=False)
            for key, label, unit in cost_keys + (
                ("threads_peak", "peak platform threads", "threads"),
                ("heap_peak_mib", "peak heap used", "MiB"))]))
    return charts


def render_html(rows, meta, scenarios, worker_pool, decided=None, profiled=None, opening=()):
    """report.html's text (templates/report.html.j2); DECIDED: an interleaved run's verdicts.json,
    opening the page (replacing the targets table's point verdicts), the floor and ladder after it;
    PROFILED: a --profile run's profiles.json, where the CPU goes; OPENING: the lines on top."""
    names = series_names(rows)
    runs = "saturation_runs" in (meta or {})
    sections, tips = [], Tips()
    for sc in scenarios:
        sr = [r for r in rows if r["scenario"] == sc]
        if not sr:
            continue
        ceil = worker_ceiling(sc, sr[0]["params"], worker_pool)
        sections.append({
            # several params in the cost experiment
            "name": sc, "params": " | ".join(dict.fromkeys(r["params"] or "" for r in sr)),
            "ceiling": f"{ceil:,.0f}" if ceil else None, "charts": scenario_charts(sr, ceil, tips),
            "table": [(bool(r["flags"]), [(k in LEFT_COLS, cell(r, k)) for k in model.TABLE])
                      for r in sr]})
    sat = saturation(rows, **saturation_args(meta))
    return pages.render(
        "report.html.j2", meta=meta, order=order_text(meta),
        targets=[] if decided else targets(rows, worker_pool), targets_note=TARGETS_NOTE,
        verdicts=verdict_sections.html_section(decided), opening=list(opening),
        design=verdict_sections.design_text(decided["design"]) if decided else "",
        ladder=ladder_report.html_section(ladder_report.of_run(decided, rows)),
        profiles=profile_report.html_section(profiled),
        saturation=[{"series": m, "rate": fmt(x, 0) if x else "none",
                     "per_run": per_run_text(meta, m), "limit": w} for m, x, w in sat],
        per_run=runs, facts=[(label, fact(meta, k)) for k, label in FACTS],
        modes=[(m, mode_color(m, names)) for m in names], aa_suffix=AA_SUFFIX,
        notes=method_notes(meta), reuse=str(meta.get("reuse")) == "1", scenarios=sections,
        worker_pool=worker_pool, columns=[model.label(k) for k in model.TABLE],
        flagged=[dict(r, load=load_label(r)) for r in rows if r["flags"]], tips=tips.texts)


def write_html(run, rows, meta, scenarios, worker_pool, decided, opening=()):
    """report.html of ROWS into RUN; DECIDED: its verdicts (verdict_sections.load), read once."""
    with open(os.path.join(run, "report.html"), "w") as f:
        f.write(render_html(rows, meta, scenarios, worker_pool, decided,
                            profile_report.load(run), opening))


