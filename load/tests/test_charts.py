"""Tests of harness/charts.py: axes, series, hover texts and the empty chart."""
import re
import xml.etree.ElementTree as ET

from harness.report import charts

ROW = {"mode": "virtual", "tool": "vegeta", "load": 500, "load_kind": "rate", "achieved_rps": 499.0,
       "success_pct": 100.0, "p50_ok_ms": 101.0, "p99_ok_ms": 110.0, "p50_ms": 101.0, "p99_ms": 110.0,
       "max_ms": 130.0, "cpu_ms_per_req": 0.3, "rss_peak_mib": 400.0, "threads_peak": 30, "flags": ""}


def rows():
    out = []
    for mode, base in (("virtual", 100.0), ("reactive", 90.0), ("reactive-aa", 91.0)):
        for load in (500, 1500, 4000):
            out.append(dict(ROW, mode=mode, load=load, p99_ok_ms=base * load / 500,
                            flags="ERRORS" if (mode, load) == ("virtual", 4000) else ""))
    return out


def test_nice_ticks_cover_the_range_in_round_steps():
    assert charts.nice_ticks(0, 97) == [0, 20, 40, 60, 80, 100]
    assert charts.nice_ticks(0, 0) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert charts.fmt_tick(4000) == "4k" and charts.fmt_tick(1500) == "1,500" and charts.fmt_tick(0.5) == "0.5"


def test_a_chart_is_valid_svg_with_one_point_per_row_a_ring_per_flag_and_a_dashed_aa_series():
    svg = charts.svg_chart("p99", "sub", charts.series_for(rows(), "p99_ok_ms"), "rate", "ms",
                           hlines=[(2000, "ceiling")])
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg"
    titles = [t.text for t in root.iter(ns + "title")]
    assert len(titles) == 9 and all(t.startswith(("virtual", "reactive")) for t in titles)
    assert len(root.findall(f".//{ns}circle[@class='flag']")) == 1
    assert len(root.findall(f".//{ns}rect[@width='7']")) == 3          # the A/A series: squares
    assert 'stroke-dasharray="5,4"' in svg and "ceiling" in svg
    assert "(log)" not in svg                                          # 90 .. 800 ms: under 30x
    assert re.search(r">virtual<", svg) and re.search(r">reactive-aa<", svg)


def test_log_axis_only_when_the_values_span_more_than_30x():
    flat = [dict(ROW, load=x, p99_ok_ms=100.0 + x / 100) for x in (1, 2, 3)]
    assert "(log)" not in charts.svg_chart("t", "s", charts.series_for(flat, "p99_ok_ms"), "x", "ms")
    steep = [dict(ROW, load=x, p99_ok_ms=10.0 ** x) for x in (1, 2, 3)]
    assert "(log)" in charts.svg_chart("t", "s", charts.series_for(steep, "p99_ok_ms"), "x", "ms")


def test_shared_hover_texts_are_stored_once():
    tips = charts.Tips()
    a = charts.svg_chart("a", "s", charts.series_for(rows(), "p99_ok_ms"), "x", "ms", tips=tips)
    b = charts.svg_chart("b", "s", charts.series_for(rows(), "cpu_ms_per_req"), "x", "ms", tips=tips)
    assert "<title>" not in a + b
    assert len(tips.texts) == 9
    assert a.count("data-t=") == b.count("data-t=") == 9
    assert tips.ref(tips.texts[3]) == 3


def test_no_data_and_colours():
    svg = charts.svg_chart("empty", "s", charts.series_for([dict(ROW, p99_ok_ms=None)], "p99_ok_ms"), "x", "ms")
    assert "no data" in svg
    names = ["virtual", "custom", "other"]
    assert charts.mode_color("virtual-aa", names) == charts.MODE_COLORS["virtual"]
    assert charts.mode_color("custom", names) != charts.mode_color("other", names)
    assert charts.mode_color("unknown", names) == "#333"
