"""The floor and the cost ladder (issue #21, docs/floor.md) as data and arithmetic: the rungs,
each series' cost over the floor's, the waterfall of added cost from the floor to each mode and
the project's share of a mode's CPU per request, each with an interval by the verdicts' method
(stats.pair, stats.interval)."""
from __future__ import annotations

from harness.analysis import stats

FLOOR = "floor"
BARE = "bare"   # the floor's work in a Vert.x process of its own, no Quarkus (docs/floor.md)
# the blocking scenarios on Helidon SE, a virtual thread per request from the socket (#43)
VT_NATIVE = "vt-native"
# Each mode as shipped and its rungs from the floor, one change each (docs/floor.md "The ladder").
# Rungs calling DelayGateway's blocking client use their app's (bench.blocking-client): their
# +socket series runs in an app with the socket client, as virtual+socket does.
LADDERS = {
    "reactive": (FLOOR, "ladder-rest", "ladder-rest-client", "ladder-gateway", "ladder-reactive",
                 "reactive"),
    "virtual": (FLOOR, "ladder-vt", "ladder-vt-rest-client", "ladder-vt-gateway", "ladder-virtual",
                "virtual"),
    "virtual+socket": (FLOOR, "ladder-vt", "ladder-vt-rest-client", "ladder-vt-gateway+socket",
                       "ladder-virtual+socket", "virtual+socket"),
    "worker": (FLOOR, "worker"),      # no worker ladder is built (docs/floor.md)
}
CLIENT_RUNGS = ("ladder-vt-gateway", "ladder-virtual")
# The project's own code on a ladder: every rung above this one (DelayGateway, the mode's code and
# Result, the request gate; for virtual+socket the socket client). Its CPU share: 1 - base/mode.
PROJECT_BASE = {"reactive": "ladder-rest-client", "virtual": "ladder-vt-rest-client",
                "virtual+socket": "ladder-vt-rest-client"}
PROJECT_SHARE_MAX = 0.10
METRICS = ("cpu_ms_per_req", "p99_ok_ms")


def series_order(names):
    """NAMES in ladder order: the floor, each ladder's rungs and mode, then the rest (A/A...)."""
    known = list(dict.fromkeys(s for rungs in LADDERS.values() for s in rungs))
    return sorted(names, key=lambda s: (known.index(s) if s in known else len(known), s))


def compare(records, a, b, scenario, rate, metric, level=0.95, seed=0):
    """A over B at one step for METRIC: the ratio (geometric mean of per-block ratios, interval as a
    verdict's), the added amount (mean of per-block A - B, t interval), both series' means over the
    paired blocks, and whether both served fully. None when no block pairs them."""
    p = stats.pair(records, a, b, scenario, rate, metric)
    if not p.blocks:
        return None
    iv = stats.interval(p.log_ratios, p.invocations, level, seed=seed)
    d = stats.difference(stats.pair(records, a, b, scenario, rate, metric,
                                    combine=lambda x, y: x - y).log_ratios, p.invocations, level)
    mean_b = _mean(records, b, scenario, rate, metric, a)
    return {"series": a, "base": b, "scenario": scenario, "rate": rate, "metric": metric,
            "ratio": iv.ratio, "ci_low": _num(iv.low), "ci_high": _num(iv.high),
            "added": d.mean, "added_low": d.low, "added_high": d.high, "base_value": mean_b,
            "value": None if mean_b is None else mean_b + d.mean, "blocks": p.blocks,
            "invocations": iv.invocations, "method": iv.method, "level": level,
            "full": all(stats.served_fully(records, s, scenario, rate) for s in (a, b))}


def _mean(records, series, scenario, rate, metric, other):
    """SERIES' mean METRIC over the blocks where it pairs with OTHER."""
    p = stats.pair(records, series, other, scenario, rate, metric, combine=lambda x, _: x)
    return sum(p.log_ratios) / len(p.log_ratios) if p.log_ratios else None


def _num(x):
    return x if x is not None and 0 < x < float("inf") else None


def _present(records, scenario, rate):
    return {r["series"] for r in records
            if r["scenario"] == scenario and float(r["rate"]) == float(rate)}


