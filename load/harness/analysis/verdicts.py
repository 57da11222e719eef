"""What the rows say: the targets judged against A/A noise, what limited io, medians over runs."""
import os
import re

from harness.analysis.model import METRICS as METRICS_MODEL
from harness.analysis.steps import (
    AA_SUFFIX,
    FIELDS,
    TEXT_FIELDS,
    fmt,
    params_of,
    series_names,
    sort_rows,
    worker_ceiling,
)
from harness.analysis.targets import TARGETS


# ------------------------------------------------------------------------------------- targets
def _rows(rows, sc, mode, tool):
    return sorted((r for r in rows
                   if r["scenario"] == sc and r["mode"] == mode and r["tool"] == tool),
                  key=lambda r: float(r["load"] or 0))


def _full(r):
    return r["success_pct"] == 100.0 and not re.search(r"BELOW_RATE|LOW_SEND_RATE|NO_",
                                                         r["flags"] or "")


def _p99(r):
    """The latency the targets judge: successes only (the error rate is judged by _full)."""
    return r["p99_ok_ms"] if r.get("p99_ok_ms") is not None else r["p99_ms"]


def _sustained_row(rows, sc, mode, limit_ms):
    """The highest Vegeta rate's row served with 100% success, no flag and p99 under limit_ms."""
    ok = [r for r in _rows(rows, sc, mode, "vegeta")
          if _full(r) and _p99(r) is not None and (limit_ms is None or _p99(r) < limit_ms)]
    return ok[-1] if ok else None


def _figure(r, metric):
    """A row's figure for a target's METRIC (model.METRICS): successes only for p99, successes a
    second for ok_rate (Vegeta's throughput, hey's successes over its run)."""
    if metric == "ok_rate":
        return r["achieved_rps"]
    return _p99(r) if metric == "p99_ok_ms" else r[METRICS_MODEL[metric].row_key]


def _ratios(rows, sc, metric, series, full=(), rates=None):
    """[(rate, SERIES[0]'s METRIC / SERIES[1]'s)] at each step both ran (the same tool, rate and
    parameters) where every series of FULL served fully; RATES: at those only."""
    first, base = series
    other = {(r["tool"], float(r["load"]), r["params"]): r
             for r in rows if r["scenario"] == sc and r["mode"] == first}
    out = []
    for r in sorted((r for r in rows if r["scenario"] == sc and r["mode"] == base),
                    key=lambda r: (r["tool"], float(r["load"] or 0))):
        v = other.get((r["tool"], float(r["load"]), r["params"]))
        if (v is None or (rates and float(r["load"]) not in rates)
                or not all(_full({first: v, base: r}[s]) for s in full)):
            continue
        a, b = _figure(v, metric), _figure(r, metric)
        if a and b:
            out.append((float(r["load"]), a / b))
    return out


def aa_spread(rows, sc, metric):
    """{rate: |second / first - 1|} of the A/A pair (one mode measured twice in this run) for
    METRIC, at the steps both served fully; {} without one."""
    spread = {}
    for aa in sorted({r["mode"] for r in rows
                      if r["scenario"] == sc and r["mode"].endswith(AA_SUFFIX)}):
        pair = (aa, aa.removesuffix(AA_SUFFIX))
        for load, x in _ratios(rows, sc, metric, pair, full=pair):
            spread[load] = max(spread.get(load, 0.0), abs(x - 1))
    return spread


def ratio_verdict(ratios, region, spread):
    """PASS / FAIL / within noise for ratios [(rate, x)] against REGION (low, high; None: open). A
    difference no larger than the A/A spread at that rate (|x - 1| <= spread) is noise: a target
    missed only at such rates, or met only because every rate was such, is 'within noise'."""
    if not ratios:
        return "n/a"
    lo, hi = region

    def noise(load, x):
        return load in spread and abs(x - 1) <= spread[load]

    missed = [(load, x) for load, x in ratios
              if (lo is not None and x < lo) or (hi is not None and x > hi)]
    if any(not noise(load, x) for load, x in missed):
        return "FAIL"
    if missed or all(noise(load, x) for load, x in ratios):
        return "within noise"
    return "PASS"


def _noise_note(spread):
    return ("; A/A spread " + ", ".join(f"{fmt(load, 0)}/s {100 * v:.0f}%"
                                        for load, v in sorted(spread.items()))
            if spread else "")


