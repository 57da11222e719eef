"""Within one run: what compare's in-step /q/metrics scrapes (every 0.5 s) add to the app's CPU
per request, against the same trial unscraped, interleaved, per series; and the idle estimate
compare subtracts nothing of (sample --scrape-cost, one cold app at start)."""
import contextlib, json, os, random, sys, time
sys.path.insert(0, "load")
import psutil
from harness.infra.procs import Procs, log
from harness.runs.costbench import Bench
from harness.runs.calibrate import shape
from harness.sampling.sample import Scraper, scrape_cost
from harness.runs.system import metrics_url

SERIES = ("virtual", "worker", "reactive")
SH = shape(queries=4)
RATE, SECS, ROUNDS = float(sys.argv[1]), 10.0, int(sys.argv[2])
out = sys.argv[3]
rng = random.Random(int(sys.argv[4]))
rows = []
with Procs() as ps, contextlib.closing(Bench(SERIES, out, ps, SECS)) as b:
    b.start()
    cold = {x: scrape_cost(psutil.Process(b.apps[x].pid), metrics_url(b.apps[x].url, x)) for x in SERIES}
    log(f"cold idle scrape ms {cold}")
    b.warm(((SH, RATE),), most_s=150, jit_pct=5)
    for r in range(ROUNDS):
        order = [(x, on) for x in SERIES for on in (0, 1)]
        rng.shuffle(order)
        for x, on in order:
            sc = None
            if on:
                sc = Scraper(metrics_url(b.apps[x].url, x), 0.5); sc.start()
            t = b.trial(x, SH, RATE, seconds=SECS)
            n_scr = 0
            if sc:
                sc.stop.set(); sc.join(); n_scr = sc.count
            net = t.app_ms - t.jit_pct * 10 * SECS / max(t.requests, 1)
            rows.append(dict(round=r, series=x, scraped=on, app_ms=t.app_ms, jit=t.jit_pct, net=net,
                             n=t.requests, scrapes=n_scr, speed=t.speed_us))
            log(f"r{r} {x} scrape={on} net {net:.3f} gross {t.app_ms:.3f} jit {t.jit_pct}% scrapes {n_scr}")
    warm = {x: scrape_cost(psutil.Process(b.apps[x].pid), metrics_url(b.apps[x].url, x)) for x in SERIES}
    log(f"warm idle scrape ms {warm}")
json.dump(dict(rate=RATE, secs=SECS, cold=cold, warm=warm, rows=rows), open(os.path.join(out, "scrape.json"), "w"), indent=1)
