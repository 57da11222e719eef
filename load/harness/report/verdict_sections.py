"""What the report shows of a run's verdicts (verdicts.json, from verdict_report.write): the
`verdicts` of summary.json (model.VerdictEntry's fields), the opening of summary.md and report.html
(interval plot, plain-language summary, a table row per target and step, named by its metric)."""
from __future__ import annotations

import dataclasses
import json
import os

from harness.analysis.model import VERDICT_KEYS, TrialRecord, verdict_label
from harness.analysis.steps import read_json
from harness.analysis.targets import LABELS
from harness.analysis.trials import JIT_QUIET_PCT, SETTLE_WITHIN
from harness.drivers import unit
from harness.report import charts, pages, verdict_summary

VERDICTS = "verdicts.json"
TRIALS = "trials.jsonl"
KEYS = VERDICT_KEYS   # summary.json's keys of a verdict entry, in order


@dataclasses.dataclass(frozen=True)
class Texts:
    """The verdicts' sections, in every form the pages show them; empty for a run without."""
    opening: list       # the plain lines both pages open with (verdict_summary.opening)
    md: list            # summary.md's "Verdicts" section (md_lines)
    html: str           # report.html's (html_section)
    design: str         # the design in words (design_text)
    json_head: str      # the start of summary.json (json_head)

    @classmethod
    def of(cls, data):
        """The texts of a run's verdicts DATA (load), None for a sequential run."""
        if not data:
            return cls([], [], "", "", "")
        said = verdict_summary.summary(data)
        return cls(verdict_summary.opening(data), md_lines(data, said), html_section(data, said),
                   design_text(data["design"]), json_head(data))


def load(run, published=None):
    """verdicts.json of RUN, else summary.json's verdicts (a published result archives the file;
    PUBLISHED: that summary.json, when read already), or None (a sequential run has none)."""
    data = read_json(os.path.join(run, VERDICTS))
    if data is None:
        if published is None:
            published = read_json(os.path.join(run, "summary.json"), {})
        data = ({k: published[k] for k in ("verdicts", "design", "design_broken",
                                           "cannot_decide", "skipped", "ladder") if k in published}
                if "verdicts" in published else None)
    return data


def records_of(run):
    """The trial records RUN's trials.jsonl holds (verdict_report.write wrote them)."""
    return TrialRecord.read_lines(os.path.join(run, TRIALS))


def summary_json(data):
    """summary.json's keys from verdicts.json DATA: verdicts, design, design_broken, skipped."""
    if not data:
        return {}
    return {"verdicts": [{k: e.get(k) for k in KEYS} for e in data["verdicts"]],
            "design": data["design"], "design_broken": data["design_broken"],
            "skipped": data["skipped"],
            **({"cannot_decide": data["cannot_decide"]} if data.get("cannot_decide") else {})}


def json_head(data):
    """The start of summary.json from a run's verdicts DATA (load): its verdict keys, one verdict a
    line; '' if sequential (None)."""
    head = summary_json(data)
    return "".join(f'"{k}": ' + ("[\n" + ",\n".join(json.dumps(e) for e in v) + "\n]"
                                 if k == "verdicts" else json.dumps(v)) + ",\n"
                   for k, v in head.items())


def ci_text(e):
    if e["ci_low"] is None:
        return "no interval"
    return f"{e['ratio']:.3f}x [{e['ci_low']:.3f}, {e['ci_high']:.3f}]"


def _hw(e):
    return "" if e.get("aa_half_width") is None else f"+-{100 * e['aa_half_width']:.1f} %"


def _unsettled(e):
    """A warm-up log entry that never settled, and why (its change, its busy JIT)."""
    why = ([f"{100 * e['change']:+.0f} %"] if e.get("change") is not None else []) + (
        [f"JIT {e['jit']:.0f} % of a core"] if (e.get("jit") or 0) > JIT_QUIET_PCT else [])
    return f"{e['series']} #{e['invocation']}" + (f" ({', '.join(why)})" if why else "")


def warm_text(d):
    """What the warm-ups needed: warm blocks per invocation, and the series that never settled."""
    log = d.get("warmup") or []
    needed = [e["warm_blocks"] for e in log if e.get("warm_blocks")]
    if not needed:
        return ""
    unsettled = [_unsettled(e) for e in log if e.get("settled") is False]
    jit = any("jit" in e for e in log)     # runs since 2026-12-07 also wait for a quiet JIT
    return (f"; warm blocks until the CPU per request of all series and steps together fell at "
            f"most {100 * SETTLE_WITHIN:.0f} % from one to the next"
            + (f" and no app's JIT used over {JIT_QUIET_PCT:.0f} % of a core" if jit else "")
            + f": {min(needed)}-{max(needed)} per invocation"
            + (f", NEVER SETTLED (flagged): {', '.join(unsettled)}" if unsettled
               else ", every series settled"))


