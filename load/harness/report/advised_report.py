"""advise's prediction beside the measurement in a compare run of a workload: what `advise` answered
before the run (machine.json's `advise`, analysis/advice.registered), set beside each workload step
measured at a predicted rate, for summary.md and report.html (templates/advised.html.j2)."""
from __future__ import annotations

import dataclasses
import math

from harness.analysis.advice import (
    CEILING_WITHIN,
    CPU_WITHIN,
    SCENARIO,
    error_at_speed,
    speed_factor,
)
from harness.analysis.steps import fmt
from harness.report import pages


@dataclasses.dataclass(frozen=True)
class Texts:
    """The section in both forms; empty for a run that is not of a workload."""
    md: list
    html: str

    @classmethod
    def of(cls, rows, meta, design=None):
        """ROWS of a run whose machine.json META holds advise's answer; DESIGN: its verdicts'
        design line, whose `speed_us_median` (the yardstick through the run) sets the machine's
        speed beside the calibration's (advice.speed_factor), a diagnostic."""
        advised = (meta or {}).get("advise")
        if not advised:
            return cls([], "")
        speed = speed_factor(advised, [(design or {}).get("speed_us_median")])
        rows_in, failed = rows, bool(advised.get("error"))
        rows = side_by_side(advised, rows, speed)
        head = intro(advised, speed, rows) + (
            [f"CPU per request within {CPU_WITHIN:.0%} of the prediction at "
             f"{sum(r['within'] for r in rows)} of {len(rows)} steps."] if rows else [])
        head += ceilings(advised, rows_in) if not failed else []
        return cls(md_lines(head, rows, failed),
                   pages.render("advised.html.j2", head=head, rows=rows, failed=failed))


def predicted_steps(advised, rows):
    """(row, prediction) for each measured workload step of ROWS at a rate advise predicted."""
    predicted = {(x, float(r["rate"])): p for r in advised.get("rates", [])
                 for x, p in r["modes"].items()}
    for row in rows:
        p = predicted.get((row["mode"], float(row["load"] or 0)))
        if row["scenario"] == SCENARIO and row["load_kind"] == "rate" and p:
            yield row, p


def side_by_side(advised, rows, speed=1.0):
    """Per measured workload step at a predicted rate: series, rate, CPU ms/req predicted with its
    interval and measured, the error (predicted over measured - 1), within the target, the error
    were the prediction scaled by SPEED, the highest rate predicted and what sets it."""
    out = []
    for row, p in predicted_steps(advised, rows):
        got = row.get("cpu_ms_per_req")
        err = p["cpu_ms_per_req"] / got - 1 if got else None
        ceiling = p["max_rate"]
        out.append({"series": row["mode"], "rate": fmt(float(row["load"]), 0),
                    "predicted": f"{p['cpu_ms_per_req']:.3f} [{p['cpu_ms_per_req_low']:.3f}, "
                                 f"{p['cpu_ms_per_req_high']:.3f}]",
                    "measured": fmt(got, 3), "error": "n/a" if err is None else f"{err:+.0%}",
                    "at_speed": "n/a" if err is None else f"{error_at_speed(err, speed):+.0%}",
                    "within": err is not None and abs(err) <= CPU_WITHIN,
                    "ceiling": ("no bound" if ceiling is None else f"{ceiling:,.0f} req/s")
                               + f" ({p['bound']})"})
    return out


def ceilings(advised, rows):
    """Per series measured at two or more predicted rates, the lowest under half its predicted
    ceiling (unloaded enough to be the yardstick): the first step whose p99 of successes passed
    twice the lowest one's (or that served under 99 %), beside the predicted ceiling, which
    agrees when it lies within CEILING_WITHIN of the bracket the steps give (docs/advise.md)."""
    steps = {}
    for row, p in predicted_steps(advised, rows):
        if row["p99_ok_ms"]:
            steps.setdefault(row["mode"], []).append((float(row["load"]), row, p["max_rate"]))
    out = []
    for x, got in steps.items():
        got.sort(key=lambda g: g[0])
        (low, first, top), k = got[0], CEILING_WITHIN
        if len(got) < 2 or top is None or low > top / 2:
            continue
        past = next((r for r, row, _ in got[1:] if row["p99_ok_ms"] > 2 * first["p99_ok_ms"]
                     or (row["success_pct"] or 0) < 99), None)
        below = max(r for r, *_ in got if past is None or r < past)
        if past is None and top > below * (1 + k):
            verdict = "these steps stay under the prediction: they cannot check it"
        elif below * (1 - k) <= top <= (past or math.inf) * (1 + k):
            verdict = f"the prediction is within {k:.0%} of the bracket these steps give"
        else:
            verdict = (f"the prediction is {'high' if past and top > past else 'low'} by more "
                       f"than {k:.0%}")
        out.append(f"{x}'s highest rate, predicted {top:,.0f} req/s: " + (
            f"its p99 of successes passed twice the {low:g}-req/s one's at {past:g} req/s, not at "
            f"{below:g}" if past else f"its p99 stayed within twice the {low:g}-req/s one's up to "
            f"{below:g} req/s") + f" ({verdict}).")
    return out


def intro(advised, speed=1.0, rows=()):
    """The lines before the table: which calibration predicted, how to read it, and the machine's
    speed beside the calibration's with the errors ROWS would have scaled by it."""
    if advised.get("error"):
        return [f"advise gave no prediction for this workload: {advised['error']}"]
    out = [f"Before measuring, advise predicted this workload ({advised['workload']}) from the "
           f"calibration of {advised['date']} ({advised['cores']} cores of {advised['cpu']}; "
           f"{advised['calibration']}). Error: predicted over measured, minus one; the model is "
           f"held to CPU per request within {CPU_WITHIN:.0%} (docs/advise.md)."]
    if speed != 1.0 and rows:
        out.append(f"The machine's yardstick read {speed:.2f} times what it read through the "
                   f"calibration ({speed * advised['speed_us']:.1f} us against "
                   f"{advised['speed_us']:.1f}, medians). Scaled by it, the errors would be "
                   + ", ".join(f"{r['series']} {r['at_speed']}" for r in rows)
                   + " (not used: it did not bring the checks closer, docs/advise.md, "
                   "\"The machine's speed\").")
    out += [advised[k] for k in ("other_machine", "other_day") if advised.get(k)]
    return out


def md_lines(head, rows, failed):
    out = ["## advise's prediction beside the measurement", ""]
    for line in head:
        out += [line, ""]
    if failed or not rows:
        return out + ([] if failed else ["No workload step was measured at a predicted rate.", ""])
    out += ["| series | rate (req/s) | CPU ms/req predicted [95 % interval] | measured | error "
            "| highest rate predicted (what sets it) |", "|---|---|---|---|---|---|"]
    out += [f"| {r['series']} | {r['rate']} | {r['predicted']} | {r['measured']} | {r['error']} "
            f"| {r['ceiling']} |" for r in rows]
    return out + [""]
