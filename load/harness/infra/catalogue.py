"""The scenario table of load/scenarios.sh (the one place a scenario becomes a request), read once through bash."""
import functools
import json
import os
import subprocess
from dataclasses import dataclass

LOAD_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARAMS = ("DELAY", "IO_CALLS", "FANOUT_CALLS", "DB_QUERIES", "SLOW_DELAY", "CPU_N", "PINNING_LOCK")

_DUMP = r'''
. "$1/scenarios.sh"
printf '{"scenarios": "%s", "modes": "%s", "ladder": "%s", "requests": [' "$VTVR_SCENARIOS" "$VTVR_MODES" \
  "$VTVR_LADDER"
sep=""
for s in $VTVR_SCENARIOS; do
  for m in $(vtvr_series_for "$s"); do
    vtvr_request "$m" "$s"
    printf '%s["%s", "%s", "%s", "%s", %s, "%s"]' "$sep" "$m" "$s" "$REQ_METHOD" "$REQ_PATH" "$REQ_STATUS" \
      "$(printf '%s' "$REQ_BODY" | sed 's/\\/\\\\/g; s/"/\\"/g')"
    sep=", "
  done
done
echo ']}'
'''


@dataclass(frozen=True)
class Request:
    """One scenario's request in one mode, and the status a correct answer has."""
    method: str
    path: str
    status: int
    body: str

    @property
    def params(self):
        return self.path.partition("?")[2]


@dataclass(frozen=True)
class Table:
    scenarios: tuple
    modes: tuple     # the product's modes
    ladder: tuple    # the ladder's rungs (docs/floor.md); with "floor" the measurement-only series
    requests: dict   # (series, scenario) -> Request

    @property
    def series(self):
        """Every series a URL serves: the modes, the floor and the ladder's rungs."""
        return (*self.modes, "floor", *self.ladder)

    def modes_for(self, scenario):
        return tuple(m for m in self.modes if (m, scenario) in self.requests)

    def series_for(self, scenario):
        """The modes, the floor and the rungs that serve SCENARIO."""
        return tuple(m for m in self.series if (m, scenario) in self.requests)

    def request(self, mode, scenario):
        return self.requests[(mode, scenario)]

    def params(self, scenario):
        return self.request(self.modes_for(scenario)[0], scenario).params


@functools.cache
def _read(overrides):
    env = {k: v for k, v in os.environ.items() if k not in PARAMS} | dict(overrides)
    out = subprocess.run(["bash", "-c", _DUMP, "dump", LOAD_DIR], env=env, capture_output=True, text=True,
                         check=True).stdout
    d = json.loads(out)
    reqs = {(m, s): Request(method, path, status, body) for m, s, method, path, status, body in d["requests"]}
    return Table(tuple(d["scenarios"].split()), tuple(d["modes"].split()), tuple(d["ladder"].split()), reqs)


def table(params=None):
    """The table for the scenario parameters PARAMS (a dict of DELAY, IO_CALLS, ...; the rest: the defaults)."""
    return _read(tuple(sorted((k, str(v)) for k, v in (params or {}).items() if k in PARAMS)))
