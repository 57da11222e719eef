"""Two rate tools side by side, an A/A of tools: the same steps driven by Hyperfoil and by Vegeta
in each of several runs (`compare.sh --design sequential --tools vegeta,hyperfoil --set runs=N`;
a fresh app each run, the tools' order alternating). Per step and metric: the ratio Hyperfoil /
Vegeta, its geometric mean over the runs and 95 % interval (Student's t on the per-run log ratios).
An interval holding 1.00: the tools agree at this resolution; one run gives a point, no interval."""
import math

from harness.analysis import stats

METRICS = (("achieved_rps", "achieved rate"), ("p50_ok_ms", "p50"), ("p99_ok_ms", "p99"),
           ("cpu_ms_per_req", "app CPU per request"), ("gen_cpu_pct", "generator CPU"))


def agreement(runs_rows, a="hyperfoil", b="vegeta"):
    """[{scenario, mode, load, metric, label, a, b, ratio, low, high, n, runs}] for each step both
    tools ran in at least one run of RUNS_ROWS (a list of summary rows a run); A and B are the
    medians of each tool's values, RUNS the [A, B] of every run."""
    out = []
    steps = sorted({(r["scenario"], r["mode"], float(r["load"]))
                    for rows in runs_rows for r in rows if r["tool"] == a})
    for sc, mode, load in steps:
        for metric, label in METRICS:
            pairs = [(_value(rows, a, sc, mode, load, metric),
                      _value(rows, b, sc, mode, load, metric)) for rows in runs_rows]
            pairs = [(x, y) for x, y in pairs if x and y and x > 0 and y > 0]
            if not pairs:
                continue
            iv = stats.interval([math.log(x / y) for x, y in pairs], method="t")
            out.append({"scenario": sc, "mode": mode, "load": load, "metric": metric,
                        "label": label, "a": _median([x for x, _ in pairs]),
                        "b": _median([y for _, y in pairs]),
                        "ratio": iv.ratio, "low": iv.low if len(pairs) > 1 else None,
                        "high": iv.high if len(pairs) > 1 else None, "n": len(pairs),
                        "runs": [[x, y] for x, y in pairs]})
    return out


def markdown(entries, a="Hyperfoil", b="Vegeta"):
    """The entries as a Markdown table (empty without entries)."""
    if not entries:
        return []
    runs = max(e["n"] for e in entries)
    lines = [f"## {a} beside {b} (an A/A of tools)", "",
             f"The same steps driven by both tools in each of {runs} run(s); ratio = {a} / {b}, "
             "geometric mean over the runs, 95 % interval (t on the per-run log ratios). "
             "An interval holding 1.00: the tools agree.", "",
             f"| step | metric | {a} | {b} | ratio | 95 % interval | runs |",
             "|---|---|---:|---:|---:|---|---:|"]
    for e in entries:
        iv = f"[{e['low']:.3f}, {e['high']:.3f}]" if e["low"] is not None else "one run: none"
        lines.append(f"| {e['scenario']} {e['mode']} {e['load']:g} req/s | {e['label']} | "
                     f"{_num(e['a'])} | {_num(e['b'])} | {e['ratio']:.3f} | {iv} | {e['n']} |")
    return lines + [""]


def _num(x):
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _value(rows, tool, scenario, mode, load, metric):
    for r in rows:
        if (r["tool"] == tool and r["scenario"] == scenario and r["mode"] == mode
                and float(r["load"]) == load):
            return r.get(metric)
    return None


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2
