"""Every chart of the harness's pages, hand-drawn as inline SVG (one HTML file that opens
offline): the steps' line charts, the verdicts' interval plot and the ladder's waterfalls."""
import html
import math

from harness.analysis import ladder
from harness.analysis.steps import AA_SUFFIX, fmt, series_names
from harness.analysis.targets import LABELS

MODE_COLORS = {"floor": "#57606a", "virtual": "#1f77b4", "worker": "#e6730f", "reactive": "#2ca02c",
               "virtual+socket": "#17becf", "worker+socket": "#bcbd22"}
EXTRA_COLORS = ["#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#d62728"]


# -------------------------------------------------------------------------------- SVG
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
    """The hover texts of a page's charts, each stored once: a point names its text by number
    (data-t), so a step drawn in ten charts does not carry its text ten times."""

    def __init__(self):
        self.texts, self._index = [], {}

    def ref(self, text):
        if text not in self._index:
            self._index[text] = len(self.texts)
            self.texts.append(text)
        return self._index[text]


def svg_chart(title, subtitle, series, xlabel, ylabel, hlines=(), logy=None, w=328, h=270,
              tips=None, xevery=1, dots=True):
    """series: [{name, color, dash, points: [(x, y, flagged, tooltip)]}]; x is categorical,
    every XEVERY-th labelled. TIPS (a Tips) takes the hover texts, else each point has its own
    <title> (standalone SVG). DOTS False: lines only (a dense time series)."""
    pts = [p for s in series for p in s["points"] if p[1] is not None]
    ml, mr, mt, mb = 52, 10, 56, 40
    legend, ly = legend_layout(series, ml, w - mr)
    mt += 14 * ly
    h += 14 * ly
    pw, ph = w - ml - mr, h - mt - mb
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" class="chart" role="img" aria-label="{e(title)}">',
           f'<text x="{ml}" y="16" class="t">{e(title)}</text>',
           f'<text x="{ml}" y="31" class="st">{e(subtitle)}</text>']
    if not pts:
        out.append(f'<text x="{w / 2}" y="{h / 2}" text-anchor="middle" class="st">'
                   'no data</text></svg>')
        return "".join(out)
    xs = sorted({p[0] for p in pts})
    ys = [p[1] for p in pts] + [v for v, _ in hlines]
    ymin, ymax = min(ys), max(ys)
    if logy is None:
        logy = ymin > 0 and ymax / ymin > 30
    ticks, fy = y_scale(ys, ymax, logy, mt, ph)
    n = len(xs)
    fx = lambda x: ml + (pw * (xs.index(x) + 0.5) / n)  # noqa: E731
    # equal values stay visible as markers side by side; lines alone keep their true x
    nudge = {id(s): (i - (len(series) - 1) / 2) * 5 * dots for i, s in enumerate(series)}
    out.append(f'<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" class="plot"/>')
    # the grid as one path and the tick labels in two groups: a report draws a hundred charts
    out.append('<path class="grid" d="'
               + "".join(f"M{ml} {fy(t):.1f}h{pw}" for t in ticks) + '"/>')
    out.append('<g class="ax" text-anchor="end">' + "".join(
        f'<text x="{ml - 5}" y="{fy(t) + 4:.1f}">{fmt_tick(t)}</text>' for t in ticks) + "</g>")
    out.append('<g class="ax" text-anchor="middle">' + "".join(
        f'<text x="{fx(x):.1f}" y="{mt + ph + 15}">{fmt_tick(x)}</text>'
        for x in xs[::xevery]) + "</g>")
    out.append(f'<text x="{ml + pw / 2}" y="{h - 6}" text-anchor="middle" class="ax">'
               f'{e(xlabel)}</text>')
    out.append(f'<text transform="translate(13,{mt + ph / 2}) rotate(-90)" '
               f'text-anchor="middle" class="ax">{e(ylabel)}{" (log)" if logy else ""}</text>')
    for v, label in hlines:
        y = fy(v)
        out.append(f'<line x1="{ml}" x2="{ml + pw}" y1="{y:.1f}" y2="{y:.1f}" class="ceil"/>'
                   f'<text x="{ml + pw - 4}" y="{y - 4:.1f}" text-anchor="end" class="ceilt">'
                   f'{e(label)}</text>')
    for s in series:
        out += series_marks(s, xs, fx, fy, nudge[id(s)], dots, tips)
    out += legend_marks(series, legend, mt - 12 - 14 * ly)
    out.append("</svg>")
    return "".join(out)


