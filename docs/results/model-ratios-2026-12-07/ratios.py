"""How well advise's prediction ranks the series, against how well it predicts each one's CPU per request: every
committed `compare --workload` run that set advise's prediction beside its measurement (the table in its
summary.md: per series and rate, the CPU per request predicted before the run and the median measured), the
prediction as it was made then (each run's own calibration). Per rate of a run: each series' error (predicted over
measured, minus one); each pair's ratio error (predicted ratio over measured ratio, minus one); whether the series
predicted cheapest was the cheapest measured; and, for each pair predicted 15 % or more apart, whether the
measurement had them the same way round. Nothing measured here. Run from the repository's root (into ratios.txt):
python3 docs/results/model-ratios-2026-12-07/ratios.py"""
import glob
import itertools
import re
import statistics

ROW = re.compile(r"^\| (\S+) \| ([\d.]+) \| ([\d.]+) \[[^\]]*\] \| ([\d.]+) \|", re.M)
APART = 1.15


def points():
    """{(run, rate): {series: (predicted, measured)}} of every run's prediction table."""
    out = {}
    for path in sorted(glob.glob("docs/results/workload-*/summary.md")):
        with open(path) as f:
            text = f.read()
        if "prediction beside the measurement" not in text:
            continue
        table = text.split("prediction beside the measurement", 1)[1].split("\n## ", 1)[0]
        for m in ROW.finditer(table):
            out.setdefault((path.split("/")[2], float(m[2])), {})[m[1]] = (float(m[3]), float(m[4]))
    return out


def summary(name, errors):
    within = sum(abs(e) <= 0.15 for e in errors)
    print(f"{name}: {within} of {len(errors)} within 15 %, {statistics.median(map(abs, errors)) * 100:.0f} % "
          f"off in the median, up to {max(map(abs, errors)) * 100:.0f} %")


def main():
    pts = points()
    absolute, ratio = [], []
    right = ranked = apart = same = 0
    for (run, rate), s in pts.items():
        absolute += [p / m - 1 for p, m in s.values()]
        line = []
        for a, b in itertools.combinations(sorted(s), 2):
            (pa, ma), (pb, mb) = s[a], s[b]
            ratio.append((pa / pb) / (ma / mb) - 1)
            line.append(f"{a}/{b} {pa / pb:.2f} predicted, {ma / mb:.2f} measured")
            if pa / pb >= APART or pb / pa >= APART:
                apart += 1
                same += (pa > pb) == (ma > mb)
        if len(s) > 1:
            ranked += 1
            cheapest = min(s, key=lambda k: s[k][0]), min(s, key=lambda k: s[k][1])
            right += cheapest[0] == cheapest[1]
            line.append(f"cheapest {cheapest[0]} predicted, {cheapest[1]} measured")
        print(f"{run} at {rate:g} req/s: " + "; ".join(line))
    print(f"\n{len({r for r, _ in pts})} runs, {len(pts)} rates")
    summary("CPU per request of a series", absolute)
    summary("ratio of two series' CPU per request", ratio)
    print(f"the series predicted cheapest was the cheapest measured at {right} of {ranked} rates; of {apart} pairs "
          f"predicted {APART - 1:.0%} or more apart, {same} were measured the same way round")


if __name__ == "__main__":
    main()
