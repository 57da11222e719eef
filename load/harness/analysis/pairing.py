"""The trial records paired block by block, one series' metric over another's at one step
(stats.py makes the pairs intervals and verdicts)."""
from __future__ import annotations

import math
from dataclasses import dataclass

FULL = 0.999          # "served fully": successes / requests over a step's trials (a target's full)


def metric_value(rec, metric):
    """METRIC of one trial record, or None where undefined (no success, per-success figure)."""
    if metric == "ok_rate":
        d, ok = rec.get("duration_s"), rec.get("ok")
        # 0 successes: half a success (Haldane)
        return None if not d or ok is None else max(ok, 0.5) / d
    v = rec.get(metric)
    return float(v) if v is not None and math.isfinite(v) and v > 0 else None


def _pick(recs, series, other):
    """SERIES' record paired with OTHER in one block: its duet trial with OTHER, else its own."""
    duet = [r for r in recs if r["series"] == series and r.get("duet_with") == other]
    mine = duet or [r for r in recs if r["series"] == series and not r.get("duet_with")]
    if len(mine) > 1:
        raise ValueError(f"{len(mine)} trials of {series} in block {mine[0]['block']} at one step")
    return mine[0] if mine else None


@dataclass(frozen=True)
class Pairing:
    """The log ratios of one pair at one step (or what pair()'s COMBINE made of each block),
    their invocation keys, and the blocks left out."""
    log_ratios: list
    invocations: list
    blocks: int          # blocks with both values
    missing: dict        # series -> blocks where its per-success figure was undefined (no success)
    dropped: int         # blocks where a trial of the pair could not run (error)


def log_ratio(va, vb):
    return math.log(va / vb)


def pair(records, a, b, scenario, rate, metric, combine=log_ratio):
    """Pairing of series A over series B at (SCENARIO, RATE) for METRIC, block by block; COMBINE
    makes a block's value from A's and B's (log ratio; a difference for ladder.py's cost)."""
    by_block = {}
    for r in records:
        if r["scenario"] == scenario and float(r["rate"]) == float(rate):
            by_block.setdefault(r["block"], []).append(r)
    ys, invs, missing, dropped = [], [], {a: 0, b: 0}, 0
    for blk in sorted(by_block):
        ra, rb = _pick(by_block[blk], a, b), _pick(by_block[blk], b, a)
        if ra is None and rb is None:
            continue
        if ra is None or rb is None or ra.get("error") or rb.get("error"):
            dropped += 1
            continue
        va, vb = metric_value(ra, metric), metric_value(rb, metric)
        if va is None or vb is None:
            for s, v in ((a, va), (b, vb)):
                missing[s] += v is None
            continue
        ys.append(combine(va, vb))
        invs.append((ra.get("invocation") or 0, rb.get("invocation") or 0))
    return Pairing(ys, invs, len(ys), {s: k for s, k in missing.items() if k}, dropped)


def served_fully(records, series, scenario, rate):
    """True when SERIES answered at least FULL of its requests with success in the step's trials."""
    rs = [r for r in records if r["series"] == series and r["scenario"] == scenario
          and float(r["rate"]) == float(rate) and not r.get("error")]
    sent = sum(r.get("requests") or 0 for r in rs)
    return bool(rs) and sent > 0 and sum(r.get("ok") or 0 for r in rs) >= FULL * sent


def steps_of(records):
    """[(scenario, rate)] present in RECORDS, in first-seen order."""
    return list(dict.fromkeys((r["scenario"], float(r["rate"])) for r in records))
