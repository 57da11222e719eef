"""report.html of a run's contents (contents.py): the page (templates/report.html.j2) with its
charts (charts.py), the verdicts and the ladder on top when the run has them."""
import functools
import os

from harness.analysis import model
from harness.analysis.steps import AA_SUFFIX
from harness.drivers import RATE_TOOLS
from harness.report import pages
from harness.report.charts import Tips, mode_color, series_for, svg_chart
from harness.report.run_text import TARGETS_NOTE, calls_of


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


def render_html(c):
    """report.html's text (templates/report.html.j2) of the Contents C: its opening, verdicts (in
    place of the point targets), floor and ladder, where the CPU goes, each scenario's charts and
    table, the saturation, the run's facts."""
    t, tips = c.run, Tips()
    sections = [{"name": sc.name, "params": sc.all_params,
                 "ceiling": f"{sc.ceiling:,.0f}" if sc.ceiling else None,
                 "charts": scenario_charts(sc.rows, sc.ceiling, tips),
                 "table": [(bool(r["flags"]), cells)
                           for r, cells in zip(sc.rows, sc.cells, strict=True)]}
                for sc in t.scenarios]
    return pages.render(
        "report.html.j2", meta=c.meta, order=t.order, targets=t.targets, targets_note=TARGETS_NOTE,
        verdicts=c.decided.html, advised=c.advised.html, opening=list(c.opening),
        design=c.decided.design, ladder=c.ladder.html, profiles=c.profiles,
        saturation=[{"series": m, "rate": x, "per_run": per, "limit": w}
                    for m, x, per, w in t.saturation],
        per_run=t.per_run, facts=t.facts, modes=[(m, mode_color(m, t.series)) for m in t.series],
        aa_suffix=AA_SUFFIX, notes=t.notes, reuse=str(c.meta.get("reuse")) == "1",
        scenarios=sections, worker_pool=t.worker_pool,
        columns=[model.label(k) for k in model.TABLE],
        flagged=[dict(r, load=load) for r, load in t.flagged], tips=tips.texts)


def write_html(run, c):
    """report.html of the Contents C into the folder RUN."""
    with open(os.path.join(run, "report.html"), "w") as f:
        f.write(render_html(c))
