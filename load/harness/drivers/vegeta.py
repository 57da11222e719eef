"""Vegeta, the open-model driver: a fixed rate whatever the server does, so queueing shows as
latency (no coordinated omission). The one module that starts `vegeta attack`; results go to
PREFIX.bin (raw), PREFIX.json (its report) and a text report in the log."""
from __future__ import annotations

import csv
import io
import json
import subprocess

from harness.drivers.base import Result, loopback_source


class Vegeta:
    name, model = "vegeta", "rate"

    def __init__(self, binary):
        self.binary = binary

    @staticmethod
    def write_targets(path, targets, body_prefix=None):
        """A Vegeta target file of TARGETS (drivers.base.Target); bodies in BODY_PREFIX-N.json."""
        lines = []
        for i, t in enumerate(targets):
            lines.append(f"{t.method} {t.url}")
            if t.body:
                body_path = f"{body_prefix or path}-{i}.json"
                with open(body_path, "w") as f:
                    f.write(t.body)
                lines += ["Content-Type: application/json", f"@{body_path}"]
            lines.append("")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self, ps, target, load, prefix, *, log_path=None, targets_file=None, name=None,
              interval=None):
        """Sends TARGET (or TARGETS_FILE's requests) at LOAD.level req/s for LOAD.duration_ms (None:
        until stopped) -> its Proc; raw results to PREFIX.bin. INTERVAL: the rate is per INTERVAL
        (e.g. '1s') instead of per second."""
        if targets_file is None:
            targets_file = prefix + ".targets"
            self.write_targets(targets_file, [target], prefix + "-body")
        url = target.url if target else _first_url(targets_file)
        source = loopback_source(url)
        argv = [self.binary, "attack", "-targets", targets_file,
                "-rate", f"{max(1, int(load.level))}/{interval or '1s'}",
                "-timeout", f"{load.timeout_s:g}s", "-output", prefix + ".bin",
                *(["-laddr", source] if source else []),
                *(["-duration", f"{load.duration_ms}ms"] if load.duration_ms else []),
                *(["-name", name] if name else []), *load.extra]
        return ps.start(f"vegeta {name or ''}".strip(), argv, log_path=log_path)

    def report(self, *bins):
        """Vegeta's own JSON report of one or more raw result files ({} when it has none)."""
        r = subprocess.run([self.binary, "report", "-type", "json", *bins], capture_output=True,
                           text=True)
        try:
            return json.loads(r.stdout)
        except ValueError:
            return {}

    def finish(self, prefix, log_path=None):
        """PREFIX.json (the JSON report) and the text report in LOG_PATH, as load/vegeta.sh does."""
        rep = self.report(prefix + ".bin")
        with open(prefix + ".json", "w") as f:
            json.dump(rep, f)
        if log_path:
            text = subprocess.run([self.binary, "report", "-type", "text", prefix + ".bin"],
                                  capture_output=True, text=True).stdout
            with open(log_path, "a") as f:
                f.write(text)
        return rep

    def encode(self, bin_path, to="csv"):
        with open(bin_path, "rb") as f:
            out = subprocess.run([self.binary, "encode", "-to", to], stdin=f, capture_output=True,
                                 check=False)
        return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else None

    def result(self, prefix, ramp_in_s=0.0):
        """The Result of PREFIX.bin: the requests sent after the first RAMP_IN_S seconds (status
        counts and errors of every request)."""
        text = self.encode(prefix + ".bin")
        return from_csv(text or "", ramp_in_s)


def from_csv(text, ramp_in_s=0.0):
    """A Result from `vegeta encode -to csv` (timestamp ns, code, latency ns, bytes out, bytes in,
    error, ...); a success as Vegeta counts one: a 2xx/3xx status without an error."""
    sent = [(int(r[0]), int(r[1]), int(r[2]) / 1e6, r[5]) for r in csv.reader(io.StringIO(text))
            if len(r) >= 6]
    res = Result("vegeta")
    for _, code, _, err in sent:
        res.status[str(code)] = res.status.get(str(code), 0) + 1
        if err:
            res.errors[err] = res.errors.get(err, 0) + 1
    start = min((t for t, *_ in sent), default=0) + ramp_in_s * 1e9
    for t, code, ms, err in sent:
        res.record(ms, 200 <= code < 400 and not err, measured=t >= start)
    if len(sent) > 1:
        span = (max(t for t, *_ in sent) - min(t for t, *_ in sent)) / 1e9
        res.send_rate = (len(sent) - 1) / span if span > 0 else None
    return res


def _first_url(targets_file):
    with open(targets_file) as f:
        for line in f:
            if line.strip():
                return line.split()[1]
    return ""
