"""The coldstart run's pages: summary.json, summary.md and report.html, each opening with at most
eight plain lines (what ran, settling times, the AOT cache's effect, what could not run), then the
tables and charts, then how it was measured."""
from __future__ import annotations

import json
import math
import os
import statistics

from scipy import stats

from harness.analysis.coldstart import LATE_MS, SETTLE_X, WAY_NAMES, rows
from harness.infra.procs import log
from harness.report import pages
from harness.report.charts import mode_color, svg_chart

SHORT = {"jvm": "on the plain JVM", "warm": "ready once warm", "aot": "with the AOT cache",
         "native": "as a native executable"}
START_COLORS = ("#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6c4f9c", "#00798c", "#8c564b")


def settle_text(r, seconds):
    if r.settled == 0:
        return f"did not settle within {seconds} s in any of {r.starts} starts"
    text = f"settled in {r.settle_s.text()} s"
    return text + ("" if r.settled == r.starts else f" ({r.starts - r.settled} of {r.starts} "
                                                     f"starts did not within {seconds} s)")


def sooner(run, series, way):
    """How much sooner SERIES settled from the process's start when started WAY than on the plain
    JVM: a Welch 95 % interval over the starts (one never settled counts to the run's end: a bound)
    -> a phrase, or '' without two starts of each."""
    warm = run.warm_of(series).p99_ms
    jvm, other = ([s.from_start_s(warm, run.seconds) for s in run.of(series, w)]
                  for w in ("jvm", way))
    if len(jvm) < 2 or len(other) < 2:
        return ""
    d = statistics.fmean(jvm) - statistics.fmean(other)
    va, vb = statistics.variance(jvm) / len(jvm), statistics.variance(other) / len(other)
    if va + vb == 0:
        return f"{series} {d:+.0f} s"
    df = (va + vb) ** 2 / (va ** 2 / (len(jvm) - 1) + vb ** 2 / (len(other) - 1))
    half = stats.t.ppf(0.975, df) * math.sqrt(va + vb)
    lo, hi = d - half, d + half
    word = "sooner" if lo > 0 else "later" if hi < 0 else "not resolved"
    return f"{series} {d:+.0f} s [{lo:+.0f}, {hi:+.0f}] ({word})"


def opening(run):
    """At most eight lines: a title, what was run, one line per way of starting, the AOT cache's
    effect, what did not run."""
    f, rs = run.facts, rows(run)
    ways = list(dict.fromkeys(r.way for r in rs))
    series = list(dict.fromkeys(r.series for r in rs))
    ceil = [w.ceiling for w in run.warm if w.ceiling]
    why = f"half the lowest warm ceiling, {min(ceil):,} req/s" if ceil else "set by --rates"
    n = max((r.starts for r in rs), default=0)
    late = {w: [r.late.mean for r in rs if r.way == w] for w in ways}
    title = "# The first minute under load: " + ", ".join(
        f"{_span(v)}{' requests answered late per start' if i == 0 else ''} {SHORT[w]}"
        for i, (w, v) in enumerate(late.items())) + "".join(
        f"; {r.series} {SHORT[r.way]} did not settle within {run.seconds} s"
        for r in rs if r.settled == 0)
    lines = [title,
             f"Started {', '.join(series)} fresh {n} times each way "
             f"({', '.join(WAY_NAMES[w] for w in ways)}), one Quarkus {f.get('quarkus') or '?'} "
             f"app at a time on {f.get('cores', '?')} cores, and loaded each from its first ready "
             f"second with {run.rate:,} req/s of io for {run.seconds} s ({why}).",
             f"Settled: the first second after which every second's p99 stays within {SETTLE_X:g}x "
             "of the warm p99; means over the starts with 95 % intervals."]
    for w in ways:
        lines.append(f"{WAY_NAMES[w][0].upper()}{WAY_NAMES[w][1:]}: " + "; ".join(
            f"{r.series} {settle_text(r, run.seconds)}, {r.late.mean:,.0f} answers over "
            f"{LATE_MS / 1000:g} s and {r.refused.mean:,.0f} refused per start"
            for r in rs if r.way == w) + ".")
    gains = {w: [g for g in (sooner(run, x, w) for x in series) if g] for w in ways if w != "jvm"}
    if any(gains.values()):
        lines.append("Against the plain JVM, seconds sooner settled from the process's start: "
                     + "; ".join(f"{WAY_NAMES[w].removeprefix('the ')}: {', '.join(g)}"
                                 for w, g in gains.items() if g) + ".")
    lines += [f"Not run: {WAY_NAMES[w]} ({why_not})." for w, why_not in run.missing.items()]
    return lines[:8]


def _span(values):
    lo, hi = min(values), max(values)
    return f"{lo:,.0f}" if round(lo) == round(hi) else f"{lo:,.0f}-{hi:,.0f}"


def _f(x, digits=0):
    return "-" if x is None else f"{x:,.{digits}f}"


