"""What the report shows of the floor and the ladder (ladder.py): the "Over the floor" table to paste into README,
every series' cost as a multiple of the floor's, a waterfall per mode (inline SVG, drawn like charts.py) and the
project's own share with its verdict. A sequential run gets point ratios from its rows (one measurement each)."""
from __future__ import annotations

import html

from harness.analysis import ladder
from harness.analysis.steps import AA_SUFFIX
from harness.report.charts import nice_ticks

LABELS = {"cpu_ms_per_req": "CPU ms/req", "p99_ok_ms": "p99 ms"}


# ---------------------------------------------------------------------------------------------- data
def from_rows(rows):
    """Point ratios over the floor from a sequential run's ROWS (Vegeta rows of the same scenario, parameters and
    rate as a floor row): the over_floor entries of ladder.analyse without intervals."""
    floor = {(r["scenario"], r["params"], float(r["load"])): r for r in rows
             if r["mode"] == ladder.FLOOR and r["tool"] == "vegeta"}
    out = []
    for r in rows:
        f = floor.get((r["scenario"], r["params"], float(r["load"] or 0)))
        if f is None or r is f or r["tool"] != "vegeta":
            continue
        for metric in ladder.METRICS:
            a, b = r.get(metric), f.get(metric)
            if not (a and b):
                continue
            out.append({"series": r["mode"], "base": ladder.FLOOR, "scenario": r["scenario"],
                        "rate": float(r["load"]), "metric": metric, "ratio": a / b, "ci_low": None, "ci_high": None,
                        "added": a - b, "added_low": None, "added_high": None, "base_value": b, "value": a,
                        "blocks": 1, "invocations": 1, "method": "one measurement each (sequential design)",
                        "level": None, "full": r["success_pct"] == 100.0 and f["success_pct"] == 100.0})
    return {"over_floor": out, "waterfall": [], "project_share": []} if out else {}


def of_run(verdicts, rows):
    """The ladder data of a run: verdicts.json's (an interleaved run), else point ratios from ROWS."""
    return (verdicts or {}).get("ladder") or from_rows(rows)


def models(entries):
    """The modes as shipped among the entries' series (no rung, no floor, no A/A), in ladder order."""
    names = {e["series"] for e in entries}
    return ladder.series_order(s for s in names if not s.startswith("ladder-") and not s.endswith(AA_SUFFIX)
                               and s != ladder.FLOOR)


# ---------------------------------------------------------------------------------------------- text
def _ms(x, lo=None, hi=None, sign=False):
    if x is None:
        return "n/a"
    s = f"{x:+.3f}" if sign else f"{x:.3f}"
    return s + (f" [{lo:+.3f}, {hi:+.3f}]" if lo is not None and hi is not None else "")


def _ratio(e):
    if e is None or e.get("ratio") is None:
        return "n/a"
    return f"{e['ratio']:.2f}x" + (f" [{e['ci_low']:.2f}, {e['ci_high']:.2f}]" if e.get("ci_low") else "")


def _p99(x, lo=None, hi=None):
    if x is None:
        return "n/a"
    return f"{x:+.1f}" + (f" [{lo:+.1f}, {hi:+.1f}]" if lo is not None and hi is not None else "")


def _level(data):
    lv = [e["level"] for e in data.get("over_floor", []) if e.get("level")]
    return f"{100 * min(lv):.1f} % intervals" if lv else "no intervals: one measurement of each (sequential design)"


def _note(*entries):
    return "" if all(e and e["full"] for e in entries) else " (not served fully)"


def table_rows(data):
    """[(model, step, CPU floor -> model, CPU added, CPU ratio, p99 added, p99 ratio)] of the "Over the floor"
    table: every mode as shipped at every step that measured the floor."""
    by = {(e["series"], e["scenario"], e["rate"], e["metric"]): e for e in data.get("over_floor", [])}
    out = []
    steps = list(dict.fromkeys((e["scenario"], e["rate"]) for e in data.get("over_floor", [])))
    for m in models(data.get("over_floor", [])):
        for sc, rate in steps:
            c, p = by.get((m, sc, rate, "cpu_ms_per_req")), by.get((m, sc, rate, "p99_ok_ms"))
            if c is None and p is None:
                continue
            out.append((m + _note(c, p), f"{sc} {rate:,.0f}/s",
                        f"{c['base_value']:.3f} -> {c['value']:.3f}" if c else "n/a",
                        _ms(c["added"], c["added_low"], c["added_high"], sign=True) if c else "n/a", _ratio(c),
                        _p99(p["added"], p["added_low"], p["added_high"]) if p else "n/a", _ratio(p)))
    return out


SERIES_HEAD = ("series", "step", "CPU x floor", "CPU ms/req added", "p99 x floor", "blocks")


