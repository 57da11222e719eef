"""Every relative link of README.md and docs/ (published results included) names a file or folder that exists."""
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINK = re.compile(r"\]\(([^)\s]+)\)|(?:href|src)=[\"']([^\"']+)[\"']")


def pages():
    out = [os.path.join(ROOT, "README.md")]
    for d, _, names in os.walk(os.path.join(ROOT, "docs")):
        out += [os.path.join(d, n) for n in names if n.endswith(".md")]
    return sorted(p for p in out if os.path.exists(p))


def broken(page):
    with open(page, encoding="utf-8") as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)   # code blocks hold commands, not links
    out = []
    for m in LINK.finditer(text):
        target = (m.group(1) or m.group(2)).split("#", 1)[0]
        if not target or re.match(r"[a-z]+:", target):
            continue
        if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(page), target))):
            out.append(target)
    return out


@pytest.mark.parametrize("page", pages(), ids=lambda p: os.path.relpath(p, ROOT))
def test_relative_links_resolve(page):
    assert broken(page) == []
