"""hey, the closed-model driver: N requests in flight finds saturation throughput, but its latencies
hide the queue (docs/harness.md). PREFIX.csv holds the answered requests; the log a text summary."""
from __future__ import annotations

from harness.drivers.base import Result
from harness.infra.numbers import percentile


class Hey:
    name, model = "hey", "concurrency"

    def __init__(self, binary):
        self.binary = binary

    def start(self, ps, target, load, prefix, *, log_path=None, **_):
        """Starts hey, LOAD.level in flight for LOAD.duration_ms -> its Proc; CSV to PREFIX.csv."""
        body = ["-T", "application/json", "-d", target.body] if target.body else []
        argv = [self.binary, "-z", f"{load.duration_ms}ms", "-c", str(load.level),
                "-t", str(max(1, round(load.timeout_s))), "-m", target.method, *body, *load.extra,
                "-o", "csv", target.url]
        with open(prefix + ".csv", "w") as out:
            return ps.start("hey", argv, log_path=log_path, stdout=out)

    def finish(self, prefix, log_path=None):
        """The summary line of PREFIX.csv in LOG_PATH, as `load/hey.sh` prints it."""
        if log_path:
            with open(log_path, "a") as f:
                f.write("\n".join(summary(prefix + ".csv")) + "\n")
        return self.result(prefix)

    def result(self, prefix, ramp_in_s=0.0):
        res = Result("hey")
        for ms, code, _ in rows(prefix + ".csv"):
            res.status[str(code)] = res.status.get(str(code), 0) + 1
            res.record(ms, 200 <= code < 400)
        return res


def rows(path):
    """-> list of (latency ms, status, end offset s) of the answered requests in a hey CSV
    (plain split(): a fast error flood can leave millions of rows)."""
    out = []
    try:
        f = open(path)
    except OSError:
        return out
    with f:
        head = f.readline().strip().split(",")
        try:
            i_lat, i_code, i_off = (head.index("response-time"), head.index("status-code"),
                                    head.index("offset"))
        except ValueError:
            return out
        for line in f:
            r = line.split(",")
            try:
                lat = float(r[i_lat])
                out.append((lat * 1000.0, int(r[i_code]), float(r[i_off]) + lat))
            except (IndexError, ValueError):
                continue
    return out


def summary(path):
    """The lines load/hey.sh prints (`vtvr-harness report hey-summary`), ending a hey step's log:
    requests, throughput, status counts and latency percentiles of the answered requests at PATH."""
    rows_ = rows(path)
    if not rows_:
        return ["no answered requests"]
    lats, elapsed = sorted(r[0] for r in rows_), max(r[2] for r in rows_)
    codes = {}
    for r in rows_:
        codes[r[1]] = codes.get(r[1], 0) + 1
    return [f"requests {len(rows_)}  elapsed {elapsed:.2f}s  {len(rows_) / elapsed:.1f} req/s  "
            f"status {' '.join(f'{c}:{n}' for c, n in sorted(codes.items()))}",
            "latency ms: " + "  ".join(f"{n} {percentile(lats, p):.2f}" for n, p in
                                       (("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9))) +
            f"  max {lats[-1]:.2f}"]
