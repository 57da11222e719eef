"""The thread facts (harness/runs/threadfacts.py): parsing JMH's JSON and ParkedThreads' records (fixtures saved from a
real run here: fixtures/threadfacts, JMH 1.37 on Temurin 25, 2 cores), the intervals, the decided rule, the sentence
and the file round trip; and one real run of the whole measurement."""
import json
import math
import os

import pytest

from harness.infra import procs, tools
from harness.runs import threadfacts
from harness.runs.threadfacts import ThreadFact, fact, t_interval

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "threadfacts")


def load(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def test_jmh_scores_are_every_iteration_of_each_benchmark_in_its_unit():
    scores = threadfacts.jmh_scores(load("jmh.json"))
    assert sorted(scores) == [("HandOff", "platform"), ("HandOff", "virtual"),
                              ("ThreadStart", "platform"), ("ThreadStart", "virtual")]
    for unit, values in scores.values():
        assert unit == "us" and len(values) == 8 and min(values) > 0


def test_time_facts_from_a_real_jmh_run_bracket_their_points_and_are_decided():
    start, switch = threadfacts.time_facts(load("jmh.json"))
    assert (start.name, switch.name) == ("start", "switch")
    for f in (start, switch):
        assert f.unit == "us" and f.decided
        assert 0 < f.platform_low < f.platform < f.platform_high
        assert 0 < f.virtual_low < f.virtual < f.virtual_high
        assert 1 < f.ratio_low < f.ratio < f.ratio_high
    # this run had two disturbed iterations (1264 and 842 us among ~130): on the logs the interval stays positive
    assert start.platform_low > 50 and start.ratio_low > 100


def test_the_ratio_interval_is_the_conservative_one():
    f = threadfacts.time_facts(load("jmh.json"))[1]
    assert f.ratio_low == pytest.approx(f.platform_low / f.virtual_high)
    assert f.ratio_high == pytest.approx(f.platform_high / f.virtual_low)
    assert f.ratio == pytest.approx(f.platform / f.virtual)


def test_memory_per_thread_is_resident_plus_heap_over_the_threads():
    runs = load("parked.json")
    assert [r["kind"] for r in runs].count("platform") == 3 and len(runs) == 6
    r = runs[0]
    assert threadfacts.kib_per_thread(r) == pytest.approx(
        ((r["rss_kib_after"] - r["rss_kib_before"]) + (r["heap_used_after"] - r["heap_used_before"]) / 1024) / 2000)
    m = threadfacts.memory_fact(runs)
    assert m.name == "parked memory" and m.unit == "KiB" and m.decided
    assert 0 < m.virtual_low < m.virtual < m.virtual_high < m.platform_low < m.platform < m.platform_high


def test_memory_needs_both_kinds():
    with pytest.raises(threadfacts.Fatal, match="runs of platform only"):
        threadfacts.memory_fact([r for r in load("parked.json") if r["kind"] == "platform"])


def test_t_interval_is_on_the_logs_and_has_no_bounds_without_two_positive_values():
    m, low, high = t_interval([1.0, 4.0])
    assert m == pytest.approx(2.0) and low * high == pytest.approx(4.0) and low < 1 < 4 < high
    assert math.isnan(t_interval([3.0])[1]) and math.isnan(t_interval([3.0, 0.0, 2.0])[2])


def test_decided_is_a_ratio_interval_that_excludes_one_either_way():
    assert fact("switch", "us", [10.0, 11.0, 12.0], [1.0, 1.1, 1.2]).decided
    assert fact("switch", "us", [1.0, 1.1, 1.2], [10.0, 11.0, 12.0]).decided       # virtual the dearer: decided too
    assert not fact("switch", "us", [1.0, 1.5, 2.0], [1.2, 1.4, 1.9]).decided     # overlapping: the noise wins
    assert not fact("start", "us", [100.0], [1.0]).decided                          # one value: no interval


def test_the_sentence_says_both_figures_the_ratio_and_the_write_ups():
    start = threadfacts.time_facts(load("jmh.json"))[0]
    s = start.sentence()
    assert s.startswith("Starting a thread: platform ") and "(the write-ups: about 1 ms vs 1 us)" in s
    assert f"{start.ratio:.3g}x [" in s and "not decided" not in s
    undecided = fact("switch", "us", [1.0, 1.5, 2.0], [1.2, 1.4, 1.9]).sentence()
    assert undecided.endswith("not decided: the ratio's interval includes 1")


def test_write_and_read_round_trip(tmp_path):
    facts = [*threadfacts.time_facts(load("jmh.json")), threadfacts.memory_fact(load("parked.json"))]
    path = threadfacts.write(facts, str(tmp_path))
    assert path == str(tmp_path / "thread-facts.json")
    assert threadfacts.read(path) == facts and all(isinstance(f, ThreadFact) for f in threadfacts.read(path))


@pytest.mark.slow
def test_a_real_measurement_gives_three_facts_from_half_a_minute_of_jmh(tmp_path):
    """The facts, and JMH's own record of what it ran: at most 30 s of warm-up and measured iterations (the quick
    run's budget for them), read from jmh.json rather than timed, which a loaded machine would stretch."""
    java = os.path.join(tools.java_home(), "bin", "java")
    with procs.Procs() as ps:
        facts = threadfacts.measure(java, ps, str(tmp_path), build_log=str(tmp_path / "build.log"))
    assert [f.name for f in facts] == ["start", "switch", "parked memory"]
    for f in facts:
        assert 0 < f.platform_low <= f.platform <= f.platform_high, f
        assert 0 < f.virtual_low <= f.virtual <= f.virtual_high, f
        assert f.ratio_low <= f.ratio <= f.ratio_high, f
    assert facts[0].ratio > 1, facts[0].sentence()   # a platform thread costs more to start
    assert (tmp_path / "jmh.json").is_file() and len(json.loads((tmp_path / "parked.json").read_text())) == 6
    seconds = {"s": 1.0, "ms": 1e-3}
    planned = sum(b["forks"] * sum(b[f"{phase}Iterations"] * float(b[f"{phase}Time"].split()[0])
                                   * seconds[b[f"{phase}Time"].split()[1]] for phase in ("warmup", "measurement"))
                  for b in json.loads((tmp_path / "jmh.json").read_text()))
    assert 0 < planned <= 30, planned
