"""The package's one reader of the Prometheus text format (/q/metrics), summed by labels."""


def parse(text):
    """-> {sample name: [(labels dict, value)]}; a truncated scrape keeps what was parsed."""
    # imported here: it is slow to import, and the sampler's first CPU reading must not wait
    from prometheus_client.parser import text_string_to_metric_families
    out = {}
    try:
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                out.setdefault(s.name, []).append((s.labels, s.value))
    except ValueError:
        pass
    return out


def metric_sum(parsed, name, **match):
    """Sum of a series over the label sets with every MATCH label; None without the series."""
    if name not in parsed:
        return None
    return sum(v for labels, v in parsed[name]
               if all(labels.get(k) == want for k, want in match.items()))