def markdown(run):
    head = opening(run)
    rs = rows(run)
    out = [head[0], "", *head[1:], "", "## Per series and way of starting", "",
           "| series | way | starts | settled | seconds to settle after ready | from the start | "
           "answers over 1 s | refused | CPU until settled (s) | ready after (ms) | "
           "warm p99 (ms) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rs:
        out.append(f"| {r.series} | {r.way} | {r.starts} | {r.settled} | "
                   f"{r.settle_s.text() if r.settle_s else f'> {run.seconds}'} | "
                   f"{r.from_start_s.text('{:,.1f}')} | {r.late.text()} | {r.refused.text()} | "
                   f"{r.cpu_s.text('{:,.1f}')} | {r.ready_ms.text()} | {r.warm_p99_ms:,.1f} |")
    out += ["", "## The warm figures", "",
            "| series | warm ceiling (req/s) | warm p99 at the run's rate (ms) | "
            "JIT at the end of the warm-up (% of a core) |", "|---|---|---|---|"]
    out += [f"| {w.series} | {_f(w.ceiling)} | {w.p99_ms:,.1f} | {w.jit_pct:.0f} |"
            for w in run.warm]
    out += ["", "## Every start", "",
            "| series | way | start | ready (ms) | CPU to ready (ms) | settled at (s) | late | "
            "refused | worst second's p99 (ms) | JIT in the first 10 s (% of a core) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for s in run.starts:
        t = s.settle_s(run.warm_of(s.series).p99_ms)
        worst = max((x.p99_ms or 0 for x in s.seconds), default=0)
        jit = sum(x.jit_ms for x in s.seconds[:10]) / 10 / max(1, min(10, len(s.seconds)))
        out.append(f"| {s.series} | {s.way} | {s.n} | {s.ready_ms:,} | {s.cpu_ready_ms:,.0f} | "
                   f"{'-' if t is None else t} | {s.late:,} | {s.refused:,} | {worst:,.0f} | "
                   f"{jit:.0f} |")
    f = run.facts
    out += ["", "## How this was measured", "",
            f"- Machine: {f.get('cores', '?')} CPUs ({f.get('cpu', '?')}), "
            f"{f.get('memory_mib', 0) / 1024:.1f} GiB; {f.get('jdk', '?')}; JVM options "
            f"{f.get('java_opts') or 'none'}; command `{f.get('command', '')}`; seed "
            f"{f.get('seed')}; {f.get('took_s', '?')} s in all.",
            "- The warm figures: one app per series, warmed together until no JIT used more than "
            "10 % of a core, then each alone on a rising staircase of io (1.4x per stair) until it "
            "answered less than 99 %, sent less than 95 % of the rate or its p99 passed 1.5x the "
            "first stair's; the run's rate is half the lowest ceiling. The warm p99 is the mean of "
            "two trials at that rate.",
            "- The AOT cache: one JVM with -XX:AOTCacheOutput served every series' io at the run's "
            "rate, then exited and wrote the cache (JDK 25: classes loaded and linked, method "
            "profiles); each aot start runs with -XX:AOTCache and -XX:AOTMode=on (it fails rather "
            "than run without the cache).",
            "- Each start: a fresh process, the database and delay service already running; Vegeta "
            f"at the rate from the first ready answer (polled every 0.2 s) for {run.seconds} s, a "
            "request's timeout 30 s; requests counted in the second they were sent; the app's CPU "
            "and its JIT threads' read every second. The starts of every series and way run in a "
            "random order in each round.",
            "- A start that never settled counts its CPU to the end of the run, and in the AOT "
            "comparison its settling time as the run's length (a bound, not a measurement).", ""]
    return "\n".join(out)


def charts(run):
    """[(file name, SVG)]: p99 per second per series and way (a line a start), the app's CPU."""
    out = []
    for series, way in run.groups():
        starts = run.of(series, way)
        warm = run.warm_of(series).p99_ms
        lines = [{"name": f"start {s.n}", "color": START_COLORS[(s.n - 1) % len(START_COLORS)],
                  "points": [(x.t, x.p99_ms, False, f"{series} {way} start {s.n}, second {x.t}: "
                              f"p99 {x.p99_ms} ms, {x.ok}/{x.sent} answered") for x in s.seconds]}
                 for s in starts]
        out.append((f"p99-{series}-{way}.svg", svg_chart(
            f"{series}, {WAY_NAMES[way]}", f"p99 per second at {run.rate:,} req/s of io", lines,
            "seconds after ready", "ms", hlines=[(SETTLE_X * warm, f"{SETTLE_X:g}x warm p99")],
            logy=True, w=460, h=300, xevery=10, dots=False)))
    cpu = [{"name": f"{x} ({w})", "color": mode_color(x, [g[0] for g in run.groups()]),
            "dash": w != "jvm", "points": [(t, statistics.fmean(
                s.seconds[t].cpu_ms / 10 for s in run.of(x, w) if t < len(s.seconds)), False,
                f"{x} {w}, second {t}") for t in range(run.seconds)]} for x, w in run.groups()]
    out.append(("cpu.svg", svg_chart(
        "The app's CPU per second", "mean over the starts", cpu, "seconds after ready",
        "% of a core", logy=False, w=460, h=300, xevery=10, dots=False)))
    return out


def publish(run, out):
    """OUT/summary.json, summary.md, report.html; the opening on stdout -> 0."""
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"design": "coldstart", **run.as_dict()}, f, separators=(",", ":"))
    md = markdown(run)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(md)
    head, figures = opening(run), charts(run)
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(pages.render("quick.html.j2", title=head[0].lstrip("# "), lines=head[1:],
                             charts=[svg for _, svg in figures], md=md.split("\n", len(head))[-1]))
    for name, svg in figures:       # each chart a file too, for a page to show (docs/startup.md)
        with open(os.path.join(out, name), "w") as f:
            f.write(pages.standalone(svg))
    log(f"coldstart run: {out}/summary.md, report.html")
    print("\n".join(head))
    return 0