def over_floor(records, level=0.95, seed=0, base=FLOOR):
    """Every series' CPU per request and p99 (successes) over the floor's (or BASE's: over_bare), at
    every step that measured it."""
    out = []
    for scenario, rate in stats.steps_of(records):
        present = _present(records, scenario, rate)
        if base not in present:
            continue
        for s in series_order(present - {base}):
            out += [e for e in (compare(records, s, base, scenario, rate, m, level, seed)
                                for m in METRICS) if e]
    return out


def over_bare(records, level=0.95, seed=0, base=BARE):
    """Every series over the bare process (the floor too: what the app around a plain route
    costs), or over vt-native (BASE): what Quarkus' hand-off between event loops and carriers
    adds to virtual threads."""
    return over_floor(records, level, seed, base)


def waterfall(records, level=0.95, seed=0):
    """Per ladder (mode) and step: the floor's CPU per request, then one bar per measured rung: what
    it adds to the measured rung below (compare()), up to the mode as shipped. Only ladders whose
    floor and mode ran."""
    out = []
    for mode, rungs in LADDERS.items():
        for scenario, rate in stats.steps_of(records):
            present = _present(records, scenario, rate)
            ran = [r for r in rungs if r in present]
            if FLOOR not in ran or mode not in ran:
                continue
            bars = [compare(records, hi, lo, scenario, rate, "cpu_ms_per_req", level, seed)
                    for lo, hi in zip(ran, ran[1:])]
            if all(bars):
                out.append({"mode": mode, "scenario": scenario, "rate": rate,
                            "floor": bars[0]["base_value"], "rungs": ran, "bars": bars})
    return out


def project_share(records, level=0.95, seed=0, design_broken=None):
    """Per mode with a project base and step: the share of the mode's CPU per request its project
    rungs cost (1 - base/mode, with interval), the CPU ms they add, and the verdict against
    PROJECT_SHARE_MAX (as targets.py's: PASS, FAIL, INCONCLUSIVE; not judged unless both served)."""
    out = []
    for mode, base in PROJECT_BASE.items():
        for scenario, rate in stats.steps_of(records):
            if not {mode, base} <= _present(records, scenario, rate):
                continue
            c = compare(records, base, mode, scenario, rate, "cpu_ms_per_req", level, seed)
            if c is None:
                continue
            p = stats.pair(records, base, mode, scenario, rate, "cpu_ms_per_req")
            iv = stats.interval(p.log_ratios, p.invocations, level, seed=seed)
            verdict = stats.decide(iv, (1 - PROJECT_SHARE_MAX, None)) if c["full"] else "not judged"
            note = "" if c["full"] else "a series did not serve fully"
            if design_broken and verdict in (stats.PASS, stats.FAIL):
                verdict, note = (stats.INCONCLUSIVE,
                                 f"design broken, nothing is called (would be {verdict})")
            out.append({"mode": mode, "base": base, "scenario": scenario, "rate": rate,
                        "share": 1 - c["ratio"],
                        "share_low": None if c["ci_high"] is None else 1 - c["ci_high"],
                        "share_high": None if c["ci_low"] is None else 1 - c["ci_low"],
                        "added": -c["added"],
                        "added_low": None if c["added_high"] is None else -c["added_high"],
                        "added_high": None if c["added_low"] is None else -c["added_low"],
                        "mode_value": c["base_value"], "max": PROJECT_SHARE_MAX, "verdict": verdict,
                        "blocks": c["blocks"], "level": level, "note": note})
    return out


def analyse(records, level=0.95, seed=0, design_broken=None):
    """The ladder part of a run's verdicts.json: {"over_floor", "over_bare", "over_vt_native",
    "waterfall", "project_share"}; {} without a floor, bare, vt-native or project base series."""
    if not any(r["series"] in (FLOOR, BARE, VT_NATIVE) or r["series"] in PROJECT_BASE.values()
               for r in records):
        return {}
    return {"over_floor": over_floor(records, level, seed),
            "over_bare": over_bare(records, level, seed),
            "over_vt_native": over_bare(records, level, seed, VT_NATIVE),
            "waterfall": waterfall(records, level, seed),
            "project_share": project_share(records, level, seed, design_broken)}