def series_rows(data):
    """[SERIES_HEAD's cells] for every series measured beside the floor, at every step."""
    entries = data.get("over_floor", [])
    by = {(e["series"], e["scenario"], e["rate"], e["metric"]): e for e in entries}
    out = []
    for (series, sc, rate) in dict.fromkeys((e["series"], e["scenario"], e["rate"]) for e in entries):
        c, p = by.get((series, sc, rate, "cpu_ms_per_req")), by.get((series, sc, rate, "p99_ok_ms"))
        out.append((series + _note(c, p), f"{sc} {rate:,.0f}/s", _ratio(c),
                    _ms(c["added"], c["added_low"], c["added_high"], sign=True) if c else "n/a", _ratio(p),
                    str((c or p)["blocks"])))
    return out


def waterfall_text(w):
    """'floor 0.050; + ladder-rest +0.012 [+0.008, +0.016] (1.24x); ...; = reactive 0.110'"""
    parts = [f"floor {w['floor']:.3f}"]
    parts += [f"+ {b['series']} {_ms(b['added'], b['added_low'], b['added_high'], sign=True)} ({b['ratio']:.2f}x)"
              for b in w["bars"]]
    return "; ".join(parts) + f"; = {w['mode']} {w['bars'][-1]['value']:.3f} CPU ms/req"


def share_text(s):
    span = (f" [{100 * s['share_low']:.1f}, {100 * s['share_high']:.1f}] %" if s["share_low"] is not None else "")
    return f"{100 * s['share']:.1f} %{span}"


def md_lines(data):
    """summary.md's section: the README table, every series over the floor, the waterfalls, the project's share."""
    if not data:
        return []
    out = ["## Over the floor", ""]
    entries = data.get("over_floor", [])
    if table_rows(data):
        how = ("mean of the per-block differences", "geometric mean of the per-block ratios") \
            if any(e.get("level") for e in entries) else ("one step each", "model / floor")
        out += ["What each model adds over the floor (the same io work on a plain Vert.x route with a bare Vert.x "
                f"HttpClient, in the same app; docs/floor.md), {_level(data)}: CPU per request and p99 of "
                f"successes, added (model - floor, {how[0]}) and as a multiple ({how[1]}). Paste into README with "
                "the run's data folder.", "",
                "| model | step | CPU ms/req, floor -> model | CPU ms/req added | CPU x floor | p99 ms added | "
                "p99 x floor |", "|---|---|---|---|---|---|---|"]
        out += ["| " + " | ".join(r) + " |" for r in table_rows(data)] + [""]
    if entries:
        out += ["### Every series over the floor", "", "| " + " | ".join(SERIES_HEAD) + " |",
                "|---|---|---|---|---|---|"]
        out += ["| " + " | ".join(r) + " |" for r in series_rows(data)] + [""]
    if data.get("waterfall"):
        out += ["### The ladder: CPU ms/req added rung by rung", ""]
        out += [f"- {w['mode']}, {w['scenario']} {w['rate']:,.0f}/s: {waterfall_text(w)}" for w in data["waterfall"]]
        out.append("")
    if data.get("project_share"):
        out += ["### The project's own share of each mode's CPU per request", "",
                f"The rungs above the base (docs/floor.md) are the project's own code; target <= "
                f"{100 * ladder.PROJECT_SHARE_MAX:.0f} %.", "",
                "| mode | step | above | share [interval] | CPU ms/req added | blocks | verdict |",
                "|---|---|---|---|---|---|---|"]
        out += [f"| {s['mode']} | {s['scenario']} {s['rate']:,.0f}/s | {s['base']} | {share_text(s)} | "
                f"{_ms(s['added'], s['added_low'], s['added_high'], sign=True)} | {s['blocks']} | {s['verdict']}"
                + (f" ({s['note']})" if s["note"] else "") + " |" for s in data["project_share"]]
        out.append("")
    return out


# ---------------------------------------------------------------------------------------------- SVG
BAR_W, GAP, ML, MT, MB, H = 46, 18, 56, 30, 72, 270
FRAMEWORK, PROJECT, FLOOR_FILL = "#54aeff", "#fb8f44", "#8c959f"


