"""What the report shows of the floor and the ladder (ladder.py): the "Over the floor" table for
README, each series' cost as a multiple of the floor's, a waterfall per mode and the project's own
share with its verdict. A sequential run gets point ratios from its rows (one measurement each)."""
from __future__ import annotations

import dataclasses

from harness.analysis import ladder
from harness.analysis.steps import AA_SUFFIX
from harness.report import charts, pages

LABELS = {"cpu_ms_per_req": "CPU ms/req", "p99_ok_ms": "p99 ms"}


# --------------------------------------------------------------------------------------------- data
def from_rows(rows):
    """Point ratios over the floor from a sequential run's ROWS (Vegeta rows at a floor row's
    scenario, parameters and rate): ladder.analyse's over_floor entries without intervals."""
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
                        "rate": float(r["load"]), "metric": metric, "ratio": a / b,
                        "ci_low": None, "ci_high": None, "added": a - b, "added_low": None,
                        "added_high": None, "base_value": b, "value": a, "blocks": 1,
                        "invocations": 1, "method": "one measurement each (sequential design)",
                        "level": None,
                        "full": r["success_pct"] == 100.0 and f["success_pct"] == 100.0})
    return {"over_floor": out, "waterfall": [], "project_share": []} if out else {}


def of_run(verdicts, rows):
    """A run's ladder data: verdicts.json's (an interleaved run), else point ratios from ROWS."""
    return (verdicts or {}).get("ladder") or from_rows(rows)


@dataclasses.dataclass(frozen=True)
class Texts:
    """The floor's and ladder's sections of a run: its data (summary.json's `ladder`), summary.md's
    lines, report.html's section; empty for a run without a floor."""
    data: dict
    md: list
    html: str

    @classmethod
    def of(cls, verdicts, rows):
        data = of_run(verdicts, rows)
        return cls(data, md_lines(data), html_section(data))


def models(entries):
    """The modes as shipped among the entries' series (no rung, floor, A/A), in ladder order."""
    names = {e["series"] for e in entries}
    return ladder.series_order(s for s in names
                               if not s.startswith("ladder-") and not s.endswith(AA_SUFFIX)
                               and s not in (ladder.FLOOR, ladder.BARE))


# --------------------------------------------------------------------------------------------- text
def _ms(x, lo=None, hi=None, sign=False):
    if x is None:
        return "n/a"
    s = f"{x:+.3f}" if sign else f"{x:.3f}"
    return s + (f" [{lo:+.3f}, {hi:+.3f}]" if lo is not None and hi is not None else "")


def _ratio(e):
    if e is None or e.get("ratio") is None:
        return "n/a"
    return f"{e['ratio']:.2f}x" + (f" [{e['ci_low']:.2f}, {e['ci_high']:.2f}]"
                                   if e.get("ci_low") else "")


def _p99(x, lo=None, hi=None):
    if x is None:
        return "n/a"
    return f"{x:+.1f}" + (f" [{lo:+.1f}, {hi:+.1f}]" if lo is not None and hi is not None else "")


def _level(data):
    lv = [e["level"] for e in data.get("over_floor", []) + data.get("over_bare", [])
          if e.get("level")]
    return (f"{100 * min(lv):.1f} % intervals" if lv
            else "no intervals: one measurement of each (sequential design)")


def _note(*entries):
    return "" if all(e and e["full"] for e in entries) else " (not served fully)"


def table_rows(data):
    """[(model, step, CPU floor -> model, CPU added, CPU ratio, p99 added, p99 ratio)] of the "Over
    the floor" table: every mode as shipped at every step that measured the floor."""
    by = {(e["series"], e["scenario"], e["rate"], e["metric"]): e
          for e in data.get("over_floor", [])}
    out = []
    steps = list(dict.fromkeys((e["scenario"], e["rate"]) for e in data.get("over_floor", [])))
    for m in models(data.get("over_floor", [])):
        for sc, rate in steps:
            c, p = by.get((m, sc, rate, "cpu_ms_per_req")), by.get((m, sc, rate, "p99_ok_ms"))
            if c is None and p is None:
                continue
            out.append((m + _note(c, p), f"{sc} {rate:,.0f}/s",
                        f"{c['base_value']:.3f} -> {c['value']:.3f}" if c else "n/a",
                        _ms(c["added"], c["added_low"], c["added_high"], sign=True) if c else "n/a",
                        _ratio(c), _p99(p["added"], p["added_low"], p["added_high"])
                        if p else "n/a", _ratio(p)))
    return out


