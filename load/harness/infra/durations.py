"""The package's one duration parser: Go durations (5s, 500ms, 1m30s) as Vegeta and options take."""
import re

UNIT_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_ms(text):
    """'1m30s' -> 90000 (whole ms); a bare number is seconds ('5' -> 5000). ValueError otherwise."""
    s = str(text).strip()
    if re.fullmatch(r"\d+(?:\.\d*)?", s):
        return round(float(s) * 1e3)
    if not s or _PART.sub("", s):
        raise ValueError(f"not a duration like 5s, 500ms or 1m30s: {text!r}")
    return round(sum(float(n) * UNIT_MS[u] for n, u in _PART.findall(s)))


