"""Tests of harness/durations.py, the one duration parser."""
import pytest

from harness.infra import durations


@pytest.mark.parametrize("text,ms", [("5s", 5000), ("1.5s", 1500), ("500ms", 500), ("2m", 120000), ("1m30s", 90000),
                                     ("1h", 3600000), ("0s", 0), ("5", 5000), ("250us", 0), (" 10s ", 10000)])
def test_go_durations_in_milliseconds(text, ms):
    assert durations.parse_ms(text) == ms


@pytest.mark.parametrize("text", ["", "s", "5x", "-1s", "5 s", "1s2", "abc"])
def test_anything_else_is_a_clear_error(text):
    with pytest.raises(ValueError, match="not a duration"):
        durations.parse_ms(text)
