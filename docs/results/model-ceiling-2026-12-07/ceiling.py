"""Other rules for the busy share at which the cores stop a shape (the cores' ceiling, docs/advise.md "The model in
one screen"), each asked every check (advise --verify) against its calibration, refitted as in use:

  current  the one-call sweep's busy share where its p99 had grown by the shape's unloaded p99, at least where the
           sweep's p99 doubled (harness.analysis.costmodel.ceilings)
  floor C  the same, at least C: the checks' sweeps crossed at 0.8-1.0 of the cores busy where the prediction said
           0.5-0.7 (verify-2026-12-01: virtual, queries=10 and cpu=45000)
  const C  C for every shape and series
  M/M/c    a queue for the cores: the share where the p99 wait for a core of a request needing s ms of the
           machine's CPU, s / (c (1 - u)) ln(100 C(c, u)) with C(c, u) Erlang's chance to wait, reaches the shape's
           unloaded p99 (a request with more CPU queues longer, which one sweep's curve does not know)
  M/M/c, reactive M/M/1  the same, each reactive request bound to one event loop

Run from the repository's root: load/.venv/bin/python docs/results/model-ceiling-2026-12-07/ceiling.py > ceiling.txt
(CALIBRATION CHECK... instead of the pairs below: one calibration and its checks, a line per ceiling)"""
import json
import math
import sys

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm  # noqa: E402
from harness.analysis.advice import parse_shape  # noqa: E402
from harness.analysis.costmodel import Calibration, Figure  # noqa: E402
from harness.runs import calibrate  # noqa: E402

PAIRS = {
    "docs/results/calibrate-2026-11-29/calibration.json": (
        "docs/results/verify-2026-11-29/verify.json", "docs/results/verify-2026-11-29b/verify.json",
        "docs/results/verify-2026-11-29c/verify.json"),
    "docs/results/calibrate-2026-12-01/calibration.json": ("docs/results/verify-2026-12-01/verify.json",),
}
if len(sys.argv) > 2:
    PAIRS = {sys.argv[1]: tuple(sys.argv[2:])}
NCORES = 2
ORIG, ORIG_UTIL = cm.ceilings, cm.util_for


def erlang_c(c, u):
    a = c * u
    top = a ** c / math.factorial(c) / (1 - u)
    return top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)


def mmc_share(c_of):
    def share(m, shape, allowed):
        lo, hi = 0.0, 0.999
        for _ in range(40):
            mid = (lo + hi) / 2
            s = m.machine.at(cm.features(shape, 100.0, mid, m.beta_machine, m.rates))[0]
            c, pw = c_of(m), erlang_c(c_of(m), mid)
            wait = 0.0 if 100 * pw <= 1 else s / (c * (1 - mid)) * math.log(100 * pw)
            lo, hi = (mid, hi) if wait <= allowed else (lo, mid)
        return lo
    return share


def rule(share_of):
    """ceilings() with the cores' busy share from SHARE_OF(m, shape, allowed ms)."""
    def ceilings(m, shape, lat, ncores):
        out = ORIG(m, shape, lat, ncores)
        share = share_of(m, shape, lat.value + m.tail_ms)

        def demand(r, k):
            v = m.machine.at(cm.features(shape, r, share, m.beta_machine, m.rates))
            a = m.cpu.at(cm.features(shape, r, share, m.beta, m.rates, app=True))
            return max(v[k], a[k], 0.1 * v[0])
        out["cores"] = Figure(*(cm.cores_ceiling(lambda r, k=k: demand(r, k), share * ncores) for k in (0, 2, 1)))
        return out
    return ceilings


RULES = {"current": ORIG}
for c in (0.75, 0.8):
    RULES[f"floor {c}"] = rule(lambda m, sh, allowed, c=c: max(m.util_max, ORIG_UTIL(m, allowed), c))
RULES["const 0.8"] = rule(lambda m, sh, allowed: 0.8)
RULES["M/M/c"] = rule(mmc_share(lambda m: NCORES))
RULES["M/M/c, reactive M/M/1"] = rule(mmc_share(lambda m: 1 if m.series.startswith("reactive") else NCORES))



totals = {}
for cal_path, checks in PAIRS.items():
    raw = Calibration.read(cal_path, models=False)
    bounds = {x: m["bounds"] for x, m in Calibration.raw(cal_path)["series"].items()}
    cal = calibrate.fit(raw.facts, raw.trials, bounds)
    for name, ceilings in RULES.items():
        cm.ceilings = ceilings
        for check in checks:
            for r in json.load(open(check))["rows"]:
                m = cal.series.get(r["series"])
                if m is None or r["what"] != "max_rate" or not isinstance(r["measured"], (int, float)):
                    continue
                p = cm.predict(m, parse_shape(r["workload"].replace(" ", "")), 100.0, NCORES)
                q = p.max_rate.value / r["measured"]
                t = totals.setdefault(name, [0, 0, []])
                t[0] += abs(q - 1) <= 0.20
                t[1] += 1
                t[2].append(q)
                if len(sys.argv) > 2:
                    print(f"{name:22} {r['workload']:55} {r['series']:8} {p.bound:14} predicted "
                          f"{p.max_rate.value:6.0f} measured {r['measured']:6.0f} {q - 1:+.0%}")
cm.ceilings = ORIG
for name, (a, b, qs) in totals.items():
    qs.sort()
    print(f"{name:22} ceilings {a:2} of {b} within 20 %; predicted over measured: median {qs[len(qs) // 2]:.2f}, "
          f"quartiles {qs[len(qs) // 4]:.2f}-{qs[3 * len(qs) // 4]:.2f}")
