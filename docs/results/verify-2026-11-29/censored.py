"""The ceilings the checks before 2026-11-29 held, re-read: which were a first crossing measured from below, and which
were their sweep's first loaded step (0.9 x the prediction), an upper bound only (docs/advise.md, "Checked against
measurement"). Until 2026-11-29 a sweep started there, so a shape whose p99 had doubled lower still read as 0.9 x the
prediction, within 20 %. Each check also measured CPU at 0.2, 0.5 and 0.8 x the prediction, p99 with it: where every
trial at such a rate had over twice the sweep's unloaded p99, the first crossing lies at or below that rate, and the
prediction is at least 25 % over it (0.8 x). Run from the repository's root (its output is censored.txt beside it):
  load/.venv/bin/python docs/results/verify-2026-11-29/censored.py > docs/results/verify-2026-11-29/censored.txt"""
import sys

sys.path.insert(0, "load")
sys.path.insert(0, "docs/results/model-form-2026-11-28")
import forms  # noqa: E402
from harness.analysis.costrecords import Trial  # noqa: E402

CHECKS = ("cd06cd1^:docs/results/verify-first-2026-11-27/verify.json", "cd06cd1^:docs/results/verify-2026-11-27/verify.json",
          "ef3d7d4^:docs/results/verify-gross-2026-11-28/verify.json", "8e7e458:docs/results/verify-2026-11-28/verify.json",
          "006383e:docs/results/verify-confirmed-2026-11-28/verify.json",
          "006383e:docs/results/verify-repeat-2026-11-28/verify.json", "a563571:docs/results/verify-2026-11-28c/verify.json",
          "deb0649:docs/results/verify-2026-11-28d/verify.json", "325afb5:docs/results/verify-2026-11-28e/verify.json",
          "1cc9da3:docs/results/verify-2026-11-28f/verify.json")
DEFAULTS = {"delay": 100, "calls": 0, "fanout": 0, "queries": 0, "cpu": 0, "insert": 0}   # GET /scenarios, workload


def shape_of(label):
    """A row's workload label ('delay=50, calls=3') as the whole shape."""
    return {**DEFAULTS, **{k: int(v) for k, v in (kv.split("=") for kv in label.replace(" ", "").split(","))}}


def evidence(row, trials):
    """(first loaded sweep rate, the lowest CPU rate at which every trial crossed twice the unloaded p99 or None)."""
    sh = shape_of(row["workload"])
    mine = [t for t in trials if t.series == row["series"] and t.shape == sh]
    sweep = sorted((t for t in mine if t.kind == "sweep"), key=lambda t: t.rate)
    unloaded = row.get("unloaded_p99_ms") or sweep[0].p99_ms
    first = min(t.rate for t in sweep if t.rate > sweep[0].rate)
    crossed = [r for r in sorted({t.rate for t in mine if t.kind == "cpu"})
               if all(t.p99_ms is None or t.p99_ms > 2 * unloaded for t in mine if t.kind == "cpu" and t.rate == r)]
    return first, (crossed[0] if crossed else None)


def main():
    total = [0, 0, 0, 0, 0]
    for spec in CHECKS:
        doc = forms.git_json(spec)
        trials = Trial.of_json(doc["trials"])
        rows = [r for r in doc["rows"] if r["what"] == "max_rate"]
        held = [r for r in rows if r["pass"]]
        first_step, missed = [], []
        for r in held:
            first, at_most = evidence(r, trials)
            if r["measured"] <= first:
                first_step.append(r)
                if at_most is not None and at_most < first:
                    missed.append((r, at_most))
        total = [a + b for a, b in zip(total, (len(rows), len(held), len(first_step), len(missed),
                                              len(held) - len(first_step)))]
        print(f"{spec}: {len(rows)} ceilings, {len(held)} held; {len(first_step)} of them the first loaded step "
              f"(an upper bound), {len(missed)} of those crossed at or below 0.8 x already; held from below "
              f"{len(held) - len(first_step)}")
        for r, at in missed:
            print(f"  {r['workload']} {r['series']}: predicted {r['predicted']:g}, read {r['measured']:g}, "
                  f"every CPU trial at {at:g} req/s crossed")
    n, held, first, missed, below = total
    print(f"\nevery check: {n} ceilings, {held} held; {first} of them the first loaded step (an upper bound), {missed} of "
          f"those crossed at or below 0.8 x already (missed by over 25 %); {below} held as a first crossing from below")


if __name__ == "__main__":
    main()