def _verdict(ok):
    """PASS or FAIL by OK; n/a when OK is None (not enough rows to judge)."""
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def _capacity_targets(rows, worker_pool):
    """The worker's ceiling and pinning targets: [(target, measured, verdict)]."""
    out = []
    # enough in flight
    wk = [r for r in _rows(rows, "io", "worker", "hey") if float(r["load"]) >= worker_pool]
    if wk:
        best = max(wk, key=lambda r: r["achieved_rps"] or 0)
        ceil = worker_ceiling("io", best["params"], worker_pool)
        if ceil:
            out.append(("io: worker sustains >= 90% of its Little's-law ceiling (hey)",
                        f"{fmt(best['achieved_rps'], 0)} req/s at {fmt(best['load'], 0)} in flight "
                        f"= {100 * (best['achieved_rps'] or 0) / ceil:.0f}% of {ceil:,.0f}",
                        _verdict((best["achieved_rps"] or 0) >= 0.9 * ceil)))
    pin = [r for r in rows if r["scenario"] == "pinning" and r["mode"] == "virtual"
           and r["pinned_events"] is not None]
    if pin:
        n = sum(r["pinned_events"] for r in pin)
        out.append(("pinning (synchronized), virtual: 0 pinned events (JEP 491, JDK 24+)",
                    f"{n:g} events", _verdict(n == 0)))
    return out


def targets(rows, worker_pool):
    """The performance targets (docs/results.md "Targets") on these rows, one reading a step:
    -> [(target, measured, verdict)], verdict PASS / FAIL / within noise / n/a. The ratio targets
    are targets.TARGETS, judged step by step against the A/A spread; then io at 4,000 req/s
    (absolute), the worker's ceiling and pinning. WORKER_POOL (the pool's size) sets the worker's
    ceiling and the hey levels that can reach it."""
    out = []
    names = series_names(rows)
    for mode in [m for m in names if m == "reactive" or m.split("+")[0] == "virtual"]:
        r4 = [r for r in _rows(rows, "io", mode, "vegeta") if float(r["load"]) == 4000]
        if r4:
            r = r4[0]
            out.append((f"io 4,000 req/s, {mode}: 100% ok and p99 <= 150 ms",
                        f"{fmt(r['success_pct'], 2)}% ok, p99 (successes) {fmt(_p99(r))} ms",
                        _verdict(_full(r) and _p99(r) <= 150)))
    scenarios = list(dict.fromkeys(r["scenario"] for r in rows))
    for t in TARGETS:
        for sc in (x for x in scenarios if x in t.scenarios and all(s in names for s in t.series)):
            ratios = _ratios(rows, sc, t.metric, t.series, t.full, t.rates)
            if ratios:
                spread = aa_spread(rows, sc, t.metric)
                unit = " in flight" if sc == "cpu" else "/s"
                out.append((f"{sc}: {t.name}",
                            ", ".join(f"{fmt(load, 0)}{unit} {x:.2f}x" for load, x in ratios)
                            + _noise_note(spread), ratio_verdict(ratios, t.region, spread)))
    return out + _capacity_targets(rows, worker_pool)


