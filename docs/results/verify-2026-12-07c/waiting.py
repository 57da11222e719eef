"""The ceilings the cores set for shapes that wait on calls (calls or fan-out, no CPU kernel, no insert) in the last
three checks of virtual, worker and reactive (verify-2026-12-07, -12-07b, -12-07c; the same three before them,
verify-2026-11-29b, -12-01, -12-07, in verify-2026-12-07/waiting.txt): measured over predicted as each check predicted
it, the figures advise's paragraph quotes (harness.analysis.advice.recommend).
Run from the repository's root: python3 docs/results/verify-2026-12-07c/waiting.py > docs/results/verify-2026-12-07c/waiting.txt
(CHECK... instead: those checks' folders in docs/results)"""
import json
import statistics
import sys

ratios, by_series = [], {}
for check in sys.argv[1:] or ("verify-2026-12-07", "verify-2026-12-07b", "verify-2026-12-07c"):
    with open(f"docs/results/{check}/verify.json") as f:
        rows = json.load(f)["rows"]
    for r in rows:
        if (r["what"] != "max_rate" or r.get("bound") != "cores" or not isinstance(r["measured"], (int, float))
                or r["series"] not in ("virtual", "worker", "reactive")):
            continue
        shape = {k: int(v) for k, v in (item.split("=") for item in r["workload"].split(", "))}
        if (shape.get("calls") or shape.get("fanout")) and not shape.get("cpu") and not shape.get("insert"):
            ratios.append(r["measured"] / r["predicted"])
            by_series.setdefault(r["series"], []).append(ratios[-1])
            print(f"{check:20} {r['workload']:40} {r['series']:8} predicted {r['predicted']:6,} measured "
                  f"{r['measured']:6,.0f}  x{ratios[-1]:.2f}")
print(f"{len(ratios)} ceilings: measured over predicted {min(ratios):.2f} to {max(ratios):.2f}, "
      f"{statistics.median(ratios):.2f} in the median")
for series, qs in by_series.items():
    print(f"{series:8} {len(qs):2} ceilings: {min(qs):.2f} to {max(qs):.2f}, {statistics.median(qs):.2f} in the median")
