"""Two forms of the rate's effect on a request's CPU, each refitted on a calibration's own trials and asked every
check (advise --verify) measured against that calibration (docs/advise.md, "The model in one screen"):

  busy   the operations' costs x (1 + beta x (1 - u)), u the machine's busy share, every rate term held to the
         calibrated rates (harness.analysis.costmodel, in use)
  power  the operations' costs x (rate / 1,000) ^ -k, k fitted on a grid as beta is; the rate not held (the
         per-second term neither): a request's CPU keeps falling past the calibrated rates, as the checks' sweeps
         measured (0.49 ms at 440 req/s to 0.18 at 5,500, virtual, verify-2026-11-29)
  free   busy, the rate not held to the calibrated rates (the per-second term falls on past them)
  flight the operations' costs x (1 + beta / (1 + requests in flight)), in flight = rate x the shape's waits: more
         requests waiting, more events per wake-up (the checks' shapes wait longer than the calibration's)
  both   busy, its idle surcharge x (1 + requests in flight) ^ -0.2

Run from the repository's root: load/.venv/bin/python docs/results/model-rate-2026-12-07/rate.py > rate.txt"""
import json
import sys

sys.path.insert(0, "load")
from harness.analysis import costmodel as cm  # noqa: E402
from harness.analysis.costmodel import Calibration  # noqa: E402
from harness.runs import calibrate  # noqa: E402

PAIRS = {
    "docs/results/calibrate-2026-11-29/calibration.json": (
        "docs/results/verify-2026-11-29/verify.json", "docs/results/verify-2026-11-29b/verify.json",
        "docs/results/verify-2026-11-29c/verify.json"),
    "docs/results/calibrate-2026-12-01/calibration.json": ("docs/results/verify-2026-12-01/verify.json",),
}
NCORES = 2
FORMS = sys.argv[1:] or ("busy", "power", "free", "flight", "both")
KS = tuple(k / 40 for k in range(41))   # 0 to 1
BUSY = cm.features, cm.BETAS


def power_features(shape, rate, u, k, rates=None, app=False):
    *parts, mdiv = cm.work(shape)
    scale = (max(rate, 1.0) / 1000) ** -k
    waits = [cm.planned_wait_ms(shape) / 1000] if app else []
    return [p * scale for p in parts] + [mdiv, 1000 / max(rate, 1e-3)] + waits


def free_features(shape, rate, u, beta, rates=None, app=False):
    return BUSY[0](shape, rate, u, beta, None, app)


def in_flight(shape, rate):
    return rate * (cm.planned_wait_ms(shape) + 5) / 1000


def flight_features(shape, rate, u, beta, rates=None, app=False):
    *parts, mdiv = cm.work(shape)
    scale = 1 + beta / (1 + in_flight(shape, rate))
    held = min(max(rate, rates[0]), rates[1]) if rates else rate
    waits = [cm.planned_wait_ms(shape) / 1000] if app else []
    return [p * scale for p in parts] + [mdiv, 1000 / max(held, 1e-3)] + waits


def both_features(shape, rate, u, beta, rates=None, app=False):
    f = BUSY[0](shape, rate, u, beta, rates, app)
    n = len(cm.PARTS)
    busy = 1 + beta * (1 - min(max(u, 0.0), 1.0))
    flight = (1 + in_flight(shape, rate)) ** -0.2
    return [x / busy * (1 + beta * (1 - min(max(u, 0.0), 1.0)) * flight) for x in f[:n]] + f[n:]


def use(form):
    cm.features, cm.BETAS = {"busy": BUSY, "power": (power_features, KS), "free": (free_features, BUSY[1]),
                             "flight": (flight_features, BUSY[1] + tuple(range(11, 61))),
                             "both": (both_features, BUSY[1])}[form]


def shape_of(label):
    sh = {k: 0 for k in cm.SHAPE_KEYS}
    for item in label.split(", "):
        k, v = item.split("=")
        sh[k] = int(v)
    return sh


def main():
    totals = {}
    for cal_path, checks in PAIRS.items():
        raw = Calibration.read(cal_path, models=False)
        bounds = {x: m["bounds"] for x, m in Calibration.raw(cal_path)["series"].items()}
        for form in FORMS:
            use(form)
            cal = calibrate.fit(raw.facts, raw.trials, bounds)
            ks = ", ".join(f"{x} {m.beta:g}/{m.beta_machine:g}" for x, m in cal.series.items())
            print(f"{cal_path} {form}: {'k' if form == 'power' else 'beta'} (app/machine) {ks}")
            for check in checks:
                with open(check) as f:
                    rows = json.load(f)["rows"]
                cpu_ok = cpu_n = ceil_ok = ceil_n = 0
                errs = []
                for r in rows:
                    m = cal.series.get(r["series"])
                    if m is None or r["measured"] is None:
                        continue
                    sh = shape_of(r["workload"])
                    if r["what"] == "cpu_ms_per_req":
                        p = cm.predict(m, sh, r["rate"], NCORES).cpu_ms_per_req.value
                        e = p / r["measured"] - 1
                        errs.append(abs(e))
                        cpu_n += 1
                        cpu_ok += abs(e) <= 0.15
                    elif r["what"] == "max_rate" and isinstance(r["measured"], (int, float)):
                        p = cm.predict(m, sh, 100.0, NCORES).max_rate.value
                        ceil_n += 1
                        ceil_ok += abs(p / r["measured"] - 1) <= 0.20
                errs.sort()
                med = errs[len(errs) // 2] if errs else float("nan")
                print(f"  {check:50} CPU {cpu_ok:2}/{cpu_n} within 15 % (median |error| {med:.3f}), "
                      f"ceilings {ceil_ok:2}/{ceil_n} within 20 %")
                t = totals.setdefault(form, [0, 0, 0, 0])
                t[0] += cpu_ok
                t[1] += cpu_n
                t[2] += ceil_ok
                t[3] += ceil_n
    use("busy")
    for form, (a, b, c, d) in totals.items():
        print(f"all checks, {form:5}: CPU {a} of {b} within 15 %, ceilings {c} of {d} within 20 %")


if __name__ == "__main__":
    main()
