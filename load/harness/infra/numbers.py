"""Percentiles (HdrHistogram, 3 significant digits) and rounding, shared by every layer."""
from hdrh.histogram import HdrHistogram


def percentiles(values_ms, ps):
    """{p: value in ms} for each percentile in PS, from an HdrHistogram of VALUES_MS (1 us to 1 h,
    3 significant digits); {p: None} for no values."""
    if not values_ms:
        return {p: None for p in ps}
    h = HdrHistogram(1, 3_600_000_000, 3)
    for v in values_ms:
        h.record_value(max(1, round(v * 1000)))
    return {p: h.get_value_at_percentile(p) / 1000.0 for p in ps}


def percentile(values_ms, p):
    return percentiles(values_ms, [p])[p]


def rnd(x, nd=1):
    return None if x is None else round(x, nd)
