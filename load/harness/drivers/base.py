"""The load drivers' one interface (docs/harness.md, the picture): send a request shape to a URL at
a rate (open model) or with a number in flight (closed model) for a duration, then read one Result.
A new driver: a module with a class of this shape (name, model, start, finish, result), a test."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from hdrh.histogram import HdrHistogram

HIGHEST_MS = 3_600_000   # an hour: longer than any request the harness waits for


@dataclass(frozen=True)
class Target:
    """One request as every driver sends it."""
    method: str
    url: str
    body: str = ""


@dataclass(frozen=True)
class Load:
    """How much, how long: LEVEL requests/s (model "rate") or in flight (model "concurrency")."""
    level: int
    duration_ms: int
    timeout_s: float = 10.0
    extra: tuple = ()          # the tool's own extra flags (a scale level's connections, h2c, ...)
    ramp_ms: int = 0           # the first RAMP_MS: a ramp-in, not measured (Hyperfoil: a phase)


@dataclass
class Result:
    """What a driver measured: latencies (all, successes), status counts, errors, send rate."""
    tool: str
    requests: int = 0
    status: dict = field(default_factory=dict)      # "200" -> count; "0" for no answer
    errors: dict = field(default_factory=dict)      # error text -> count
    all_ms: HdrHistogram = field(default_factory=lambda: histogram())    # measured: after a ramp-in
    ok_ms: HdrHistogram = field(default_factory=lambda: histogram())     # the successes among them
    every_ms: HdrHistogram = field(default_factory=lambda: histogram())  # all, the ramp-in's too
    max_ms: float | None = None                     # exact, of the measured requests
    sum_ms: float = 0.0
    send_rate: float | None = None                  # requests/s the tool sent (None: closed model)

    @property
    def ok(self):
        return self.ok_ms.get_total_count()

    def record(self, ms, ok, measured=True):
        # microseconds: sub-millisecond answers keep their size
        v = min(max(1, round(ms * 1000)), HIGHEST_MS * 1000)
        self.every_ms.record_value(v)
        if not measured:
            return
        self.requests += 1
        self.all_ms.record_value(v)
        self.max_ms, self.sum_ms = max(self.max_ms or 0.0, ms), self.sum_ms + ms
        if ok:
            self.ok_ms.record_value(v)

    def percentile_ms(self, p, ok_only=True, histogram=None):
        h = histogram or (self.ok_ms if ok_only else self.all_ms)
        return h.get_value_at_percentile(p) / 1000 if h.get_total_count() else None

    @property
    def mean_ms(self):
        return self.sum_ms / self.requests if self.requests else None


def histogram():
    return HdrHistogram(1, HIGHEST_MS * 1000, 3)


def is_loopback(url):
    return re.match(r"https?://(127\.0\.0\.1|localhost|\[::1\])[:/]", url + "/") is not None


def loopback_source(url):
    """A fresh source address 127.0.0.2-251 for a loopback URL (its own ephemeral ports: one heavy
    run's TIME_WAIT sockets spare the next run's); None for another host, which it cannot reach."""
    return f"127.0.0.{2 + int.from_bytes(os.urandom(1)) % 250}" if is_loopback(url) else None