SERIES_HEAD = ("series", "step", "CPU x floor", "CPU ms/req added", "p99 x floor", "blocks")
# a process of its own each series is measured over: its key in the data, its name, what it tells
OWN = (("over_bare", "bare", "The same io and fanout in a Vert.x process of its own, no Quarkus "
        "(the series bare, docs/floor.md)."),
       ("over_vt_native", "vt-native", "The same io, fanout, db and workload on Helidon SE's web "
        "server, a virtual thread per request from the socket, blocking clients, no event loop "
        "(the series vt-native, docs/floor.md): virtual over vt-native is what Quarkus' hand-off "
        "between event loops and carriers costs; vt-native over bare what the threads and Helidon "
        "cost over a bare Vert.x route."))


def bare_head(base="bare"):
    return ("series", "step", f"CPU ms/req, {base} -> series", f"CPU x {base}", "CPU ms/req added",
            f"p99 x {base}", "blocks")


BARE_HEAD = bare_head()


def bare_rows(data, key="over_bare"):
    """[bare_head's cells] for each series measured beside KEY's process (bare, vt-native)."""
    entries = data.get(key, [])
    by = {(e["series"], e["scenario"], e["rate"], e["metric"]): e for e in entries}
    out = []
    for (series, sc, rate) in dict.fromkeys((e["series"], e["scenario"], e["rate"])
                                            for e in entries):
        c, p = by.get((series, sc, rate, "cpu_ms_per_req")), by.get((series, sc, rate, "p99_ok_ms"))
        out.append((series + _note(c, p), f"{sc} {rate:,.0f}/s",
                    f"{c['base_value']:.3f} -> {c['value']:.3f}"
                    if c and c["value"] is not None else "n/a",
                    _ratio(c),
                    _ms(c["added"], c["added_low"], c["added_high"], sign=True) if c else "n/a",
                    _ratio(p), str((c or p)["blocks"])))
    return out


def series_rows(data):
    """[SERIES_HEAD's cells] for every series measured beside the floor, at every step."""
    entries = data.get("over_floor", [])
    by = {(e["series"], e["scenario"], e["rate"], e["metric"]): e for e in entries}
    out = []
    for (series, sc, rate) in dict.fromkeys((e["series"], e["scenario"], e["rate"])
                                            for e in entries):
        c, p = by.get((series, sc, rate, "cpu_ms_per_req")), by.get((series, sc, rate, "p99_ok_ms"))
        out.append((series + _note(c, p), f"{sc} {rate:,.0f}/s", _ratio(c),
                    _ms(c["added"], c["added_low"], c["added_high"], sign=True) if c else "n/a",
                    _ratio(p), str((c or p)["blocks"])))
    return out


def waterfall_text(w):
    """'floor 0.050; + ladder-rest +0.012 [+0.008, +0.016] (1.24x); ...; = reactive 0.110'"""
    parts = [f"floor {w['floor']:.3f}"]
    parts += [f"+ {b['series']} {_ms(b['added'], b['added_low'], b['added_high'], sign=True)} "
              f"({b['ratio']:.2f}x)" for b in w["bars"]]
    return "; ".join(parts) + f"; = {w['mode']} {w['bars'][-1]['value']:.3f} CPU ms/req"


def share_text(s):
    span = (f" [{100 * s['share_low']:.1f}, {100 * s['share_high']:.1f}] %"
            if s["share_low"] is not None else "")
    return f"{100 * s['share']:.1f} %{span}"


