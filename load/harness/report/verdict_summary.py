"""The plain-language summary atop the report, from the verdict entries alone: what each model
costs against the other, which targets hold or miss, and where the evidence is not enough."""
from __future__ import annotations

from harness.analysis.targets import LABELS

PHRASES = {   # metric -> (sentence with {a}, {b}, {pct}, {dir}; words for a higher, a lower ratio)
    "cpu_ms_per_req": ("{a} uses {pct} % {dir} CPU per request than {b}", "more", "less"),
    "p99_ok_ms": ("{a}'s p99 latency (successes) is {pct} % {dir} than {b}'s", "higher", "lower"),
    "rss_mib": ("{a}'s peak memory (RSS) is {pct} % {dir} than {b}'s", "higher", "lower"),
    "ok_rate": ("{a} serves {pct} % {dir} successful requests per second than {b}",
                "more", "fewer"),
}


def _pct(r):
    return f"{100 * (r - 1):+.0f} %"


def _where(e):
    return f"{e['scenario']} {e['rate']:,.0f}/s"


def _compare(e):
    """'virtual uses 45 % more CPU per request than reactive at io 2,500/s
    (95 % interval +40 % to +50 %)'."""
    a, b = e["series"]
    text, up, down = PHRASES[e["metric"]]
    span = f"({100 * e['level']:.0f} % interval {_pct(e['ci_low'])} to {_pct(e['ci_high'])})"
    return (text.format(a=a, b=b, pct=f"{abs(100 * (e['ratio'] - 1)):.0f}",
                        dir=up if e["ratio"] > 1 else down) + f" at {_where(e)} {span}")


def _undecided(e):
    if e["ci_low"] is None:
        return "no interval"
    figures = f"{e['ratio']:.2f}x, {e['ci_low']:.2f}-{e['ci_high']:.2f}"
    if e["blocks_needed"]:
        return f"{figures}; about {e['blocks_needed']:,} blocks would decide it"
    return (
        f"{figures}; "
        f"{'more blocks will not decide it' if e['ci_low'] <= 1 <= e['ci_high'] else e['note']}")


def summary(result):
    """Short sentences (list of str) from a stats.analyse() result."""
    entries = result["verdicts"]
    out = []
    if result.get("cannot_decide"):
        out.append("This run cannot decide: " + result["cannot_decide"] + ". Its blocks show how "
                   "one start of each app varies, not how the next start would differ, which is "
                   "the larger part of an interval (docs/statistics.md); so it calls no target "
                   "PASS or FAIL and cannot judge its own design (the A/A pair). Its figures are "
                   "shown; a run with several app invocations per series (the default run, not "
                   "--quick) decides.")
    if result.get("design_broken"):
        out.append("The design is broken in this run: the A/A pair, the same app measured twice, "
                   "differed by more than chance allows ("
                   + result["design_broken"].split(": ", 1)[-1] + "). No target is called PASS or "
                   "FAIL; the figures below are shown for diagnosis only.")
    if entries:
        blocks, invs = max(e["blocks"] for e in entries), max(e["invocations"] for e in entries)
        level = min(e["level"] for e in entries)
        out.append(f"{blocks} blocks over {invs} app invocations per series; every interval "
                   f"below is a {100 * level:.1f} % confidence interval on the ratio of the two "
                   "series named.")
    aa = [e for e in entries
          if e["aa"] and e["metric"] == "cpu_ms_per_req" and e["aa_half_width"] is not None]
    if aa:
        hw = max(e["aa_half_width"] for e in aa)
        out.append(f"Yardstick: the A/A pair ({aa[0]['series'][1]} measured twice in this run) "
                   f"has an interval half-width of at most +-{100 * hw:.0f} % on CPU per request "
                   "at every step; a smaller difference between two models is not something this "
                   "run can show.")
    targets = {}
    for e in entries:
        if not e["aa"]:
            targets.setdefault(e["target"], []).append(e)
    for name, es in targets.items():
        by = {v: [x for x in es if x["verdict"] == v] for v in ("PASS", "FAIL", "INCONCLUSIVE")}
        parts = []
        if by["PASS"]:
            parts.append("holds at " + ", ".join(_where(x) for x in by["PASS"]))
        if by["FAIL"]:
            parts.append("misses at " + ", ".join(f"{_where(x)} ({x['ratio']:.2f}x)"
                                                  for x in by["FAIL"]))
        if by["INCONCLUSIVE"]:
            parts.append("is not decided at " + ", ".join(f"{_where(x)} ({_undecided(x)})"
                                                          for x in by["INCONCLUSIVE"]))
        out.append(f"{name}: " + "; ".join(parts) + ".")
        decisive = by["FAIL"] or [x for x in es
                                  if (x["ci_low"] or 0) > 1 or (x["ci_high"] or 2) < 1]
        if decisive:
            worst = max(decisive, key=lambda x: abs(x["ratio"] - 1))
            out.append(f"  In plain terms: {_compare(worst)}.")
    for name, scenario, rate, why in result.get("skipped", []):
        out.append(f"{name}: not judged at {scenario} {rate:,.0f}/s, {why}.")
    return out



def decided(e):
    """An entry whose interval excludes 1.00: a difference this run shows, whatever its target."""
    return e["ci_low"] is not None and (e["ci_low"] > 1 or e["ci_high"] < 1)


def opening(data, most=7):
    """At most MOST plain lines opening summary.md, report.html and the log's end: what was compared
    at which load, each decided difference (interval in brackets), what was not, and its noise."""
    if not data:
        return []
    d, entries = data["design"], data["verdicts"]
    steps = ", ".join(f"{sc} at {lv:,.0f} req/s" for sc, lv, *_ in d.get("steps") or [])
    invs = max((e["invocations"] for e in entries), default=0)
    out = [f"Compared {', '.join(x for x in d['series'] if not x.endswith('-aa'))}: {steps}; "
           f"{d['blocks']} blocks over {invs} app invocation{'s' if invs != 1 else ''} per series."]
    if data.get("design_broken"):
        return out + ["Nothing is decided: the A/A pair, one app measured twice, differed by more "
                      "than chance allows (" + data["design_broken"].split(": ", 1)[-1] + ")."]
    if data.get("cannot_decide"):
        return out + [f"Nothing is decided: {data['cannot_decide']}; the default run (20 min, "
                      "several app invocations per series) decides."]
    shown = sorted((e for e in entries if not e["aa"] and decided(e)),
                   key=lambda e: -abs(e["ratio"] - 1))
    room = most - len(out) - 1
    out += [f"Decided: {_compare(e)}." for e in shown[:room]]
    if len(shown) > room:
        out[-1] = out[-1][:-1] + f"; and {len(shown) - room} more decided below."
    if not shown:
        out.append("Decided: no difference between the series in this run "
                   "(every interval includes 1.00).")
    rest = [e for e in entries if not e["aa"] and not decided(e)]
    aa = [e["aa_half_width"] for e in entries if e["aa"] and e.get("aa_half_width") is not None]
    band = (f" this run's A/A band, +-{100 * max(aa):.0f} %, is the smallest difference it can show"
            if aa else "")
    if rest:
        names = ", ".join(dict.fromkeys(f"{' / '.join(e['series'])} {LABELS[e['metric']]} at "
                                        f"{_where(e)} ({e['ratio']:.2f}x)" for e in rest[:4]))
        names += f" and {len(rest) - 4} more" if len(rest) > 4 else ""
        out.append(f"Not decided ({len(rest)}): {names};"
                   f"{band or ' more blocks or pooled runs narrow them'}.")
    elif band:
        out.append(f"Everything compared was decided;{band}.")
    return out
