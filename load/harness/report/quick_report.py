"""The quick run's pages: summary.json (the run as measured, its findings), summary.md and
report.html, each opening with at most eight plain lines (what was compared, at which load, what
was decided and what not), then the tables and the method; the console output ends with it too."""
from __future__ import annotations

import json
import os
import statistics

from harness.analysis import quick
from harness.analysis.quick import CEIL_DELAY_MS, WAIT_DELAY_MS, WAIT_LEVELS, findings
from harness.infra.procs import log
from harness.report import pages
from harness.report.charts import mode_color, svg_chart

OPENING_MAX = 8


def compared(run):
    f = run.facts
    low, high = run.rates
    return (f"Compared {', '.join(run.series())}, one Quarkus {f.get('quarkus') or '?'} app each "
            f"on {f.get('cores', '?')} cores (Java {f.get('app_java') or '?'}): io with one "
            f"{CEIL_DELAY_MS} ms call at {low:,} and {high:,} req/s (the worker pool's bound is "
            f"{run.bound:,.0f}), {' and '.join(f'{x:,}' for x in WAIT_LEVELS)} requests waiting, "
            "and what a thread costs (JMH).")


def opening(run):
    """At most OPENING_MAX lines: a title, what was compared, each decided finding, what was not."""
    done = [f for f in findings(run) if f.decided]
    undecided = [f.topic for f in findings(run) if not f.decided]
    head = ["# Quick run: what three minutes decided on this machine", compared(run)]
    room = OPENING_MAX - len(head) - 1
    lines = [decided(f.text) for f in done[:room - 1]]
    if len(done) >= room:   # the last line's room: the rest in one line
        lines.append(decided(" ".join(f.text for f in done[room - 1:])))
    if not done:
        lines = ["Nothing was decided in this run: "
                 "every effect stayed inside its noise (see below)."]
    lines.append(quick.not_decided_line([*undecided, "cpu"]))
    return head + lines


def decided(text):
    return "Decided: " + text[:1].lower() + text[1:]


def _f(x, digits=0):
    return "-" if x is None else f"{x:,.{digits}f}"


