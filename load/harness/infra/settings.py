"""The environment variables the harness reads: documented overrides only (docs/harness.md
"Environment"), read once into ENV; and compare's settings with no flag (SET_ONLY). Every other
option is a flag; nothing here writes the environment (a child process gets its own env= dict)."""
from __future__ import annotations

import os
from dataclasses import dataclass, fields

# name -> (field, default): what each override changes
OVERRIDES = {
    "APP_PORT": ("app_port", ""),        # the app's port [compare: 8080 unless busy; others: free]
    "DELAY_PORT": ("delay_port", ""),    # the delay service's [compare: 8081; likewise]
    "DB_PORT": ("db_port", ""),          # MariaDB's (load/db.sh) [compare: 3306; others: free]
    "QUARKUS_DATASOURCE_JDBC_URL": ("jdbc_url", ""),  # your own database (both URLs, or neither)
    "QUARKUS_DATASOURCE_REACTIVE_URL": ("reactive_url", ""),
    "VTVR_CACHE": ("cache", ""),  # tools and MariaDB [$XDG_CACHE_HOME or ~/.cache]/vt-vs-reactive
    "XDG_CACHE_HOME": ("xdg_cache", ""),
    "VEGETA": ("vegeta", ""),            # the vegeta binary (else PATH, else the cache's)
    "VEGETA_VERSION": ("vegeta_version", "v12.12.0"),
    "MARIADB_VERSION": ("mariadb_version", "11.4.5"),
    "TMPDIR": ("tmpdir", ""),
}

# compare's settings few runs need, set by `--set NAME=VALUE` or `--settings FILE` (docs/harness.md
# "Settings"); name -> what, [default]. Dashes and underscores are the same in a name.
SET_ONLY = {
    "runs": "the sequential run N times, then the medians (runs 0 .. N-1 rotated) [1]",
    "rotate": "the sequential design's mode order, rotated by N [random, recorded]",
    "reuse": "sequential: true, one app for every mode; false, a fresh app per mode "
             "[--quick: true, else false]",
    "rebuild": "true: rebuild the jar even if it looks current [false]",
    "warmup": "the warm-up's ramp per app, discarded, Go duration "
              "[10s; --quick 1s, interleaved 2s]",
    "warmup_max": "after the ramp the warm-up goes on while the JIT threads use more than "
                  "warmup_jit_pct of a core, up to this many seconds in all "
                  "[45; --workload 150; --quick 0]",
    "warmup_jit_pct": "see warmup_max [5]",
    "warmup_scale": "the warm-up's peak per scenario, in % of its lowest default rate [100]",
    "ramp_in": "each Vegeta step sends this long more; its requests are left out of the "
               "percentiles [1s; --quick 0s]",
    "settle": "whole seconds of rest between steps [0]",
    "metrics_interval": "seconds between /q/metrics scrapes in a step (0: none) [0.5]",
    "timeout": "a request's timeout, Go duration (hey: its whole seconds) [10s]",
    "delay_java_opts": "JVM flags of the delay service [none; the scale experiment -XX:+UseZGC]",
    "starts": "coldstart: fresh starts per series and way of starting [5; --quick 2]",
    "agents": "with --tools hyperfoil --dry-run: write each Hyperfoil step's benchmark for a "
              "controller with these agents (host[:ssh port], comma-separated; or k8s:N, N pods), "
              "the rate split (docs/distributed.md)",
    "app_pid": "with --app-url: its pid on this machine, for its CPU and memory",
    "cpus": "app=N: the app on its own N cores (on 2 cores it starves the generator)",
}


def set_name(name):
    """NAME as SET_ONLY and the scenario parameters spell it: dashes as underscores."""
    return name.strip().lower().replace("-", "_")


@dataclass(frozen=True)
class Env:
    app_port: int | None
    delay_port: int | None
    db_port: int | None
    jdbc_url: str
    reactive_url: str
    cache: str
    xdg_cache: str
    vegeta: str
    vegeta_version: str
    mariadb_version: str
    tmpdir: str

    @classmethod
    def read(cls, environ=None):
        environ = os.environ if environ is None else environ
        types = {f.name: f.type for f in fields(cls)}
        values = {}
        for name, (field, default) in OVERRIDES.items():
            raw = environ.get(name) or default
            values[field] = (int(raw) if raw else None) if "int" in str(types[field]) else raw
        return cls(**values)

    @property
    def cache_dir(self):
        return self.cache or os.path.join(self.xdg_cache or os.path.expanduser("~/.cache"),
                                          "vt-vs-reactive")


ENV = Env.read()
