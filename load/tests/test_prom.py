"""Tests of harness/prom.py, the one Prometheus text parser."""
from harness.sampling import prom

TEXT = """# HELP admission_limit requests in progress allowed
# TYPE admission_limit gauge
admission_limit{mode="reactive"} 5000.0
admission_limit{mode="virtual"} 4000.0
# TYPE jvm_memory_used_bytes gauge
jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 100.0
jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 50.0
jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 7.0
"""


def test_sums_the_label_sets_that_match():
    m = prom.parse(TEXT)
    assert prom.metric_sum(m, "jvm_memory_used_bytes", area="heap") == 150.0
    assert prom.metric_sum(m, "jvm_memory_used_bytes") == 157.0
    assert prom.metric_sum(m, "admission_limit", mode="reactive") == 5000.0


def test_an_absent_series_is_none_and_a_label_without_match_sums_to_zero():
    m = prom.parse(TEXT)
    assert prom.metric_sum(m, "nope") is None
    assert prom.metric_sum(m, "admission_limit", mode="worker") == 0


def test_a_truncated_scrape_keeps_what_was_parsed():
    m = prom.parse(TEXT + 'broken_metric{mode="x" 1\n')
    assert prom.metric_sum(m, "admission_limit", mode="virtual") == 4000.0
    assert prom.parse("") == {}
