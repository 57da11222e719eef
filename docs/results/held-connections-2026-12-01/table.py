"""The table of README.md from the runs beside it: each run's recovery per overload round (summary.json), the
machine's yardstick (params.json) and the app's read timeouts (read-timeouts.txt, counted in its log at the time).
Run from the repository: python3 docs/results/held-connections-2026-12-01/table.py"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
print("| run | jar | yardstick us | worker s | virtual s | reactive s | 15-s read timeouts in the app's log |")
print("|---|---|---|---|---|---|---|")
for run in sorted(d for d in os.listdir(HERE) if os.path.isdir(os.path.join(HERE, d))):
    summary = json.load(open(os.path.join(HERE, run, "summary.json")))
    speed = summary["params"]["speed_us"]
    rec = {c["name"].split()[1]: c["figures"]["recovery"]["recovery_s"] for c in summary["checks"]}
    timeouts = open(os.path.join(HERE, run, "read-timeouts.txt")).read().strip()
    n, jar = run.split("-", 1)
    print(f"| {n} | {jar} | {speed:.1f} | {rec['worker']} | {rec['virtual']} | {rec['reactive']} | {timeouts} |")
