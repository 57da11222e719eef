"""What the rows say: the targets judged against A/A noise, what limited io, medians over runs."""
import os
import re

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


def _sustained(rows, sc, mode, limit_ms):
    r = _sustained_row(rows, sc, mode, limit_ms)
    return float(r["load"]) if r else None


def _value(r, key):
    return _p99(r) if key == "p99_ms" else r[key]


def _ratios(rows, sc, key, both_full, mode="virtual", base="reactive"):
    """[(rate, MODE's KEY / BASE's KEY)] over the Vegeta rates both ran, where BASE (and, with
    both_full, MODE too) served fully."""
    other = {(float(r["load"]), r["params"]): r for r in _rows(rows, sc, mode, "vegeta")}
    out = []
    for r in _rows(rows, sc, base, "vegeta"):
        v = other.get((float(r["load"]), r["params"]))
        if v and _full(r) and (_full(v) or not both_full) and _value(r, key) and _value(v, key):
            out.append((float(r["load"]), _value(v, key) / _value(r, key)))
    return out


def aa_spread(rows, sc, key):
    """{rate: |second / first - 1|} of the A/A pair (one mode measured twice in this run) for KEY;
    {} without one."""
    spread = {}
    for aa in sorted({r["mode"] for r in rows
                      if r["scenario"] == sc and r["mode"].endswith(AA_SUFFIX)}):
        for load, x in _ratios(rows, sc, key, both_full=True, mode=aa,
                               base=aa.removesuffix(AA_SUFFIX)):
            spread[load] = max(spread.get(load, 0.0), abs(x - 1))
    return spread


def ratio_verdict(ratios, limit, spread):
    """PASS / FAIL / within noise for ratios [(rate, x)] against 'x <= LIMIT'. A difference no
    larger than the A/A spread at that rate (|x - 1| <= spread) is noise: a target missed only at
    such rates, or met only because every rate was such, is 'within noise'."""
    if not ratios:
        return "n/a"

    def noise(load, x):
        return load in spread and abs(x - 1) <= spread[load]

    missed = [(load, x) for load, x in ratios if x > limit]
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
    """The worker's ceiling, cpu throughput and pinning targets: [(target, measured, verdict)]."""
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
    cpu = {}
    for r in rows:
        if (r["scenario"] == "cpu" and r["tool"] == "hey" and r["achieved_rps"]
                and not r["mode"].endswith(AA_SUFFIX)):
            cpu.setdefault(float(r["load"]), {})[r["mode"]] = r["achieved_rps"]
    # throughput is a capacity figure: judged at the highest concurrency (cores saturated); at low
    # concurrency a closed loop measures latency, where the event loop saves the thread hand-offs
    if cpu:
        load, by_mode = max(cpu.items())
        if len(by_mode) >= 2:
            spread = max(by_mode.values()) / min(by_mode.values()) - 1
            out.append((f"cpu, hey {fmt(load, 0)} in flight (the highest level): "
                        "modes within 10% in throughput",
                        ", ".join(f"{m} {fmt(v, 0)}/s" for m, v in by_mode.items()),
                        _verdict(spread <= 0.10)))
    pin = [r for r in rows if r["scenario"] == "pinning" and r["mode"] == "virtual"
           and r["pinned_events"] is not None]
    if pin:
        n = sum(r["pinned_events"] for r in pin)
        out.append(("pinning (synchronized), virtual: 0 pinned events (JEP 491, JDK 24+)",
                    f"{n:g} events", _verdict(n == 0)))
    return out


def targets(rows, worker_pool):
    """The performance targets (docs/results.md "Targets") checked on these rows: -> [(target,
    measured, verdict)], verdict PASS / FAIL / within noise / n/a (too few rows); latency on
    successes only. WORKER_POOL (the pool's size) sets the worker's ceiling and the hey levels
    that can reach it."""
    out = []
    names = series_names(rows)
    virtuals = [m for m in names if m.split("+")[0] == "virtual" and not m.endswith(AA_SUFFIX)]
    for mode in ["reactive"] + virtuals:
        r4 = [r for r in _rows(rows, "io", mode, "vegeta") if float(r["load"]) == 4000]
        if r4:
            r = r4[0]
            out.append((f"io 4,000 req/s, {mode}: 100% ok and p99 <= 150 ms",
                        f"{fmt(r['success_pct'], 2)}% ok, p99 (successes) {fmt(_p99(r))} ms",
                        _verdict(_full(r) and _p99(r) <= 150)))

    def ratio_target(name, sc, key, limit, both_full, mode):
        ratios = _ratios(rows, sc, key, both_full, mode=mode)
        if ratios:
            spread = aa_spread(rows, sc, key)
            out.append((name, ", ".join(f"{fmt(load, 0)}/s {x:.2f}x" for load, x in ratios)
                        + _noise_note(spread), ratio_verdict(ratios, limit, spread)))

    for sc in ("io", "fanout", "db", "checkout"):
        reactive = _rows(rows, sc, "reactive", "vegeta")
        if not reactive:
            continue
        delay = params_of(reactive[0]["params"]).get("delay")
        limit = 2 * float(delay) if delay and sc in ("io", "fanout", "checkout") else None
        for v in virtuals:
            ratio_target(f"{sc}: {v} p99 <= 1.25 x reactive p99 wherever reactive succeeds fully",
                         sc, "p99_ms", 1.25, False, v)
            s_r, s_v = _sustained(rows, sc, "reactive", limit), _sustained(rows, sc, v, limit)
            if s_r:
                out.append((f"{sc}: {v}'s highest sustained rate >= 90% of reactive's"
                            + (f" (100% ok, p99 < {fmt(limit, 0)} ms)" if limit else " (100% ok)"),
                            f"{v} {fmt(s_v or 0, 0)}/s, reactive {fmt(s_r, 0)}/s",
                            _verdict((s_v or 0) >= 0.9 * s_r)))
    for sc in ("io", "fanout"):
        for v in virtuals:
            for key, label in (("cpu_ms_per_req", "CPU ms/req"), ("rss_peak_mib", "peak RSS")):
                ratio_target(f"{sc}: {v} {label} <= 1.2 x reactive's (steps both serve fully)",
                             sc, key, 1.2, True, v)
    # the socket delay client (docs/blocking-client.md): virtual at its cheapest
    for v in [m for m in virtuals if m.endswith("+socket")]:
        for sc in ("io", "fanout"):
            ratio_target(f"{sc}: {v} CPU ms/req <= 1.0 x reactive's (steps both serve fully)",
                         sc, "cpu_ms_per_req", 1.0, True, v)
        cut = [(load, x) for load, x in _ratios(rows, "io", "cpu_ms_per_req", True, mode=v,
                                                base="virtual") if load in (2500, 4000)]
        if cut:
            spread = aa_spread(rows, "io", "cpu_ms_per_req")
            out.append((f"io: {v} CPU ms/req <= 0.8 x virtual's with the REST client "
                        "at 2,500 and 4,000 req/s",
                        ", ".join(f"{fmt(load, 0)}/s {x:.2f}x" for load, x in cut)
                        + _noise_note(spread), ratio_verdict(cut, 0.8, spread)))
    out += _capacity_targets(rows, worker_pool)
    return out


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
    of the run whose p99 (successes) is the median (the lower of an even count), so all its figures
    come from one run; 'ranges' holds each figure's min-max over the runs, flags their counts."""
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
