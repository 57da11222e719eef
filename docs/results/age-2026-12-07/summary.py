"""age.json -> age.txt: per series and round, the app's CPU per request at 150 req/s of workload
g, the JIT's share, and the rest split by thread group, user + system (ms per request)."""
import json, os, statistics

here = os.path.dirname(os.path.abspath(__file__))
d = json.load(open(os.path.join(here, "age.json")))
out = ["An aging app: workload calls=2,fanout=2,queries=1,delay=25 at 150 req/s, 10-s trials in a random order",
       "per round, after a 150-s warm-up of all three apps together (both rates of workload-2026-12-07g);",
       "ms of CPU per request, the JIT threads' left out of 'net'; thread groups user+system", ""]
quiet = {}
for x in ("virtual", "worker", "reactive"):
    out.append(x)
    for r in (r for r in d["rows"] if r["series"] == x):
        g = r["groups"]
        jit = sum(sum(v) for k, v in g.items() if "Compiler" in k)
        rest = {k: v for k, v in g.items() if "Compiler" not in k}
        net = sum(sum(v) for v in rest.values())
        top = ", ".join(f"{k.strip('-N')} {v[0]:.2f}+{v[1]:.2f}" for k, v in sorted(
            rest.items(), key=lambda kv: -sum(kv[1])) if sum(v) >= 0.1)
        out.append(f"  round {r['round']:2d} age {r['age_s']:4d} s: app {r['app_ms']:.2f}, JIT "
                   f"{r['jit']:4.1f} % of a core, net {net:.2f} (user {sum(v[0] for v in rest.values()):.2f}, "
                   f"system {sum(v[1] for v in rest.values()):.2f}): {top}")
        if r["jit"] <= 3:
            quiet.setdefault(x, []).append((r["round"], net))
    out.append("")
out.append("net CPU per request by round, the JIT under 3 % of a core (all three series move together):")
for k in sorted({k for rows in quiet.values() for k, _ in rows}):
    cells = [f"{x} {dict(quiet.get(x, [])).get(k, float('nan')):.2f}" for x in ("virtual", "worker", "reactive")]
    out.append(f"  round {k:2d}: " + ", ".join(cells))
out.append("")
for x, rows in quiet.items():
    late = [v for k, v in rows if k >= 11]
    out.append(f"{x}: rounds 11-15 median {statistics.median(late):.2f} ms")
out += ["", "How fast the JIT of three fresh apps calms under compare's warm-up (warmjit.py): 3-s rounds, each app",
        "at a third of each rate (150 and 500 req/s), ramped over the first three, until every app's JIT used at",
        "most 5 % of a core in two rounds running; the load at FACTOR times that:"]
for f in ("warmjit-1.json", "warmjit-0.25.json"):
    w = json.load(open(os.path.join(here, f)))
    rows = w["rows"]
    busy = [r["busy"] for r in rows]
    jit_s = {x: v for x, v in rows[-1]["jit_total_s"].items()}
    out.append(f"  x{w['factor']:g}: calm after {rows[-1]['t']:.0f} s ({len(rows)} rounds; a round took "
               f"{min(r2['t'] - r1['t'] for r1, r2 in zip(rows, rows[1:])):.1f}-"
               f"{max(r2['t'] - r1['t'] for r1, r2 in zip(rows, rows[1:])):.1f} s), the machine "
               f"{statistics.median(busy):.0f} % busy in the median round (of 200), each JIT's CPU in all "
               + ", ".join(f"{x} {v:.0f} s" for x, v in jit_s.items()))
open(os.path.join(here, "age.txt"), "w").write("\n".join(out) + "\n")
