"""A published result's layout under docs/results: the files its pages quote, no raw data
(docs/results/README.md); and reading back the raw-files archive older results kept (9b7f301)."""
import contextlib
import os
import shutil
import tarfile
import tempfile

ARCHIVE = "steps.tar.xz"
# what a result's pages quote or link: kept as files at any depth outside raw folders (summary.csv,
# the same rows as summary.json, is left out)
QUOTED = {"summary.json", "summary.md", "report.html", "machine.json", "runs.csv", "buckets.txt",
          "tools.json", "profiles.json"}
# plus run-N: one run of a `--set runs=N` result, whose own summary the medians replace
RAW_DIRS = ("steps",)
PAGES = ("summary.json", "summary.md", "report.html")
# bytes: the PAGES of one published folder together at most (docs/results/README.md)
LIMIT = 400_000


def _raw_dir(part):
    return part in RAW_DIRS or (part.startswith("run-") and part[4:].isdigit())


def is_quoted(rel, names=QUOTED):
    """True for a file (relative path) that stays: one of NAMES or a page (.md, .svg), outside
    steps/ and run-N/."""
    parts = rel.split(os.sep)
    if any(_raw_dir(p) for p in parts[:-1]):
        return False
    return parts[-1] in names or parts[-1].endswith((".md", ".svg"))


def files(root):
    """Every file under ROOT, as paths relative to it, sorted."""
    out = []
    for d, _, names in os.walk(root):
        out += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(out)


def pack(run, dest):
    """RUN (a compare or chaos output folder) -> DEST as a published result: the quoted files,
    nothing raw. A folder's PAGES over LIMIT lose report.html; ValueError, nothing written, when
    summary.json and summary.md alone exceed it. -> (DEST's size in bytes, the files left out)."""
    kept, left = [rel for rel in files(run) if is_quoted(rel)], []
    for d in sorted({os.path.dirname(rel) for rel in kept}):
        sizes = {n: os.path.getsize(os.path.join(run, d, n))
                 for n in PAGES if os.path.join(d, n) in kept}
        if sum(sizes.values()) <= LIMIT:
            continue
        if sum(sizes.values()) - sizes.get("report.html", 0) > LIMIT:
            raise ValueError(
                f"{os.path.join(run, d)}: summary.json and summary.md take "
                f"{(sizes.get('summary.json', 0) + sizes.get('summary.md', 0)) / 1000:,.0f} KB, "
                f"over the {LIMIT / 1000:,.0f} KB a published result may keep")
        left.append(os.path.join(d, "report.html"))
    for rel in kept:
        if rel not in left:
            os.makedirs(os.path.dirname(os.path.join(dest, rel)) or dest, exist_ok=True)
            shutil.copy2(os.path.join(run, rel), os.path.join(dest, rel))
    return sum(os.path.getsize(os.path.join(dest, f)) for f in files(dest)), left


@contextlib.contextmanager
def readable(result):
    """A folder with RESULT's raw files in place: RESULT itself, or (a published result) a temporary
    copy with its steps.tar.xz unpacked beside the quoted files."""
    archive = os.path.join(result, ARCHIVE)
    if not os.path.exists(archive):
        yield result
        return
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(result, tmp, dirs_exist_ok=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        yield tmp
