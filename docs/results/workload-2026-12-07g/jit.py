"""The JIT in this run's measured trials: per series and rate, advise's prediction against the median of
every measured trial (as the report) and of those whose JIT compiler threads used at most 10 % of a core.
Run from the repository's root (another run's folder as its argument):
python3 docs/results/workload-2026-12-07g/jit.py > docs/results/workload-2026-12-07g/jit.txt
python3 docs/results/workload-2026-12-07g/jit.py docs/results/workload-2026-12-07h > docs/results/workload-2026-12-07h/jit.txt"""
import json
import statistics

import sys
RUN = sys.argv[1] if len(sys.argv) > 1 else "docs/results/workload-2026-12-07g"
advise = json.load(open(f"{RUN}/machine.json"))["advise"]
pred = {(x, r["rate"]): f["cpu_ms_per_req"] for r in advise["rates"] for x, f in r["modes"].items()}
t = json.load(open(f"{RUN}/trials.json"))   # the run's trials.jsonl, the fields these scripts read
recs = [dict(zip(t["fields"], row)) for row in t["rows"]]


def jit_core_pct(r):
    """The JIT threads' CPU in the trial, % of one core (jit_pct is their share of the app's CPU)."""
    j = r["jit_pct"] / 100
    return 100 * j * r["cpu_ms_per_req"] * r["ok"] / (1 - j) / 1000 / r["duration_s"]


print(f"workload {advise['workload']}; error = predicted / measured - 1")
for x in dict.fromkeys(r["series"] for r in recs):
    for rate in sorted({r["rate"] for r in recs}):
        rs = [r for r in recs if r["series"] == x and r["rate"] == rate]
        quiet = [r["cpu_ms_per_req"] for r in rs if jit_core_pct(r) <= 10]
        every = statistics.median(r["cpu_ms_per_req"] for r in rs)
        p = pred[(x, rate)]
        line = f"{x:9} {rate:5g} req/s: predicted {p:.3f}; every trial ({len(rs)}) {every:.3f} ({p / every - 1:+.0%})"
        if quiet:
            q = statistics.median(quiet)
            line += f"; the JIT at most 10 % of a core ({len(quiet)}) {q:.3f} ({p / q - 1:+.0%})"
        print(line + "; JIT % of a core by block: " + " ".join(f"{jit_core_pct(r):.0f}" for r in rs))