def legend_layout(series, left, right):
    """([(x, line)] of each legend entry, wrapped between LEFT and RIGHT; the last line)."""
    legend, lx, ly = [], left, 0
    for s in series:
        width = 26 + 6.2 * len(s["name"])
        if lx > left and lx + width > right:
            lx, ly = left, ly + 1
        legend.append((lx, ly))
        lx += width
    return legend, ly


def legend_marks(series, legend, top):
    """The legend between the titles and the plot, its first line at TOP."""
    out = []
    for s, (lx, line) in zip(series, legend, strict=True):
        y = top + 14 * line
        dash = ' stroke-dasharray="5,4"' if s.get("dash") else ""
        out.append(f'<line x1="{lx}" x2="{lx + 16}" y1="{y}" y2="{y}" stroke="{s["color"]}" '
                   f'stroke-width="2"{dash}/>'
                   f'<text x="{lx + 19}" y="{y + 4}" class="lg">{html.escape(s["name"])}</text>')
    return out


def y_scale(ys, ymax, logy, mt, ph):
    """(ticks, value -> y) of a y axis over YS: powers of ten when LOGY, else nice ticks from 0."""
    if logy:
        lo, hi = math.floor(math.log10(max(min(ys), 1e-3))), math.ceil(math.log10(max(ys)))
        hi = max(hi, lo + 1)
        ticks = [10 ** k for k in range(lo, hi + 1)]
        fy = lambda v: mt + ph - (math.log10(max(v, 10 ** lo)) - lo) / (hi - lo) * ph  # noqa: E731
    else:
        ticks = nice_ticks(0, ymax * 1.08 if ymax > 0 else 1)
        top = ticks[-1]
        fy = lambda v: mt + ph - v / top * ph  # noqa: E731
    return ticks, fy


