"""The code stays ruff-clean (lint and format), as pyproject.toml configures it, and every link a
learner can follow leads somewhere inside the repository."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff")
    cmd = [exe] if exe else [sys.executable, "-m", "ruff"]
    try:
        return subprocess.run(
            cmd + list(args), cwd=ROOT, capture_output=True, text=True, timeout=120
        )
    except FileNotFoundError:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")


@pytest.mark.parametrize(
    "args", [("check", "."), ("format", "--check", ".")], ids=["lint", "format"]
)
def test_ruff(args: tuple) -> None:
    result = _ruff(*args)
    if "No module named ruff" in result.stderr:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")
    assert result.returncode == 0, result.stdout + result.stderr


# ------------------------------------------------------------------ links for learners

_FENCE = re.compile(r"^( {0,3})(```|~~~).*?^\1\2[^\n]*$", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
_REF_LINK = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
_HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I)


def relative_links(markdown: str) -> list[str]:
    """The link targets in a markdown text that point at files (not web pages, not anchors);
    code blocks and code spans are skipped."""
    text = _CODE_SPAN.sub("", _FENCE.sub("", markdown))
    targets = _LINK.findall(text) + _REF_LINK.findall(text) + _HTML_LINK.findall(text)
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:|#", t, re.I)]


def broken_links(markdown: str, folder: Path) -> list[str]:
    """Targets that do not name an existing file or folder inside the repository."""
    bad = []
    for target in relative_links(markdown):
        path = target.split("#", 1)[0].split("?", 1)[0]
        resolved = (folder / path).resolve()
        if path.startswith("/") or not resolved.is_relative_to(ROOT) or not resolved.exists():
            bad.append(target)
    return bad


def _markdown_documents() -> list[tuple[str, str, Path]]:
    """(name, markdown text, folder links are relative to) for every document a learner reads."""
    docs = []
    files = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "BENCHMARKS.md"]
    files += sorted((ROOT / "lessons").rglob("*.md"))
    for md in files:
        if md.exists():
            docs.append((str(md.relative_to(ROOT)), md.read_text(encoding="utf-8"), md.parent))
    for nb in sorted((ROOT / "lessons").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb.parts:
            continue
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        text = "\n\n".join(
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells
            if c["cell_type"] == "markdown"
        )
        docs.append((str(nb.relative_to(ROOT)), text, nb.parent))
    return docs


def test_broken_links_are_found() -> None:
    text = (
        "[ok](README.md) [gone](no_such_file.md) [out](../beside_the_checkout/X.md) "
        "[web](https://pytorch.org) [anchor](#top) `[code](not_a_link.md)`\n"
        "```\n[fenced](also_not_a_link.md)\n```\n[ref]: lessons/README.md\n"
    )
    assert broken_links(text, ROOT) == ["no_such_file.md", "../beside_the_checkout/X.md"]


def test_relative_links_resolve_inside_the_repository() -> None:
    docs = _markdown_documents()
    assert any(name == "README.md" for name, _, _ in docs)
    bad = [f"{name}: {t}" for name, text, folder in docs for t in broken_links(text, folder)]
    assert not bad, "links that lead nowhere in the repository:\n" + "\n".join(bad)
