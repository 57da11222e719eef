"""docs/results keeps published pages, not raw run data (docs/results/README.md): at most 7.6 MB in all, no file over
500 KB, each folder's summary.json + summary.md + report.html at most 400 KB, and no raw trial archive or records."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "docs", "results")
# bytes; 4.3 MB in all since issue #42 (4.0 before): its calibration and validation runs, each one compact JSON of
# its trials beside its page, are the data advise's figures come from; 4.6 MB since issues #43 and #44 (the first
# minute's per-second table of 45 starts, vt-native's interleaved run); 4.8 MB since issue #43's pooled vt-native runs
# and its scale run (the single run they pool was dropped); 5.0 MB since issue #42's checks of the relative fit on
# every series of the calibration in use (verify-2026-11-29b and c) and the second calibration of that machine; 5.1 MB
# since the first workload run measured with advise's prediction beside it (workload-2026-11-29) and CI's phase
# readings; 5.35 MB since the workload runs measured with CPU per request net of the JIT (workload-2026-11-29b to d);
# 5.75 MB since the calibration with the machine's speed and its checks (calibrate-2026-11-29c, workload-2026-11-29e-g);
# 6 MB since the slow day's calibration and check (calibrate-2026-12-01, verify-2026-12-01); 6.2 MB since the
# calibration advise reads by default, of 2026-12-07, and its check (calibrate-2026-12-07, verify-2026-12-07); 6.3 MB
# since the second check of that day, of a model change not kept (verify-2026-12-07b); 6.4 MB since its third, of the
# model in use with the busy cores held to the machine's (verify-2026-12-07c, model-busy-cap-2026-12-07); 6.5 MB since
# the compare runs of a new workload against that calibration, the way a user measures one, with compare's default
# warm-up and a longer one (workload-2026-12-07b and c); 6.9 MB since the runs of a second new workload with either
# warm-up and of the calibration's own shape (workload-2026-12-07d to f); 7.2 MB since the runs after the scrapes left
# the figure, a third new workload and the calibration's shape again (workload-2026-12-07g and h, scrape-2026-12-07);
# 7.45 MB since the runs with the JIT-quiet settle rule and the aging measurement (workload-2026-12-07i and j,
# default-jit-2026-12-07, age-2026-12-07; j's and the default run's report.html left out); 7.6 MB since a fifth new
# workload measured as a user would (workload-2026-12-07k) and the readings of the ranking and two model forms
TOTAL, PER_FILE, PAGES_LIMIT = 7_600_000, 500_000, 400_000
PAGES = ("summary.json", "summary.md", "report.html")
RAW = (".tar.xz", ".tar.gz", ".tgz", ".zip", ".jsonl", ".log", ".bin", ".collapsed", ".collapsed.gz", ".jfr")


def tracked():
    """docs/results' files as paths relative to ROOT: the tracked ones (git), else every file there."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "docs/results"], capture_output=True, check=True,
                             timeout=30).stdout.decode()
        names = [n for n in out.split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        names = []
    if not names:
        names = [os.path.relpath(os.path.join(d, n), ROOT) for d, _, ns in os.walk(RESULTS) for n in ns]
    return sorted(n for n in names if os.path.isfile(os.path.join(ROOT, n)))


def size(rel):
    return os.path.getsize(os.path.join(ROOT, rel))


FILES = tracked()


@pytest.mark.skipif(not FILES, reason="no docs/results here")
def test_docs_results_stays_small():
    assert sum(size(f) for f in FILES) <= TOTAL
    assert [f for f in FILES if size(f) > PER_FILE] == []


def test_no_raw_run_data_is_committed():
    assert [f for f in FILES if f.endswith(RAW) or os.path.basename(f) == "summary.csv"] == []


def test_each_published_folder_keeps_its_pages_within_the_limit():
    folders = {}
    for f in FILES:
        if os.path.basename(f) in PAGES:
            folders[os.path.dirname(f)] = folders.get(os.path.dirname(f), 0) + size(f)
    assert {d: n for d, n in folders.items() if n > PAGES_LIMIT} == {}