def design_text(d):
    if d.get("pooled"):
        return pooled_text(d)
    steps = ", ".join(f"{sc} {lv:g}{unit(tool)}" for sc, lv, tool in d["steps"])
    what = (f"duet (pairs loaded at the same moment, the step's rate split between them: "
            f"{'; '.join(' + '.join(p) for p in d['pairs'])})" if d["design"] == "duet"
            else "interleaved (one series loaded at a time, a fresh random order per "
                 "step and block)")
    jvm = "; ".join(f"{k}: `{v}`" for k, v in (d.get("jvm_opts") or {}).items())
    restarts = (f"apps restarted every {d['restart_every']} blocks"
                if d["restart_every"] < d["blocks"] else "one app invocation per series")
    if d.get("allocation"):
        a = d["allocation"]
        then = (f"every {a['restart_every']}" if a["restart_every"]
                else "no more restarts (none fitted the time left)")
        restarts += (f", then {then} from block {a['after_blocks'] + 1} (chosen from the noise "
                     f"of the first {a['after_blocks']}: log-ratio sd {a['between_sd']:.3f} "
                     f"between invocations, {a['within_sd']:.3f} between blocks of one; a restart "
                     f"{a['invocation_s']:.0f} s, a block {a['block_s']:.0f} s"
                     + (f"; {a['left_s'] / 60:.1f} min left" if a.get("left_s") else "") + ")")
    if d.get("warmups"):
        secs = [w[0] for w in d["warmups"]]
        restarts += (f", each start warmed {min(secs)}-{max(secs)} s: ramped, then on while an "
                     f"app's JIT used more than {d.get('warmup_jit_pct')} % of a core, at most "
                     f"{d.get('warmup_max_s')} s")
    if d.get("warm_blocks"):
        settle = ", ".join(f"{x:.2f}x" for x in d.get("settling") or [])
        if warm_text(d):   # a run that warmed until settled (trials.settle)
            restarts += (f", warm blocks after each start, discarded{warm_text(d)}"
                         + (f" (the last one's CPU per request over the next block's: {settle})"
                            if settle else ""))
        else:
            restarts += (f", {d['warm_blocks']} warm block(s) after each start, discarded"
                         + (f" (their CPU per request over the next block's: {settle})"
                            if settle else ""))
    return (f"Design: {what}. Series: {', '.join(d['series'])}. Steps: {steps}. "
            f"{d['blocks']} blocks of {d['trial']} trials (after a {d['ramp_in']} ramp-in), "
            f"{restarts}, seed {d['seed']}, looks at {d['looks'] or 'the end only'}, intervals at "
            f"{100 * d['level']:.1f} %; {d['seconds']} s in all." + speed_text(d)
            + (f" Extra JVM options: {jvm}." if jvm else ""))


def pooled_text(d):
    """The design line of pooled runs (report/pool.py): how many, invocations, each run's line."""
    runs = d["pooled"]
    return (f"Pooled: {len(runs)} runs of the same design taken together, each run's blocks and "
            f"app invocations its own ({d['blocks']} blocks over "
            f"{sum(r['invocations'] for r in runs)} invocations), intervals at "
            f"{100 * d['level']:.1f} % with the standard error over every run's invocations"
            + (f"; commits {', '.join(d['commits'])}" if d.get("commits") else "") + ". "
            + " ".join(f"Run {r['run']}: " + design_text(r) for r in runs))


def speed_text(d):
    """The machine's speed per trial and how CPU per request followed it (analysis/speed.py)."""
    if not d.get("speed_us"):
        return ""
    low, high = d["speed_us"]
    follow = (f"CPU per request followed it with a slope of {d['speed_slope']:.2f} (log on log)"
              if d.get("speed_slope") is not None
              else "CPU per request did not follow it above its noise")
    return (f" The machine's speed, read before every trial: {low:.1f}-{high:.1f} us a yardstick "
            f"unit; {follow}; CPU per request is compared as measured (docs/statistics.md, "
            "\"The machine's speed\").")


def md_lines(data, said):
    """summary.md's opening section; SAID: verdict_summary.summary's lines."""
    if not data:
        return []
    out = ["## Verdicts", ""]
    out += [f"- {x}" for x in said] + [""]
    out += ["| target | step | series | metric | ratio [interval] | A/A band | blocks | "
            "verdict | note |",
            "|---|---|---|---|---|---|---|---|---|"]
    for e in data["verdicts"]:
        out.append(f"| {e['target']} | {e['scenario']} {e['rate']:,.0f} | "
                   f"{' / '.join(e['series'])} | {LABELS[e['metric']]} | {ci_text(e)} | {_hw(e)} | "
                   f"{e['blocks']} | {e['verdict']} | {(e.get('note') or '').replace('|', '/')} |")
    out += ["", "Method: docs/statistics.md in the repository (geometric mean of per-block ratios, "
            "Student's t on the log ratios with invocation-level standard error; Georges et al. "
            "2007, Kalibera and Jones 2013); the design at the end. The table rows below are "
            "medians over the blocks.", ""]
    return out


def html_section(data, said):
    """report.html's opening: the interval plot, SAID (verdict_summary.summary's lines) and the
    table (templates/verdicts.html.j2)."""
    if not data:
        return ""
    rows = [{"label": verdict_label(v), "step": f"{v['scenario']} {v['rate']:,.0f}",
             "ci": ci_text(v), "band": _hw(v), "blocks": v["blocks"], "verdict": v["verdict"],
             "note": v.get("note") or ""} for v in data["verdicts"]]
    return pages.render("verdicts.html.j2", plot=charts.interval_plot(data["verdicts"]),
                        summary=said, rows=rows)
