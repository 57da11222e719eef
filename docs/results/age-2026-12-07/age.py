"""An aging app: CPU per request at 150 req/s of workload g over ~10 min after compare's warm-up,
split by thread group (from /proc/PID/task/*/stat), per series, interleaved in random order."""
import contextlib, json, os, random, re, sys, time
sys.path.insert(0, "load")  # from the repository: load/.venv/bin/python THIS 16 OUT 4242
from harness.infra.procs import Procs, log
from harness.runs.costbench import Bench
from harness.runs.calibrate import shape

SERIES = ("virtual", "worker", "reactive")
SH = shape(calls=2, fanout=2, queries=1, delay=25)
RATE, SECS, ROUNDS = 150.0, 10.0, int(sys.argv[1])
out = sys.argv[2]
rng = random.Random(int(sys.argv[3]))
TICK = os.sysconf("SC_CLK_TCK")

def groups(pid):
    g = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            st = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        f = st[st.rindex(")") + 2:].split()
        name = re.sub(r"[0-9#-]+$", "", re.sub(r"\d+", "N", comm))
        u, s = int(f[11]), int(f[12])
        a = g.setdefault(name, [0, 0])
        a[0] += u; a[1] += s
    return g

rows = []
with Procs() as ps, contextlib.closing(Bench(SERIES, out, ps, SECS)) as b:
    b.start()
    b.warm(((SH, RATE), (SH, 500.0)), most_s=150, jit_pct=5)
    t_start = time.monotonic()
    for r in range(ROUNDS):
        order = list(SERIES); rng.shuffle(order)
        for x in order:
            pid = b.apps[x].pid
            g0 = groups(pid)
            t = b.trial(x, SH, RATE, seconds=SECS)
            g1 = groups(pid)
            n = max(t.requests, 1)
            d = {k: [(g1[k][0] - g0.get(k, [0, 0])[0]) * 1000 / TICK / n,
                     (g1[k][1] - g0.get(k, [0, 0])[1]) * 1000 / TICK / n] for k in g1}
            d = {k: [round(v[0], 4), round(v[1], 4)] for k, v in d.items() if v[0] + v[1] > 0}
            rows.append(dict(round=r, series=x, age_s=round(time.monotonic() - t_start), app_ms=t.app_ms,
                             jit=t.jit_pct, n=t.requests, speed=t.speed_us, groups=d))
            top = sorted(d.items(), key=lambda kv: -sum(kv[1]))[:6]
            log(f"r{r} {x} app {t.app_ms:.3f} jit {t.jit_pct}% " + " ".join(f"{k}:{v[0]:.2f}+{v[1]:.2f}" for k, v in top))
            json.dump(dict(rate=RATE, secs=SECS, rows=rows), open(os.path.join(out, "age.json"), "w"), indent=0)
