"""The interval plot that opens the report: one line per target entry with its ratio, interval, target bound and the
A/A band, as a small inline SVG string (log-scaled ratio axis, so 0.8x and 1.25x sit equally far from 1.00)."""
from __future__ import annotations

import math
from xml.sax.saxutils import escape

from harness.analysis.targets import LABELS

COLOURS = {"PASS": "#1a7f37", "FAIL": "#cf222e", "INCONCLUSIVE": "#9a6700"}
ROW, LABEL_W, PLOT_W, TEXT_W, TOP = 20, 330, 300, 270, 54
LEGEND = ("dot: the ratio (geometric mean of the blocks' ratios); bar: its confidence interval; log scale",
          "grey: the A/A band (1.00 +- the A/A pair's half-width at that step); blue dashes: the target's bound")


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


def svg(entries):
    """The plot of the target entries (stats.analyse()["verdicts"], A/A entries left out: their half-width is the
    grey band on every line) -> an <svg> string."""
    rows = [e for e in entries if not e["aa"]]
    lo, hi = _domain(rows)
    width = LABEL_W + PLOT_W + TEXT_W
    height = TOP + ROW * len(rows) + 8

    def x(v):
        v = min(max(v, math.exp(lo)), math.exp(hi))
        return LABEL_W + PLOT_W * (math.log(v) - lo) / (hi - lo)

    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
            f'font-size="11" role="img" aria-label="ratio and confidence interval per target">')
    out = [head] + [f'<text x="6" y="{12 + 13 * k}" fill="#57606a">{escape(t)}</text>' for k, t in enumerate(LEGEND)]
    for tick in (0.5, 0.8, 1.0, 1.25, 2.0):
        if lo <= math.log(tick) <= hi:
            out.append(f'<line x1="{x(tick):.1f}" y1="{TOP - 6}" x2="{x(tick):.1f}" y2="{height - 4}" '
                       f'stroke="{"#57606a" if tick == 1 else "#d0d7de"}" stroke-width="1"/>'
                       f'<text x="{x(tick):.1f}" y="{TOP - 10}" text-anchor="middle">{tick:g}x</text>')
    for i, e in enumerate(rows):
        y = TOP + ROW * i + ROW / 2
        if i and e["target"] != rows[i - 1]["target"]:       # a thin rule between targets
            out.append(f'<line x1="6" y1="{y - ROW / 2:.1f}" x2="{width - 6}" y2="{y - ROW / 2:.1f}" '
                       f'stroke="#eaeef2"/>')
        colour = COLOURS.get(e["verdict"], "#57606a")
        tip = escape(f"{e['target']} ({e['method']}, {e['blocks']} blocks): {e['verdict']}. {e.get('note') or ''}")
        out.append(f'<g class="row"><title>{tip}</title>')
        hw = e.get("aa_half_width")
        if hw is not None:
            out.append(f'<rect x="{x(1 / (1 + hw)):.1f}" y="{y - 7:.1f}" width="{x(1 + hw) - x(1 / (1 + hw)):.1f}" '
                       f'height="14" fill="#8c959f" fill-opacity="0.25"/>')
        for bound in e["region"]:
            if bound:
                out.append(f'<line x1="{x(bound):.1f}" y1="{y - 8:.1f}" x2="{x(bound):.1f}" y2="{y + 8:.1f}" '
                           f'stroke="#0969da" stroke-width="2" stroke-dasharray="3,2"/>')
        if e["ci_low"] and e["ci_high"]:
            out.append(f'<line x1="{x(e["ci_low"]):.1f}" y1="{y:.1f}" x2="{x(e["ci_high"]):.1f}" y2="{y:.1f}" '
                       f'stroke="{colour}" stroke-width="3"/>')
        if e["ratio"]:
            out.append(f'<circle cx="{x(e["ratio"]):.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>')
        figures = (f'{e["ratio"]:.2f}x [{e["ci_low"]:.2f}, {e["ci_high"]:.2f}]' if e["ci_low"] and e["ci_high"]
                   else "no interval")
        out.append(f'<text x="{LABEL_W - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(_label(e))}</text>'
                   f'<text x="{LABEL_W + PLOT_W + 8}" y="{y + 4:.1f}" fill="{colour}">'
                   f'{figures} {escape(_bound(e))} {e["verdict"]}</text></g>')
    out.append("</svg>")
    return "".join(out)


def _bound(e):
    lo, hi = e["region"]
    return f"<= {hi:g}" if lo is None else f">= {lo:g}" if hi is None else f"in [{lo:.2f}, {hi:.2f}]"