def markdown(run):
    fs = findings(run)
    top, over = quick.jit_note(run)
    out = [*opening(run), "", "## What was decided", ""]
    out += [f"- {f.text}" for f in fs if f.decided] or ["- nothing"]
    out += ["", "## What was not decided", ""]
    out += [f"- {f.text}" for f in fs if not f.decided] + [f"- {quick.not_decided_line()}"]
    out += ["", f"## The ceiling: io with one {CEIL_DELAY_MS} ms call", "",
            "| series | req/s | repetition | answered | p50 ms | p99 ms | CPU ms/req | threads "
            "| RSS MiB | JIT % of a core |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(run.readings, key=lambda r: (r.series, r.rate, r.rep)):
        out.append(f"| {r.series} | {r.rate:,.0f} | {r.rep} | {100 * r.ok_rate:.1f} % | "
                   f"{_f(r.p50_ms)} | {_f(r.p99_ms)} | {r.cpu_ms:.3f} | {r.threads} | "
                   f"{r.rss_mib:.0f} | {r.jit_pct:.0f} |")
    out += ["", "CPU per request here is that of C1-compiled code (the apps run without C2, see "
            "the end), in apps loaded one at a time for 3 s: it does not answer which mode costs "
            "less CPU; the comparison's verdicts do.", "",
            f"## Requests waiting: io with one {WAIT_DELAY_MS / 1000:g} s call, every app at once",
            "", "| series | asked to hold | held (the app's gauge) | answered | OS threads "
            "| heap after a full GC MiB | RSS MiB | JIT % of a core |",
            "|---|---|---|---|---|---|---|---|"]
    for h in sorted(run.held, key=lambda h: (h.series, h.level)):
        out.append(f"| {h.series} | {h.level:,} | {_f(h.in_flight)} | {100 * h.ok_rate:.1f} % | "
                   f"{_f(h.threads)} | {_f(h.heap_mib, 1)} | {_f(h.rss_mib)} | {h.jit_pct:.0f} |")
    if run.thread_facts:
        out += ["", "## What a thread costs (JMH)", "",
                "| | platform | virtual | platform / virtual | the write-ups | decided |",
                "|---|---|---|---|---|---|"]
        for t in run.thread_facts:
            out.append(f"| {t['name']} ({t['unit']}) | {t['platform']:,.3g} "
                       f"[{t['platform_low']:,.3g}, {t['platform_high']:,.3g}] | "
                       f"{t['virtual']:,.3g} [{t['virtual_low']:,.3g}, {t['virtual_high']:,.3g}] | "
                       f"{t['ratio']:,.3g}x [{t['ratio_low']:,.3g}, {t['ratio_high']:,.3g}]"
                       f" | {t['stated']} | {'yes' if t['decided'] else 'no'} |")
    f = run.facts
    out += ["", "## How this was measured", "",
            f"`{f.get('command')}`, started {f.get('started')}, {f.get('took_s')} s in all, seed "
            f"{f.get('seed')}. Machine: {f.get('cpu')}, {f.get('cores')} cores, {f.get('os')}; "
            f"Java {f.get('app_java')} ({f.get('jdk')}), Quarkus {f.get('quarkus')}; the apps' JVM "
            f"options `{f.get('java_opts')}` (C1 only: with C2 three apps on two cores still "
            "compiled after a minute). Thread costs first, with nothing else running (JMH: forks, "
            "warm-up, its own intervals). Then the database, the delay service and one app per "
            f"series, all at once; warmed for {run.warm.get('seconds')} s until no app's JIT used "
            f"more than {quick.JIT_MAX_PCT:g} % of a core (the last round: "
            f"{run.warm.get('jit_pct')} %). The ceiling: Vegeta at a fixed rate, "
            f"{len({r.rep for r in run.readings})} repetitions of every series and rate in a "
            "random order. A series kept up when every repetition answered at least "
            f"{100 * quick.KEPT_OK:g} % with a p99 under {quick.SLOWER:g}x its p99 below the "
            f"bound, fell behind when every one answered under {100 * quick.BEHIND_OK:g} % or took "
            "longer than that; the ceiling is decided only when the worker pool fell behind and "
            "every other series kept up in every repetition. Requests waiting: every app held the "
            "level at once and was read once, after a full GC (jcmd GC.run), while they waited. "
            f"The JIT's share of a measured step was at most {top:.0f} % of a core"
            + (f"; over {quick.JIT_MAX_PCT:g} %: {', '.join(over)}" if over else "") + "."]
    return "\n".join(out) + "\n"


def charts(run):
    names = run.series()
    out = []
    for key, title, unit, scale in (("p99_ms", "p99 of successes", "ms", 1),
                                    ("ok_rate", "answered", "%", 100)):
        series = []
        for x in names:
            pts = []
            for rate in run.rates:
                vals = [scale * getattr(r, key) for r in quick.of(run, x, rate)
                        if getattr(r, key) is not None]
                if vals:
                    v = statistics.median(vals)
                    pts.append((rate, v, False, f"{x} at {rate:,} req/s: {title} {v:,.3g} "
                                f"(median of {len(vals)})"))
            series.append({"name": x, "color": mode_color(x, names), "points": pts})
        out.append(svg_chart(f"{title} against the rate", f"io, one {CEIL_DELAY_MS} ms call; "
                             f"the worker pool's bound {run.bound:,.0f} req/s", series, "req/s",
                             unit, logy=False, w=420, h=300))
    held = list(dict.fromkeys(h.series for h in run.held))
    for key, title, unit in (("threads", "OS threads", "threads"),
                             ("heap_mib", "heap after a full GC", "MiB")):
        series = [{"name": x, "color": mode_color(x, held),
                   "points": [(h.level, getattr(h, key), False,
                               f"{x}: {h.in_flight} held, {title} {getattr(h, key)}")
                              for h in run.held if h.series == x]} for x in held]
        out.append(svg_chart(f"{title} against requests waiting",
                             f"one {WAIT_DELAY_MS / 1000:g} s call each",
                             series, "requests asked to wait", unit, logy=False, w=420, h=300))
    return out


def publish(run, out):
    """OUT/summary.json, summary.md, report.html; the opening on stdout -> 0."""
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"design": "quick", **run.as_dict()}, f, indent=1)
    md = markdown(run)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(md)
    head = opening(run)
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(pages.render("quick.html.j2", title=head[0].lstrip("# "), lines=head[1:],
                             charts=charts(run), md=md.split("\n", len(head))[-1]))
    log(f"quick run: {out}/summary.md, report.html")
    print("\n".join(head))
    return 0
