"""Tests of harness/archive.py: a published result keeps its quoted files and packs the rest into one archive."""
import os
import tarfile

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


def test_repack_moves_the_rest_into_the_archive_and_adds_to_one_already_there(tmp_path):
    make(tmp_path, {"summary.json": 10, "summary.md": 10, "run-1/summary.json": 50, "run-2/machine.json": 5,
                    "p/a.collapsed.gz": 20})
    moved = archive.repack(str(tmp_path))
    assert sorted(moved) == ["p/a.collapsed.gz", "run-1/summary.json", "run-2/machine.json"]
    assert sorted(archive.files(str(tmp_path))) == [archive.ARCHIVE, "summary.json", "summary.md"]
    make(tmp_path, {"run-3/summary.json": 7})
    archive.repack(str(tmp_path))
    with tarfile.open(tmp_path / archive.ARCHIVE) as tar:
        assert sorted(tar.getnames()) == ["p/a.collapsed.gz", "run-1/summary.json", "run-2/machine.json",
                                          "run-3/summary.json"]
    assert archive.repack(str(tmp_path)) == []
    with archive.readable(str(tmp_path)) as d:
        assert os.path.getsize(os.path.join(d, "run-1", "summary.json")) == 50
        assert os.path.exists(os.path.join(d, "summary.md"))
    with archive.readable(str(tmp_path / "p")) as d:       # no archive: the folder itself
        assert d == str(tmp_path / "p")


def test_pack_leaves_out_per_request_records_unless_asked(tmp_path):
    run = tmp_path / "run"
    make(run, {"summary.json": 10, "report.html": 10, "machine.json": 1, "steps/001/results.bin": 100_000,
               "steps/001/meta.json": 10, "steps/002/results.csv": 50_000})
    size = archive.pack(str(run), str(tmp_path / "pub"))
    assert size < 5_000
    with tarfile.open(tmp_path / "pub" / archive.ARCHIVE) as tar:
        assert tar.getnames() == ["steps/001/meta.json"]
    archive.pack(str(run), str(tmp_path / "all"), per_request=True)
    with tarfile.open(tmp_path / "all" / archive.ARCHIVE) as tar:
        assert len(tar.getnames()) == 3
