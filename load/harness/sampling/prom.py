"""The package's one reader of the Prometheus text format (/q/metrics): prometheus_client's parser, summed by labels."""


def parse(text):
    """-> {sample name: [(labels dict, value)]}; a truncated scrape (a server stopping) keeps what was parsed."""
    # imported here: it takes longer to import than the rest, and the sampler's first CPU reading must not wait for it
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
    """Sum of a series over the label sets that have every MATCH label; None when the series is absent."""
    if name not in parsed:
        return None
    return sum(v for labels, v in parsed[name] if all(labels.get(k) == want for k, want in match.items()))
