"""advise's answer time, as a user waits for it: the installed command (`load/.venv/bin/vtvr-harness advise --workload
'calls=3,delay=50,queries=2' --rate 800 --calibration` the committed one), interleaved run by run with the same command
importing scipy first, as advise did before its t quantiles came from costrecords.t_quantile. Wall-clock seconds of
each whole process, from its start to its exit, one of each per round; the first round of each is a warm-up of the
file cache, reported but not counted.
Run from the repository's root: load/.venv/bin/python docs/results/advise-timing-2026-12-07/timing.py > timing.txt
(writes runs.json beside it)"""
import json
import os
import statistics
import subprocess
import sys
import time

ROUNDS = 22
ARGS = ["advise", "--workload", "calls=3,delay=50,queries=2", "--rate", "800",
        "--calibration", "docs/results/calibrate-2026-12-07/calibration.json"]
COMMANDS = {
    "advise": ["load/.venv/bin/vtvr-harness", *ARGS],
    "advise, scipy imported first": [
        "load/.venv/bin/python", "-c",
        ("import sys, scipy.stats; from harness.cli import main; sys.argv[0] = 'vtvr-harness'; "
         "raise SystemExit(main())"), *ARGS],
}


def once(cmd):
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    runs = {k: [] for k in COMMANDS}
    for _ in range(ROUNDS + 1):
        for name, cmd in COMMANDS.items():
            runs[name].append(round(once(cmd), 4))
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "runs.json"), "w") as f:
        json.dump({"rounds": ROUNDS, "commands": COMMANDS, "seconds": runs}, f, indent=1)
    for name, s in runs.items():
        counted = s[1:]
        print(f"{name:30} median {statistics.median(counted):.2f} s over {len(counted)} runs "
              f"(range {min(counted):.2f}-{max(counted):.2f}; the warm-up run {s[0]:.2f})")


if __name__ == "__main__":
    sys.exit(main())
