"""scrape.json (scrape.py's run) -> scrape.txt: per series and round, a scraped trial's CPU per request
(net of the JIT) less the unscraped one's, beside what the scrapes times one warm scrape's cost make.
Run from the repository's root:
load/.venv/bin/python docs/results/scrape-2026-12-07/summary.py > docs/results/scrape-2026-12-07/scrape.txt"""
import json
import statistics

from scipy import stats

d = json.load(open("docs/results/scrape-2026-12-07/scrape.json"))
print(f"workload queries=4,delay=20 at {d['rate']:g} req/s, {d['secs']:g}-s trials, scraped every 0.5 s or not")
print("one scrape's CPU ms at idle: cold (the app just started, its first 20) "
      + ", ".join(f"{k} {v:.1f}" for k, v in d["cold"].items())
      + "; warm (after the rounds) " + ", ".join(f"{k} {v:.1f}" for k, v in d["warm"].items()))
quiet = []
for x in d["cold"]:
    print(f"\n{x}: round, scraped - unscraped CPU ms/req (net of JIT), JIT % of the two, scrapes x warm cost / requests")
    for r in sorted({row["round"] for row in d["rows"]}):
        on, off = (next(t for t in d["rows"] if t["series"] == x and t["round"] == r and t["scraped"] == k)
                   for k in (1, 0))
        diff, expect = on["net"] - off["net"], on["scrapes"] * d["warm"][x] / on["n"]
        ok = max(on["jit"], off["jit"]) <= 5
        if ok:
            quiet.append(diff)
        print(f"  {r + 1}  {diff:+.3f}  JIT {on['jit']:.1f} / {off['jit']:.1f} %  expected {expect:.3f}"
              + ("" if ok else "  (JIT over 5 %: left out)"))
m, sd = statistics.mean(quiet), statistics.stdev(quiet)
h = stats.t.ppf(0.975, len(quiet) - 1) * sd / len(quiet) ** 0.5
print(f"\nrounds with the JIT at most 5 % in both trials ({len(quiet)} pairs): scraping added {m:.3f} ms a request "
      f"[{m - h:.3f}, {m + h:.3f}] (95 %), {min(quiet):+.3f} to {max(quiet):+.3f}")
