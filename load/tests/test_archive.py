"""Tests of harness/archive.py: a published result keeps its quoted files within the limit and no raw data; the
archive that results published before kept is read back."""
import os
import tarfile

import pytest

from harness.report import archive


def make(root, files):
    for rel, size in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)


def test_quoted_files_stay_outside_raw_folders():
    assert archive.is_quoted("summary.json") and archive.is_quoted("free/report.html")
    assert archive.is_quoted("moved-since-2026-11-21.md") and archive.is_quoted("buckets.txt")
    assert not archive.is_quoted("run-1/summary.json") and not archive.is_quoted("steps/001/meta.json")
    assert not archive.is_quoted("io-1500/virtual.collapsed.gz") and archive.is_quoted("run-x/summary.json")


def test_an_old_archive_is_read_back_beside_the_pages(tmp_path):
    make(tmp_path / "raw", {"run-1/summary.json": 50})
    make(tmp_path, {"summary.md": 10})
    with tarfile.open(tmp_path / archive.ARCHIVE, "w:xz") as tar:
        tar.add(tmp_path / "raw" / "run-1", arcname="run-1")
    with archive.readable(str(tmp_path)) as d:
        assert os.path.getsize(os.path.join(d, "run-1", "summary.json")) == 50
        assert os.path.exists(os.path.join(d, "summary.md"))
    with archive.readable(str(tmp_path / "raw")) as d:       # no archive: the folder itself
        assert d == str(tmp_path / "raw")


def test_pack_copies_the_pages_and_leaves_the_raw_data_in_the_run(tmp_path):
    run = tmp_path / "run"
    make(run, {"summary.json": 10, "report.html": 10, "machine.json": 1, "summary.csv": 10, "memory.svg": 5,
               "steps/001/results.bin": 100_000, "steps/001/meta.json": 10, "run-1/summary.json": 10,
               "free/summary.md": 10, "free/trials.jsonl": 10})
    size, left = archive.pack(str(run), str(tmp_path / "pub"))
    assert left == [] and size == 36
    assert archive.files(str(tmp_path / "pub")) == ["free/summary.md", "machine.json", "memory.svg", "report.html",
                                                    "summary.json"]


def test_pack_leaves_out_a_report_over_the_limit_and_refuses_pages_that_alone_exceed_it(tmp_path):
    run = tmp_path / "run"
    make(run, {"summary.json": 300_000, "summary.md": 50_000, "report.html": 60_000,
               "small/summary.json": 10, "small/report.html": 399_990})
    size, left = archive.pack(str(run), str(tmp_path / "pub"))
    assert left == ["report.html"] and size == 750_000
    assert archive.files(str(tmp_path / "pub")) == ["small/report.html", "small/summary.json", "summary.json",
                                                    "summary.md"]
    make(run, {"summary.md": 100_001})
    with pytest.raises(ValueError, match="400 KB"):
        archive.pack(str(run), str(tmp_path / "none"))
    assert not os.path.exists(tmp_path / "none")          # nothing written