def saturation(rows, cores=None, app_cores=None):
    """Per io series: the highest Vegeta rate with 100% success and p99 (successes) under 2x the
    delay, and what limited the next rate: [(series, rate or None, limit text)]. The limit: a
    process that used >= 90% of the cores it may use (the app: its cpus share or all; Vegeta, the
    delay service: one core); with the app on its own cores, the other cores when the busiest was
    >= 90% busy; else the machine when all cores together were >= 80% busy (processes' sum without
    its reading; on shared cores the run queue, so latency, grows long before they are full); else
    no CPU (a pool or queue)."""
    out = []
    cores = cores or os.cpu_count() or 1
    for mode in series_names([r for r in rows if r["scenario"] == "io"]):
        veg = _rows(rows, "io", mode, "vegeta")
        if not veg:
            continue
        delay = params_of(veg[0]["params"]).get("delay")
        limit = 2 * float(delay) if delay else None
        best = _sustained_row(rows, "io", mode, limit)
        beyond = [r for r in veg if best is None or float(r["load"]) > float(best["load"])]
        if not beyond:
            out.append((mode, best and float(best["load"]),
                        "not reached: every rate was served (add higher --rates)"))
            continue
        r = beyond[0]
        app, gen, dly = (r.get(k) or 0 for k in ("cpu_pct", "gen_cpu_pct", "delay_cpu_pct"))
        host, busiest = r.get("host_cpu_pct"), r.get("host_core_max_pct")
        if app >= 90 * (app_cores or cores):
            why = "the app's CPU"
        elif gen >= 90:
            why = "the load generator's CPU"
        elif dly >= 90:
            why = "the delay service's CPU"
        # the app's own core was checked above
        elif app_cores and busiest is not None and busiest >= 90:
            why = "the cores left to the generator, delay service and database"
        elif (host if host is not None else app + gen + dly) >= 80 * cores:
            why = "the machine's CPU (app, generator, delay service, database and kernel together)"
        else:
            why = "not CPU (a pool, a queue or a timeout)"
        machine = "" if host is None else f", machine {fmt(host, 0)}% of {cores * 100}%"
        out.append((mode, best and float(best["load"]),
                    f"at {fmt(float(r['load']), 0)}/s: {fmt(r['success_pct'], 2)}% ok, "
                    f"p99 {fmt(_p99(r))} ms; CPU app {fmt(app, 0)}%, Vegeta {fmt(gen, 0)}%, "
                    f"delay service {fmt(dly, 0)}%{machine} (100% = one core) -> {why}"))
    return out


def saturation_over_runs(per_run):
    """{series: [highest rate or None, one per run]} from one saturation() list per run: the median
    summary's rows mix runs per step, so each run's saturation point is read from its own rows."""
    out = {}
    for k, sat in enumerate(per_run):
        for mode, rate, _ in sat:
            out.setdefault(mode, [None] * len(per_run))[k] = rate
    return out


def saturation_args(meta):
    """The cores the machine had and the app was given (`--set cpus=app=N`), from machine.json."""
    meta = meta or {}

    def num(k):
        try:
            return int(meta.get(k))
        except (TypeError, ValueError):
            return None
    return {"cores": num("cores"), "app_cores": num("app_cores")}


# -------------------------------------------------------------------------------------- median
def median_rows(runs_rows):
    """One row per step key (scenario, params, mode, tool, load) over several runs' rows: the row
    of the run whose p99 (successes) is the median (the lower of an even count), so its figures
    come from one run, but for CPU per request, the median of every run's (the lower of an even
    count); 'ranges' holds each figure's min-max over the runs, flags their counts."""
    groups = {}
    for k, rows in enumerate(runs_rows, 1):
        for r in rows:
            r = dict(r, run=k)
            groups.setdefault((r["scenario"], r.get("params"), r["mode"], r["tool"], r["load"]),
                              []).append(r)
    out = []
    for group in groups.values():
        ranked = sorted(group, key=lambda r: (_p99(r) is None, _p99(r) or 0))
        known = [r for r in ranked if _p99(r) is not None] or ranked
        row = dict(known[(len(known) - 1) // 2])
        cpu = sorted(r["cpu_ms_per_req"] for r in group if r.get("cpu_ms_per_req") is not None)
        if cpu:   # the cost figure on its own: one run's moves 10-20 % from the next's
            row["cpu_ms_per_req"] = cpu[(len(cpu) - 1) // 2]
        row["ranges"] = {}
        for k in FIELDS:
            vals = [r.get(k) for r in group
                    if isinstance(r.get(k), (int, float)) and not isinstance(r.get(k), bool)]
            if k not in TEXT_FIELDS and k not in ("load", "duration_s") and vals:
                row["ranges"][k] = [min(vals), max(vals)]
        flags = {}
        for r in group:
            for f in (r.get("flags") or "").split():
                flags[f] = flags.get(f, 0) + 1
        row["flags"] = " ".join(f"{f}({n}/{len(group)})" for f, n in sorted(flags.items()))
        row["status_codes"] = " | ".join(r.get("status_codes") or "" for r in group)
        row["errors"] = " | ".join(r["errors"] for r in group if r.get("errors"))[:300]
        row["step"] = " ".join(r.get("step") or "" for r in group)
        row["runs"] = f"{len(group)} (median: run {row.pop('run')})"
        lo_hi = row["ranges"].get("p99_ok_ms") or row["ranges"].get("p99_ms")
        row["p99_range_ms"] = f"{fmt(lo_hi[0])}-{fmt(lo_hi[1])}" if lo_hi else None
        out.append(row)
    return sort_rows(out)