def series_marks(s, xs, fx, fy, dx, dots, tips):
    """The SVG of one series S: its line and, with DOTS, a marker and hover text per point."""
    e, out = html.escape, []
    sp = sorted((p for p in s["points"] if p[1] is not None), key=lambda p: xs.index(p[0]))
    if len(sp) > 1:
        d = " ".join(f"{'M' if i == 0 else 'L'}{fx(p[0]) + dx:.1f},{fy(p[1]):.1f}"
                     for i, p in enumerate(sp))
        dash = ' stroke-dasharray="5,4"' if s.get("dash") else ""
        out.append(f'<path d="{d}" fill="none" stroke="{s["color"]}" stroke-width="2"{dash}/>')
    if not dots:
        return out
    out.append(f'<g fill="{s["color"]}">')
    for x, y, flagged, tip in sp:
        cx, cy = fx(x) + dx, fy(y)
        # a hover text of its own (a standalone SVG) or the page's text number TIPS gives (data-t)
        ref, title = (("", f"<title>{e(tip)}</title>") if tips is None
                      else (f' data-t="{tips.ref(tip)}"', ""))
        out.append(f"<g{ref}>{title}")
        if flagged:
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="7" class="flag"/>')
        out.append((f'<rect x="{cx - 3.5:.1f}" y="{cy - 3.5:.1f}" width="7" height="7"/>'
                    if s.get("dash") else f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.8"/>')
                   + "</g>")
    out.append("</g>")
    return out


def fmt_tick(v):
    if v >= 1000 and float(v).is_integer():
        return f"{v / 1000:g}k" if v % 1000 == 0 else f"{v:,.0f}"
    return f"{v:g}"


# -------------------------------------------------------------------------------- series
def tip(r):
    return (f"{r['mode']} {r['tool']} {r['load']} "
            f"{'req/s' if r['load_kind'] == 'rate' else 'in flight'}\n"
            f"achieved {fmt(r['achieved_rps'])} req/s, success {fmt(r['success_pct'], 2)}%\n"
            f"successes: p50 {fmt(r['p50_ok_ms'])} / p99 {fmt(r['p99_ok_ms'])} ms; "
            f"all answers: p50 {fmt(r['p50_ms'])} / p99 {fmt(r['p99_ms'])} / "
            f"max {fmt(r['max_ms'])} ms\n"
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


# -------------------------------------------------------------------------------- interval plot
COLOURS = {"PASS": "#1a7f37", "FAIL": "#cf222e", "INCONCLUSIVE": "#9a6700"}
ROW, LABEL_W, PLOT_W, TEXT_W, TOP = 20, 330, 300, 270, 54
LEGEND = ("dot: the ratio (geometric mean of the blocks' ratios); bar: its confidence interval; "
          "log scale",
          "grey: the A/A band (1.00 +- the A/A pair's half-width at that step); "
          "blue dashes: the target's bound")


def _domain(entries):
    vals = [1.0]
    for e in entries:
        vals += [v for v in (e["ci_low"], e["ci_high"], *e["region"]) if v]
        if e.get("aa_half_width") is not None:
            vals.append(1 + e["aa_half_width"])
    lo, hi = max(min(vals) / 1.05, 0.25), min(max(vals) * 1.05, 4.0)
    return math.log(lo), math.log(hi)


def _label(e):
    a, b = e["series"]
    return f"{e['scenario']} {e['rate']:,.0f}: {a} / {b} {LABELS[e['metric']]}"


def interval_plot(entries):
    """The plot of the target entries (stats.analyse()["verdicts"]; A/A entries show as the
    grey band on every line) -> an <svg> string."""
    rows = [e for e in entries if not e["aa"]]
    lo, hi = _domain(rows)
    width = LABEL_W + PLOT_W + TEXT_W
    height = TOP + ROW * len(rows) + 8

    def x(v):
        v = min(max(v, math.exp(lo)), math.exp(hi))
        return LABEL_W + PLOT_W * (math.log(v) - lo) / (hi - lo)

    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="11" role="img" '
            f'aria-label="ratio and confidence interval per target">')
    out = [head] + [f'<text x="6" y="{12 + 13 * k}" fill="#57606a">{html.escape(t)}</text>'
                    for k, t in enumerate(LEGEND)]
    for tick in (0.5, 0.8, 1.0, 1.25, 2.0):
        if lo <= math.log(tick) <= hi:
            out.append(f'<line x1="{x(tick):.1f}" y1="{TOP - 6}" x2="{x(tick):.1f}" '
                       f'y2="{height - 4}" stroke="{"#57606a" if tick == 1 else "#d0d7de"}" '
                       f'stroke-width="1"/>'
                       f'<text x="{x(tick):.1f}" y="{TOP - 10}" text-anchor="middle">'
                       f'{tick:g}x</text>')
    for i, e in enumerate(rows):
        y = TOP + ROW * i + ROW / 2
        if i and e["target"] != rows[i - 1]["target"]:       # a thin rule between targets
            out.append(f'<line x1="6" y1="{y - ROW / 2:.1f}" x2="{width - 6}" '
                       f'y2="{y - ROW / 2:.1f}" stroke="#eaeef2"/>')
        colour = COLOURS.get(e["verdict"], "#57606a")
        tip = html.escape(f"{e['target']} ({e['method']}, {e['blocks']} blocks): "
                          f"{e['verdict']}. {e.get('note') or ''}")
        out.append(f'<g class="row"><title>{tip}</title>')
        hw = e.get("aa_half_width")
        if hw is not None:
            out.append(f'<rect x="{x(1 / (1 + hw)):.1f}" y="{y - 7:.1f}" '
                       f'width="{x(1 + hw) - x(1 / (1 + hw)):.1f}" height="14" '
                       f'fill="#8c959f" fill-opacity="0.25"/>')
        for bound in e["region"]:
            if bound:
                out.append(f'<line x1="{x(bound):.1f}" y1="{y - 8:.1f}" x2="{x(bound):.1f}" '
                           f'y2="{y + 8:.1f}" stroke="#0969da" stroke-width="2" '
                           f'stroke-dasharray="3,2"/>')
        if e["ci_low"] and e["ci_high"]:
            out.append(f'<line x1="{x(e["ci_low"]):.1f}" y1="{y:.1f}" x2="{x(e["ci_high"]):.1f}" '
                       f'y2="{y:.1f}" stroke="{colour}" stroke-width="3"/>')
        if e["ratio"]:
            out.append(f'<circle cx="{x(e["ratio"]):.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>')
        figures = (f'{e["ratio"]:.2f}x [{e["ci_low"]:.2f}, {e["ci_high"]:.2f}]'
                   if e["ci_low"] and e["ci_high"] else "no interval")
        out.append(f'<text x="{LABEL_W - 6}" y="{y + 4:.1f}" text-anchor="end">'
                   f'{html.escape(_label(e))}</text>'
                   f'<text x="{LABEL_W + PLOT_W + 8}" y="{y + 4:.1f}" fill="{colour}">'
                   f'{figures} {html.escape(_bound(e))} {e["verdict"]}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _bound(e):
    lo, hi = e["region"]
    return (f"<= {hi:g}" if lo is None else f">= {lo:g}" if hi is None
            else f"in [{lo:.2f}, {hi:.2f}]")


# -------------------------------------------------------------------------------- waterfall
BAR_W, GAP, ML, MT, MB, H = 46, 18, 56, 30, 72, 270
FRAMEWORK, PROJECT, FLOOR_FILL = "#54aeff", "#fb8f44", "#8c959f"


def waterfall_svg(w):
    """One mode's waterfall at one step: the floor's bar, then each rung's added CPU ms/req
    floating on the level below, its interval as a whisker; the project's own rungs in orange."""
    bars = w["bars"]
    base = ladder.PROJECT_BASE.get(w["mode"])
    project = set(w["rungs"][w["rungs"].index(base) + 1:]) if base in w["rungs"] else set()
    cols = [(ladder.FLOOR, 0.0, w["floor"], None, None, FLOOR_FILL, "")]
    for b in bars:   # (name, start, end, whisker low, whisker high, fill, hover text)
        t = cols[-1][2]
        known = b["added_low"] is not None
        cols.append((b["series"], t, t + b["added"], t + b["added_low"] if known else None,
                     t + b["added_high"] if known else None,
                     PROJECT if b["series"] in project else FRAMEWORK,
                     f", {b['added']:+.3f} over {b['base']}"
                     + (f" [{b['added_low']:+.3f}, {b['added_high']:+.3f}]" if known else "")
                     + f", {b['ratio']:.2f}x"))
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
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{H}" '
           f'viewBox="0 0 {width} {H}" class="chart" role="img" aria-label="{e(title)}">',
           f'<text x="{ML}" y="16" class="t">{e(title)}</text>']
    out.append('<path class="grid" d="'
               + "".join(f"M{ML} {y(t):.1f}H{width - 10}" for t in ticks) + '"/>'
               + '<g class="ax" text-anchor="end">'
               + "".join(f'<text x="{ML - 5}" y="{y(t) + 4:.1f}">{t:g}</text>' for t in ticks)
               + "</g>")
    for i, (name, start, end, wl, wh, fill, more) in enumerate(cols):
        x = ML + GAP / 2 + i * (BAR_W + GAP)
        top, bottom = y(max(start, end)), y(min(start, end))
        out.append(f'<g><title>{e(f"{name}: {end:.3f} CPU ms/req{more}")}</title>'
                   f'<rect x="{x:.1f}" y="{top:.1f}" width="{BAR_W}" '
                   f'height="{max(bottom - top, 1):.1f}" fill="{fill}"/>')
        if wl is not None:
            cx = x + BAR_W / 2
            out.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(wl):.1f}" y2="{y(wh):.1f}" '
                       f'stroke="#24292f" stroke-width="1.5"/>')
        label = f"{end:.3f}" if i == 0 else f"{end - start:+.3f}"
        out.append(f'<text x="{x + BAR_W / 2:.1f}" '
                   f'y="{min(top, y(wh) if wh is not None else top) - 4:.1f}" '
                   f'text-anchor="middle" class="lg">{label}</text>')
        lx, ly = x + BAR_W / 2, MT + ph + 12
        out.append(f'<text transform="translate({lx:.1f},{ly}) rotate(-35)" text-anchor="end" '
                   f'class="ax">{e(name)}</text></g>')
        if i + 1 < len(cols):   # the connector to the next bar's start
            out.append(f'<line x1="{x + BAR_W:.1f}" x2="{x + BAR_W + GAP:.1f}" '
                       f'y1="{y(end):.1f}" y2="{y(end):.1f}" stroke="#57606a" '
                       f'stroke-dasharray="2,2"/>')
    out.append(f'<line x1="{ML}" x2="{width - 10}" y1="{y(0):.1f}" y2="{y(0):.1f}" '
               f'stroke="#57606a"/></svg>')
    return "".join(out)
