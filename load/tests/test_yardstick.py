"""The machine's speed before each interleaved trial (harness/sampling/yardstick.py): a real JVM, real readings."""
import os

from harness.infra import tools
from harness.sampling.yardstick import Yardstick


def test_a_reading_is_the_cpu_of_one_unit_and_more_work_does_not_change_it():
    y = Yardstick(os.path.join(tools.java_home(), "bin", "java"))
    try:
        short, long_ = y.unit_us(100), y.unit_us(600)
        assert short and long_ and 1 < short < 10_000   # microseconds of one unit, a median
        assert 0.5 < short / long_ < 2                  # a median per unit, not the sum over the reading
    finally:
        y.stop()
    assert y.proc is None and y.unit_us() is None       # stopped: no reading, and no process left


def test_a_java_that_cannot_start_leaves_the_trials_without_readings(tmp_path):
    y = Yardstick(str(tmp_path / "no-java"))
    assert y.unit_us() is None
