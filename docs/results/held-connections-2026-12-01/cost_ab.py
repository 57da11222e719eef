"""CPU per request of the app, jar before (base) and after (new) PooledCalls, alternated: io with 4 calls of 1 ms.
As run on 2026-12-01 (README.md here): the jars in /tmp/app-base and /tmp/app-new, MariaDB from load/db.sh start."""
import json
import os
import subprocess
import time
import urllib.request

import psutil

VEG = os.path.expanduser("~/.cache/vt-vs-reactive/bin/vegeta")
JAVA = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
PORT, RATE, SECS = 8090, 600, 20
PATH = "io?delay=1&calls=4"
def attack(mode, secs, rate=RATE):
    t = f"GET http://127.0.0.1:{PORT}/{mode}/{PATH}\n"
    p = subprocess.run(f"{VEG} attack -rate {rate}/1s -duration {secs}s | {VEG} report -type json", shell=True,
                       input=t, capture_output=True, text=True)
    return json.loads(p.stdout)
out = []
for rep in range(3):
    for jar in (("base", "new") if rep % 2 == 0 else ("new", "base")):
        app = subprocess.Popen([JAVA, "-XX:+UseParallelGC", f"-Dquarkus.http.port={PORT}", "-jar",
                                f"/tmp/app-{jar}/quarkus-run.jar"], stdout=open(f"/tmp/cost-{jar}-{rep}.log", "w"),
                               stderr=subprocess.STDOUT)
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{PORT}/q/health/ready", timeout=1)
                break
            except Exception:
                time.sleep(0.5)
        proc = psutil.Process(app.pid)
        for mode in ("virtual", "reactive", "virtual", "reactive"):
            attack(mode, 8)
        for mode in ("virtual", "reactive"):
            c0 = sum(proc.cpu_times()[:2])
            r = attack(mode, SECS)
            c1 = sum(proc.cpu_times()[:2])
            row = {"rep": rep, "jar": jar, "mode": mode, "requests": r["requests"], "success": r["success"],
                   "cpu_ms_per_req": round((c1 - c0) * 1000 / r["requests"], 4),
                   "p50_ms": round(r["latencies"]["50th"] / 1e6, 2)}
            out.append(row)
            print(json.dumps(row), flush=True)
        app.terminate()
        app.wait(30)
json.dump(out, open("/tmp/cost-ab.json", "w"))
