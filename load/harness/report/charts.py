"""The report's charts, hand-drawn as inline SVG (one HTML file that opens offline): hover values, flagged points."""
import html
import math

from harness.analysis.steps import AA_SUFFIX, fmt, series_names

MODE_COLORS = {"floor": "#57606a", "virtual": "#1f77b4", "worker": "#e6730f", "reactive": "#2ca02c",
               "virtual+socket": "#17becf",
               "worker+socket": "#bcbd22"}
EXTRA_COLORS = ["#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#d62728"]


# ---------------------------------------------------------------------------------------------- SVG
def nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, t = [], start
    while not ticks or ticks[-1] < hi - step * 0.001:
        ticks.append(round(t, 10))
        t += step
    return ticks


class Tips:
    """The hover texts of a page's charts, each stored once: a point names its text by number (data-t), and the
    page's script puts the text in place, so a step drawn in ten charts does not carry its text ten times."""

    def __init__(self):
        self.texts, self._index = [], {}

    def ref(self, text):
        if text not in self._index:
            self._index[text] = len(self.texts)
            self.texts.append(text)
        return self._index[text]


def svg_chart(title, subtitle, series, xlabel, ylabel, hlines=(), logy=None, w=328, h=270, tips=None):
    """series: [{name, color, dash, points: [(x, y, flagged, tooltip)]}]; x is categorical (sorted union). TIPS (a
    Tips) takes the hover texts; without it each point carries its own <title> (a standalone SVG file)."""
    pts = [p for s in series for p in s["points"] if p[1] is not None]
    ml, mr, mt, mb = 52, 10, 56, 40
    legend, lx, ly = [], ml, 0   # (x, line) of each series' legend entry, wrapped to the chart's width
    for s in series:
        width = 26 + 6.2 * len(s["name"])
        if lx > ml and lx + width > w - mr:
            lx, ly = ml, ly + 1
        legend.append((lx, ly))
        lx += width
    mt += 14 * ly
    h += 14 * ly
    pw, ph = w - ml - mr, h - mt - mb
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'class="chart" role="img" aria-label="{e(title)}">',
           f'<text x="{ml}" y="16" class="t">{e(title)}</text>',
           f'<text x="{ml}" y="31" class="st">{e(subtitle)}</text>']
    if not pts:
        out.append(f'<text x="{w / 2}" y="{h / 2}" text-anchor="middle" class="st">no data</text></svg>')
        return "".join(out)
    xs = sorted({p[0] for p in pts})
    ys = [p[1] for p in pts] + [v for v, _ in hlines]
    ymin, ymax = min(ys), max(ys)
    if logy is None:
        logy = ymin > 0 and ymax / ymin > 30
    if logy:
        lo, hi = math.floor(math.log10(max(min(ys), 1e-3))), math.ceil(math.log10(max(ys)))
        hi = max(hi, lo + 1)
        ticks = [10 ** k for k in range(lo, hi + 1)]
        fy = lambda v: mt + ph - (math.log10(max(v, 10 ** lo)) - lo) / (hi - lo) * ph  # noqa: E731
    else:
        ticks = nice_ticks(0, ymax * 1.08 if ymax > 0 else 1)
        top = ticks[-1]
        fy = lambda v: mt + ph - v / top * ph  # noqa: E731
    n = len(xs)
    fx = lambda x: ml + (pw * (xs.index(x) + 0.5) / n)  # noqa: E731
    nudge = {id(s): (i - (len(series) - 1) / 2) * 5 for i, s in enumerate(series)}  # equal values stay visible
    out.append(f'<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" class="plot"/>')
    # the grid as one path and the tick labels in two groups: a report draws a hundred charts
    out.append('<path class="grid" d="' + "".join(f"M{ml} {fy(t):.1f}h{pw}" for t in ticks) + '"/>')
    out.append('<g class="ax" text-anchor="end">' + "".join(
        f'<text x="{ml - 5}" y="{fy(t) + 4:.1f}">{fmt_tick(t)}</text>' for t in ticks) + "</g>")
    out.append('<g class="ax" text-anchor="middle">' + "".join(
        f'<text x="{fx(x):.1f}" y="{mt + ph + 15}">{fmt_tick(x)}</text>' for x in xs) + "</g>")
    out.append(f'<text x="{ml + pw / 2}" y="{h - 6}" text-anchor="middle" class="ax">{e(xlabel)}</text>')
    out.append(f'<text transform="translate(13,{mt + ph / 2}) rotate(-90)" text-anchor="middle" class="ax">'
               f'{e(ylabel)}{" (log)" if logy else ""}</text>')
    for v, label in hlines:
        y = fy(v)
        out.append(f'<line x1="{ml}" x2="{ml + pw}" y1="{y:.1f}" y2="{y:.1f}" class="ceil"/>'
                   f'<text x="{ml + pw - 4}" y="{y - 4:.1f}" text-anchor="end" class="ceilt">{e(label)}</text>')
    for s in series:
        sp = sorted((p for p in s["points"] if p[1] is not None), key=lambda p: xs.index(p[0]))
        dx = nudge[id(s)]
        if len(sp) > 1:
            d = " ".join(f"{'M' if i == 0 else 'L'}{fx(p[0]) + dx:.1f},{fy(p[1]):.1f}" for i, p in enumerate(sp))
            dash = ' stroke-dasharray="5,4"' if s.get("dash") else ""
            out.append(f'<path d="{d}" fill="none" stroke="{s["color"]}" stroke-width="2"{dash}/>')
        out.append(f'<g fill="{s["color"]}">')
        for x, y, flagged, tip in sp:
            cx, cy = fx(x) + dx, fy(y)
            # a hover text of its own (a standalone SVG) or the page's text number TIPS gives (data-t)
            ref, title = ("", f"<title>{e(tip)}</title>") if tips is None else (f' data-t="{tips.ref(tip)}"', "")
            out.append(f"<g{ref}>{title}")
            if flagged:
                out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="7" class="flag"/>')
            out.append((f'<rect x="{cx - 3.5:.1f}" y="{cy - 3.5:.1f}" width="7" height="7"/>' if s.get("dash")
                        else f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.8"/>') + "</g>")
        out.append("</g>")
    for s, (lx, line) in zip(series, legend, strict=True):  # legend between the titles and the plot
        label, y = s["name"], mt - 12 - 14 * (ly - line)
        dash = ' stroke-dasharray="5,4"' if s.get("dash") else ""
        out.append(f'<line x1="{lx}" x2="{lx + 16}" y1="{y}" y2="{y}" stroke="{s["color"]}" '
                   f'stroke-width="2"{dash}/>'
                   f'<text x="{lx + 19}" y="{y + 4}" class="lg">{e(label)}</text>')
    out.append("</svg>")
    return "".join(out)


def fmt_tick(v):
    if v >= 1000 and float(v).is_integer():
        return f"{v / 1000:g}k" if v % 1000 == 0 else f"{v:,.0f}"
    return f"{v:g}"


# ---------------------------------------------------------------------------------------------- series
def tip(r):
    return (f"{r['mode']} {r['tool']} {r['load']} {'req/s' if r['load_kind'] == 'rate' else 'in flight'}\n"
            f"achieved {fmt(r['achieved_rps'])} req/s, success {fmt(r['success_pct'], 2)}%\n"
            f"successes: p50 {fmt(r['p50_ok_ms'])} / p99 {fmt(r['p99_ok_ms'])} ms; "
            f"all answers: p50 {fmt(r['p50_ms'])} / p99 {fmt(r['p99_ms'])} / max {fmt(r['max_ms'])} ms\n"
            f"CPU {fmt(r['cpu_ms_per_req'], 3)} ms/req, RSS {fmt(r['rss_peak_mib'])} MiB, "
            f"threads {fmt(r['threads_peak'])}" + (f"\nFLAGS: {r['flags']}" if r["flags"] else ""))


def mode_color(mode, names):
    base = mode.removesuffix(AA_SUFFIX)
    if base in MODE_COLORS:
        return MODE_COLORS[base]
    extra = [n for n in names if n.removesuffix(AA_SUFFIX) not in MODE_COLORS]
    return EXTRA_COLORS[extra.index(mode) % len(EXTRA_COLORS)] if mode in extra else "#333"


def series_for(rows, key, dash=False, suffix="", x=lambda r: float(r["load"])):
    out, names = [], series_names(rows)
    for mode in names:
        mr = [r for r in rows if r["mode"] == mode]
        out.append({"name": mode + suffix, "color": mode_color(mode, names),
                    "dash": dash or mode.endswith(AA_SUFFIX),
                    "points": [(x(r), r[key], bool(r["flags"]), tip(r)) for r in mr]})
    return out
