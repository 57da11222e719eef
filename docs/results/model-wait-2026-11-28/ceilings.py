"""The ceilings the cores set for shapes that wait (delay calls or a fan-out, no CPU kernel, no insert) on the last three
checks, measured over predicted as each verify.json records them, and how many would have come within 20 % had every
prediction been multiplied by the median ratio (docs/advise.md, "Checked against measurement"). Run from the
repository's root (its output is ceilings.txt beside it):
  load/.venv/bin/python docs/results/model-wait-2026-11-28/ceilings.py > docs/results/model-wait-2026-11-28/ceilings.txt"""
import json
import statistics
import subprocess

CHECKS = ("325afb5:docs/results/verify-2026-11-28e/verify.json", "1cc9da3:docs/results/verify-2026-11-28f/verify.json",
          "docs/results/verify-2026-11-29/verify.json")


def rows(spec):
    if ":" in spec:
        return json.loads(subprocess.run(["git", "show", spec], capture_output=True, text=True, check=True).stdout)["rows"]
    with open(spec) as f:
        return json.load(f)["rows"]


def waiting(workload):
    sh = {k: int(v) for k, v in (kv.split("=") for kv in workload.replace(" ", "").split(","))}
    return sh.get("calls", 0) + sh.get("fanout", 0) > 0 and not (sh.get("cpu", 0) or sh.get("insert", 0))


def main():
    ratios = []
    for spec in CHECKS:
        mine = [(r["workload"], r["series"], r["measured"] / r["predicted"] if r["measured"] else None)
                for r in rows(spec) if r["what"] == "max_rate" and r["bound"] == "cores" and waiting(r["workload"])]
        known = [x for *_, x in mine if x is not None]
        print(f"{spec}: {len(mine)} ceilings, measured / predicted " + ", ".join(
            f"{w} {s} {x:.2f}" if x is not None else f"{w} {s} not reached" for w, s, x in mine))
        print(f"  median {statistics.median(known):.2f}, range {min(known):.2f}-{max(known):.2f}")
        ratios += [x for *_, x in mine]   # not reached: above 3x the prediction, outside 20 % either way
    k = statistics.median([x for x in ratios if x is not None])
    for factor in (1.0, k):
        held = sum(1 for x in ratios if x is not None and abs(factor / x - 1) <= 0.20)
        print(f"predictions x {factor:.2f}: {held} of {len(ratios)} within 20 %")


if __name__ == "__main__":
    main()