def md_lines(data):
    """summary.md's section: the README table, series over the floor, waterfalls, project share."""
    if not data:
        return []
    out = ["## Over the floor", ""]
    entries = data.get("over_floor", [])
    if table_rows(data):
        how = (("mean of the per-block differences", "geometric mean of the per-block ratios")
               if any(e.get("level") for e in entries) else ("one step each", "model / floor"))
        out += ["What each model adds over the floor (the same io work on a plain Vert.x route "
                f"with a bare Vert.x HttpClient, in the same app; docs/floor.md), {_level(data)}: "
                f"CPU per request and p99 of successes, added (model - floor, {how[0]}) and as a "
                f"multiple ({how[1]}). Paste into README with the run's data folder.", "",
                "| model | step | CPU ms/req, floor -> model | CPU ms/req added | CPU x floor | "
                "p99 ms added | p99 x floor |", "|---|---|---|---|---|---|---|"]
        out += ["| " + " | ".join(r) + " |" for r in table_rows(data)] + [""]
    if entries:
        out += ["### Every series over the floor", "", "| " + " | ".join(SERIES_HEAD) + " |",
                "|---|---|---|---|---|---|"]
        out += ["| " + " | ".join(r) + " |" for r in series_rows(data)] + [""]
    for key, base, what in OWN:
        if data.get(key):
            out += [f"### Every series over {base}", "", what, "",
                    "| " + " | ".join(bare_head(base)) + " |", "|---|---|---|---|---|---|---|"]
            out += ["| " + " | ".join(r) + " |" for r in bare_rows(data, key)] + [""]
    if data.get("waterfall"):
        out += ["### The ladder: CPU ms/req added rung by rung", ""]
        out += [f"- {w['mode']}, {w['scenario']} {w['rate']:,.0f}/s: {waterfall_text(w)}"
                for w in data["waterfall"]]
        out.append("")
    if data.get("project_share"):
        out += ["### The project's own share of each mode's CPU per request", "",
                "The rungs above the base (docs/floor.md) are the project's own code; target <= "
                f"{100 * ladder.PROJECT_SHARE_MAX:.0f} %.", "",
                "| mode | step | above | share [interval] | CPU ms/req added | blocks | verdict |",
                "|---|---|---|---|---|---|---|"]
        out += [f"| {s['mode']} | {s['scenario']} {s['rate']:,.0f}/s | {s['base']} | "
                f"{share_text(s)} | {_ms(s['added'], s['added_low'], s['added_high'], sign=True)} "
                f"| {s['blocks']} | {s['verdict']}"
                + (f" ({s['note']})" if s["note"] else "") + " |" for s in data["project_share"]]
        out.append("")
    return out


# ---------------------------------------------------------------------------------------------- SVG
def html_section(data):
    """report.html's section: md_lines' tables and the waterfalls (templates/ladder.html.j2)."""
    if not data:
        return ""
    return pages.render(
        "ladder.html.j2", level=_level(data), models=table_rows(data),
        models_head=("model", "step", "CPU ms/req, floor -> model", "CPU ms/req added",
                     "CPU x floor", "p99 ms added", "p99 x floor"),
        series=series_rows(data) if data.get("over_floor") else [], series_head=SERIES_HEAD,
        own=[(f"Every series over {base}", what, bare_head(base), bare_rows(data, key))
             for key, base, what in OWN if data.get(key)],
        waterfalls=[charts.waterfall_svg(w) for w in data.get("waterfall") or []],
        share_max=f"{100 * ladder.PROJECT_SHARE_MAX:.0f}",
        shares_head=("mode", "step", "above", "share [interval]", "CPU ms/req added", "blocks",
                     "verdict"),
        shares=[(s["mode"], f"{s['scenario']} {s['rate']:,.0f}/s", s["base"], share_text(s),
                 _ms(s["added"], s["added_low"], s["added_high"], sign=True), s["blocks"],
                 s["verdict"] + (f" ({s['note']})" if s["note"] else ""))
                for s in data.get("project_share") or []])