def waterfall_svg(w):
    """One mode's waterfall at one step: the floor's bar, then each rung's added CPU ms/req floating on the level
    below it, with its interval as a whisker; the project's own rungs in orange."""
    bars = w["bars"]
    base = ladder.PROJECT_BASE.get(w["mode"])
    project = set(w["rungs"][w["rungs"].index(base) + 1:]) if base in w["rungs"] else set()
    cols = [(ladder.FLOOR, 0.0, w["floor"], None, None, FLOOR_FILL, "")]
    for b in bars:   # (name, start, end, whisker low, whisker high, fill, hover text)
        t = cols[-1][2]
        known = b["added_low"] is not None
        cols.append((b["series"], t, t + b["added"], t + b["added_low"] if known else None,
                     t + b["added_high"] if known else None, PROJECT if b["series"] in project else FRAMEWORK,
                     f", {b['added']:+.3f} over {b['base']}"
                     + (f" [{b['added_low']:+.3f}, {b['added_high']:+.3f}]" if known else "") + f", {b['ratio']:.2f}x"))
    hi = max(v for c in cols for v in (c[2], c[4]) if v is not None) * 1.12
    lo = min(0.0, *(v for c in cols for v in (c[2], c[3]) if v is not None))
    ticks = nice_ticks(lo, hi)
    lo, hi = ticks[0], ticks[-1]
    n = len(bars) + 1
    width, ph = max(ML + n * (BAR_W + GAP) + 10, 330), H - MT - MB   # the title fits

    def y(v):
        return MT + ph - (v - lo) / (hi - lo) * ph

    e = html.escape
    title = f"{w['mode']}, {w['scenario']} {w['rate']:,.0f} req/s: CPU ms/req"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{H}" viewBox="0 0 {width} {H}" '
           f'class="chart" role="img" aria-label="{e(title)}">', f'<text x="{ML}" y="16" class="t">{e(title)}</text>']
    out.append('<path class="grid" d="' + "".join(f"M{ML} {y(t):.1f}H{width - 10}" for t in ticks) + '"/>'
               + '<g class="ax" text-anchor="end">'
               + "".join(f'<text x="{ML - 5}" y="{y(t) + 4:.1f}">{t:g}</text>' for t in ticks) + "</g>")
    for i, (name, start, end, wl, wh, fill, more) in enumerate(cols):
        x = ML + GAP / 2 + i * (BAR_W + GAP)
        top, bottom = y(max(start, end)), y(min(start, end))
        out.append(f'<g><title>{e(f"{name}: {end:.3f} CPU ms/req{more}")}</title><rect x="{x:.1f}" y="{top:.1f}" '
                   f'width="{BAR_W}" height="{max(bottom - top, 1):.1f}" fill="{fill}"/>')
        if wl is not None:
            cx = x + BAR_W / 2
            out.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(wl):.1f}" y2="{y(wh):.1f}" stroke="#24292f" '
                       f'stroke-width="1.5"/>')
        label = f"{end:.3f}" if i == 0 else f"{end - start:+.3f}"
        out.append(f'<text x="{x + BAR_W / 2:.1f}" y="{min(top, y(wh) if wh is not None else top) - 4:.1f}" '
                   f'text-anchor="middle" class="lg">{label}</text>')
        lx, ly = x + BAR_W / 2, MT + ph + 12
        out.append(f'<text transform="translate({lx:.1f},{ly}) rotate(-35)" text-anchor="end" class="ax">'
                   f'{e(name)}</text></g>')
        if i + 1 < len(cols):   # the connector to the next bar's start
            out.append(f'<line x1="{x + BAR_W:.1f}" x2="{x + BAR_W + GAP:.1f}" y1="{y(end):.1f}" y2="{y(end):.1f}" '
                       f'stroke="#57606a" stroke-dasharray="2,2"/>')
    out.append(f'<line x1="{ML}" x2="{width - 10}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#57606a"/></svg>')
    return "".join(out)


def html_section(data):
    """report.html's section: the same tables as md_lines and the waterfalls."""
    if not data:
        return ""
    e = html.escape

    def table(head, rows):
        return ("<table class='d'><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"
                + "".join("<tr>" + "".join(f"<td class='l'>{e(str(c))}</td>" for c in r) + "</tr>" for r in rows)
                + "</table>")

    out = ["<h2>Over the floor</h2>"]
    if table_rows(data):
        out += [f"<p class='note'>What each model adds over the floor (the same io work on a plain Vert.x route with "
                f"a bare Vert.x HttpClient, in the same app; docs/floor.md), {e(_level(data))}.</p>",
                table(("model", "step", "CPU ms/req, floor -> model", "CPU ms/req added", "CPU x floor",
                       "p99 ms added", "p99 x floor"), table_rows(data))]
    if data.get("over_floor"):
        out.append("<h3>Every series over the floor</h3>" + table(SERIES_HEAD, series_rows(data)))
    if data.get("waterfall"):
        out.append("<h3>The ladder</h3><p class='note'>Per mode and step: the floor's CPU ms/req (grey), then what "
                   "each rung adds to the one below it (mean of the per-block differences; the whisker is its "
                   "interval); orange bars are the project's own code, blue the framework's.</p><div class='row'>"
                   + "".join(waterfall_svg(w) for w in data["waterfall"]) + "</div>")
    if data.get("project_share"):
        out.append(f"<h3>The project's own share (target &lt;= {100 * ladder.PROJECT_SHARE_MAX:.0f} %)</h3>" + table(
            ("mode", "step", "above", "share [interval]", "CPU ms/req added", "blocks", "verdict"),
            [(s["mode"], f"{s['scenario']} {s['rate']:,.0f}/s", s["base"], share_text(s),
              _ms(s["added"], s["added_low"], s["added_high"], sign=True), s["blocks"],
              s["verdict"] + (f" ({s['note']})" if s["note"] else "")) for s in data["project_share"]]))
    return "".join(out)
