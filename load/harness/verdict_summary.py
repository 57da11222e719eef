"""The plain-language summary at the top of the report, written from the verdict entries alone: what each model
costs against the other, which targets hold or miss, and where the evidence is not enough."""
from __future__ import annotations

NOUNS = {"cpu_ms_per_req": "CPU per request", "p99_ok_ms": "p99 latency (successes)", "rss_mib": "peak memory (RSS)",
         "ok_rate": "successful requests per second"}


def _pct(r):
    return f"{100 * (r - 1):+.0f} %"


def _where(e):
    return f"{e['scenario']} {e['rate']:,.0f}/s"


def _compare(e):
    """'virtual+socket: CPU per request 3 % above reactive's' or 'no difference the run can see'."""
    a, b = e["series"]
    noun = NOUNS[e["metric"]]
    span = f"(95 % interval {_pct(e['ci_low'])} to {_pct(e['ci_high'])})" if e["level"] >= 0.9495 else \
        f"({100 * e['level']:.1f} % interval {_pct(e['ci_low'])} to {_pct(e['ci_high'])})"
    if e["ci_low"] > 1 or e["ci_high"] < 1:
        return f"{a}'s {noun} is {_pct(e['ratio'])} against {b}'s at {_where(e)} {span}"
    return f"{a} and {b} differ in {noun} by less than this run can see at {_where(e)} {span}"


def summary(result):
    """Short sentences (list of str) from a stats.analyse() result."""
    entries = result["verdicts"]
    out = []
    if result.get("design_broken"):
        out.append("The design is broken in this run: the A/A pair, the same app measured twice, differed by more "
                   "than chance allows (" + result["design_broken"].split(": ", 1)[-1] + "). No target is called "
                   "PASS or FAIL; the figures below are shown for diagnosis only.")
    aa = [e for e in entries if e["aa"] and e["metric"] == "cpu_ms_per_req" and e["aa_half_width"] is not None]
    if aa:
        hw = max(e["aa_half_width"] for e in aa)
        out.append(f"Yardstick: {aa[0]['series'][1]} measured twice in this run agreed with itself within "
                   f"+-{100 * hw:.0f} % on CPU per request at every step; a smaller difference between two models "
                   "is not something this run can show.")
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
            parts.append("misses at " + ", ".join(f"{_where(x)} ({x['ratio']:.2f}x)" for x in by["FAIL"]))
        if by["INCONCLUSIVE"]:
            need = [x["blocks_needed"] for x in by["INCONCLUSIVE"] if x["blocks_needed"]]
            more = f"; about {max(need)} blocks would decide it" if need else ""
            parts.append("is not decided at " + ", ".join(_where(x) for x in by["INCONCLUSIVE"]) + more)
        out.append(f"{name}: " + "; ".join(parts) + ".")
        decisive = by["FAIL"] or [x for x in es if (x["ci_low"] or 0) > 1 or (x["ci_high"] or 2) < 1]
        if decisive:
            worst = max(decisive, key=lambda x: abs(x["ratio"] - 1))
            out.append(f"  In plain terms: {_compare(worst)}.")
    for name, scenario, rate, why in result.get("skipped", []):
        out.append(f"{name}: not judged at {scenario} {rate:,.0f}/s, {why}.")
    return out

