"""CPU per request of every measured trial of the runs named, per series and rate, in the order measured
(i: the app invocation, b: the block): how a fresh app's cost moves through a run.
Run from the repository's root:
python3 docs/results/workload-2026-12-07g/blocks.py docs/results/workload-2026-12-07{g,h} > docs/results/workload-2026-12-07g/blocks.txt"""
import json
import sys

for run in sys.argv[1:]:
    t = json.load(open(f"{run}/trials.json"))   # the run's trials.jsonl, the fields read here
    recs = [dict(zip(t["fields"], row)) for row in t["rows"]]
    print(f"{run}: CPU ms per request (the JIT threads' and, since 2026-12-07 16:00, the scrapes' left out)")
    for x in dict.fromkeys(r["series"] for r in recs):
        for rate in sorted({r["rate"] for r in recs}):
            rs = [r for r in recs if r["series"] == x and r["rate"] == rate]
            print(f"  {x:9} {rate:4g} req/s " + " ".join(
                f"i{r['invocation']}b{r['block']}:{r['cpu_ms_per_req']:.2f}" for r in rs))
