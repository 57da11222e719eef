"""How fast three fresh apps' JIT calms under compare's warm-up load (each app at 1/3 of each
step's rate, ramped over three 3-s rounds) scaled by FACTOR: 3-s rounds until every app's JIT
used at most 5 % of a core in two rounds running (at most MOST_S), logging each round."""
import contextlib, json, os, sys, time
sys.path.insert(0, "load")  # from the repository: load/.venv/bin/python THIS FACTOR 400 OUT
import psutil
from harness.infra.procs import Procs, log
from harness.runs.costbench import Bench, jit_ms, _cpu_s, _busy_s
from harness.runs.calibrate import shape

SERIES = ("virtual", "worker", "reactive")
SH = shape(calls=2, fanout=2, queries=1, delay=25)
RATES = (150.0, 500.0)
factor, most_s, out = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
rows = []
with Procs() as ps, contextlib.closing(Bench(SERIES, out, ps)) as b:
    b.start()
    apps = [b.apps[x] for x in SERIES]
    pr = {a.series: psutil.Process(a.pid) for a in apps}
    t0, k, quiet = time.monotonic(), 0, 0
    d = os.path.join(out, "logs", "warm")
    os.makedirs(d, exist_ok=True)
    while time.monotonic() - t0 < most_s and quiet < 2:
        k += 1
        j0 = {x: jit_ms(p) for x, p in pr.items()}
        c0 = {x: _cpu_s(p) for x, p in pr.items()}
        m0, w0 = _busy_s(), time.monotonic()
        running = [b.send(a.series, SH, r / 3 * factor * min(k, 3) / 3, 3000,
                          os.path.join(d, f"{a.series}-{i}-{k}")) for a in apps for i, r in enumerate(RATES)]
        for p in running:
            p.wait(30)
            ps.forget(p)
        w = time.monotonic() - w0
        jit = {x: round((jit_ms(p) - j0[x]) / 10 / w, 1) for x, p in pr.items()}
        cpu = {x: round((_cpu_s(p) - c0[x]) * 100 / w, 1) for x, p in pr.items()}
        busy = round((_busy_s() - m0) * 100 / w, 1)
        quiet = quiet + 1 if k >= 3 and max(jit.values()) <= 5 else 0
        rows.append(dict(round=k, t=round(time.monotonic() - t0, 1), jit=jit, cpu=cpu, busy=busy,
                         jit_total_s={x: round(jit_ms(p) / 1000, 1) for x, p in pr.items()}))
        log(f"x{factor} round {k} t {rows[-1]['t']} s: JIT % of a core {jit}, app CPU % {cpu}, machine {busy} %")
    json.dump(dict(factor=factor, rows=rows), open(os.path.join(out, "warmjit.json"), "w"), indent=0)
