"""Every `load/compare.sh` command README.md and docs/ give (not the published results' own pages) still parses and
plans: each is run with --dry-run, nothing started. A command template's placeholders get a value (PID this process,
FILE a settings file, SHAPE a workload); one that names an app elsewhere (--app-url) would ask that app for its
catalogue and is left out, as is a line that only lists options (`...`)."""
import os
import re
import shlex

import pytest

from harness import cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND = re.compile(r"load/compare\.sh(?:[ \t]+[^`\n#|]*)?(?:\\\n[^`\n#]*)*")
PLACEHOLDERS = {"PID": str(os.getpid()), "SHAPE": "calls=3,delay=50", "S": "1", "N": "2", "K": "1"}


def pages():
    out = [os.path.join(ROOT, "README.md")]
    out += [os.path.join(ROOT, "docs", n) for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md")]
    return sorted(out)


def commands(page):
    """(line, argv) of each compare.sh command of PAGE: in inline code (which may wrap a line) and in code blocks."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    found = []
    for m in re.finditer(r"```.*?```|`[^`]+`", text, flags=re.S):
        span = m.group(0).strip("`")
        for c in COMMAND.finditer(span.replace("\\\n", " ") if m.group(0).startswith("```") else
                                  span.replace("\n", " ")):
            line = text.count("\n", 0, m.start()) + 1
            words = shlex.split(re.sub(r"[\[\]]", "", c.group(0)))[1:]
            if "..." in words or "--app-url" in words or any(w.startswith("-h") for w in words):
                continue
            found.append((line, words))
    return found


CASES = [(os.path.relpath(p, ROOT), line, words) for p in pages() for line, words in commands(p)]


def test_the_docs_give_commands():
    assert len(CASES) >= 40 and {c[0] for c in CASES} >= {"README.md", "docs/harness.md", "docs/advise.md"}


@pytest.mark.parametrize("page, line, words", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_a_documented_command_plans(page, line, words, tmp_path, capsys):
    (tmp_path / "my.toml").write_text('workload = "calls=3,delay=50"\nrates = [800]\n')
    words = [PLACEHOLDERS.get(w, w) for w in words]
    words = [str(tmp_path / "my.toml") if w in ("FILE", "my.toml") else w for w in words]
    for i, w in enumerate(words):   # results go to the test's folder (an --agents dry run writes benchmarks there)
        if w == "--out" and i + 1 < len(words):
            words[i + 1] = str(tmp_path / "out")
    rc = cli.main(["compare", *words, "--dry-run", "--out", str(tmp_path / "out")])
    assert rc == 0, f"{page}:{line}: load/compare.sh {' '.join(words)}\n{capsys.readouterr().err}"
