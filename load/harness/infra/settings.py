"""The environment variables the harness reads: documented overrides only (docs/harness.md "Environment"), read once
here into ENV. Every other option is a flag of a `vtvr-harness` subcommand; nothing in the package writes the
environment (a child process gets its own env= dict)."""
from __future__ import annotations

import os
from dataclasses import dataclass, fields

# name -> (field, default): what each override changes
OVERRIDES = {
    "APP_PORT": ("app_port", ""),        # the app's HTTP port [compare: 8080, a busy one replaced; others: a free one]
    "DELAY_PORT": ("delay_port", ""),    # the delay service's [compare: 8081; likewise]
    "DB_PORT": ("db_port", ""),          # the embedded MariaDB's (load/db.sh) [compare: 3306; others: a free one]
    "QUARKUS_DATASOURCE_JDBC_URL": ("jdbc_url", ""),         # a database of your own (both URLs, or neither)
    "QUARKUS_DATASOURCE_REACTIVE_URL": ("reactive_url", ""),
    "VTVR_CACHE": ("cache", ""),               # tools and MariaDB [$XDG_CACHE_HOME or ~/.cache]/vt-vs-reactive
    "XDG_CACHE_HOME": ("xdg_cache", ""),
    "VEGETA": ("vegeta", ""),                  # the vegeta binary (else PATH, else the cache's)
    "VEGETA_VERSION": ("vegeta_version", "v12.12.0"),
    "MARIADB_VERSION": ("mariadb_version", "11.4.5"),
    "TMPDIR": ("tmpdir", ""),
}


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
        return self.cache or os.path.join(self.xdg_cache or os.path.expanduser("~/.cache"), "vt-vs-reactive")


ENV = Env.read()
