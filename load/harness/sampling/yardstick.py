"""The machine's speed before each trial (Yardstick.java, docs/statistics.md "The machine's speed"):
the CPU microseconds of one fixed unit of work, measured while no series is loaded. On a shared
host CPU per request drifts with the machine; a trial is set against the yardstick read before."""
import contextlib
import os
import statistics
import subprocess

from harness.infra.procs import log

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Yardstick.java")
# per trial: about 7,000 units here, so the median moves well under 1 % between two readings
MEASURE_MS = 300
# the reading of this project's machine (2 vCPUs, AMD EPYC) through its calibration of 2026-11-29
# 15:02 (docs/results/calibrate-2026-11-29c: 36.3-36.8 us in each quarter), where the fault checks'
# limits held; on 2026-12-01 the same machine read 64-111 us idle
REFERENCE_US = 36.5


class Yardstick:
    """A small JVM (Java's source launcher), idle between readings, stopped with the run."""

    def __init__(self, java):
        try:
            self.proc = subprocess.Popen(
                [java, "-Xmx64m", "-XX:+UseSerialGC", SOURCE], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
            ready = self.proc.stdout.readline().strip() == "ready"
        except OSError:
            self.proc, ready = None, False
        if not ready:
            self.stop()
            log("WARNING: the yardstick did not start; "
                "trials go without the machine's speed (speed_us null)")

    def unit_us(self, ms=MEASURE_MS):
        """The median CPU microseconds of one unit over MS of work, or None."""
        if not self.proc or self.proc.poll() is not None:
            return None
        try:
            self.proc.stdin.write(f"{ms}\n")
            self.proc.stdin.flush()
            _, median_ns, _ = self.proc.stdout.readline().split()
            return round(int(median_ns) / 1000, 3)
        except (OSError, ValueError):
            return None

    def stop(self):
        if self.proc and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


def read(java, readings=5):
    """The median of READINGS readings of a yardstick started for them, or None."""
    y = Yardstick(java)
    try:
        xs = [u for u in (y.unit_us() for _ in range(readings)) if u]
    finally:
        y.stop()
    return statistics.median(xs) if xs else None


def stretch(speed_us, reference_us=REFERENCE_US):
    """How much longer a timed limit set at REFERENCE_US gives a machine whose yardstick reads
    SPEED_US: their ratio, at least 1 (a faster machine keeps the limit); 1 without a reading."""
    if not speed_us or not reference_us:
        return 1.0
    return round(max(1.0, speed_us / reference_us), 2)
