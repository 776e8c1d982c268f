"""Build lessons/NN_topic/lesson.ipynb from lessons/_build/NN_topic.py (optional authoring aid).

A source file is plain Python in the "percent" format that editors understand::

    # %% [markdown]
    # # Title
    # Some prose, each line a comment.

    # %%
    import minigenesis as mg

Lines before the first ``# %%`` marker are ignored (a ``#`` comment for maintainers: the source must
stay valid Python for ruff). The notebook that is written has no outputs and stable cell ids, so
rebuilding an unchanged source changes nothing, and ``tests/test_lessons_structure.py`` checks
that every committed notebook matches its source.

    python lessons/_build/build.py            # every source
    python lessons/_build/build.py 01_tensors # one chapter
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BUILD_DIR = Path(__file__).resolve().parent
LESSONS_DIR = BUILD_DIR.parent

_KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}


def _cell(kind: str, lines: list[str], index: int) -> dict:
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if kind == "markdown":
        lines = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
    source = [ln + "\n" for ln in lines]
    if source:
        source[-1] = source[-1][:-1]
    # ids "0", "1", ... and sorted keys: exactly what `nbstripout` writes, so that
    # `nbstripout --verify` accepts a built notebook as it is.
    cell = {"cell_type": kind, "id": str(index), "metadata": {}, "source": source}
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def notebook_from_source(text: str) -> dict:
    """The notebook (as a JSON-ready dict, nbformat 4.5) for a percent-format source."""
    cells: list[dict] = []
    kind: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("# %%"):
            if kind is not None:
                cells.append(_cell(kind, lines, len(cells)))
            kind = "markdown" if "[markdown]" in line else "code"
            lines = []
        elif kind is not None:
            lines.append(line)
    if kind is not None:
        cells.append(_cell(kind, lines, len(cells)))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": _KERNEL,
            "language_info": {"name": "python", "pygments_lexer": "ipython3"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def render(notebook: dict) -> str:
    """Serialise the way Jupyter and nbstripout do (sorted keys, 1-space indent, final newline)."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def build(source: Path) -> Path:
    target = LESSONS_DIR / source.stem / "lesson.ipynb"
    if not target.parent.is_dir():
        raise FileNotFoundError(f"{source.name}: no chapter folder {target.parent}")
    target.write_text(
        render(notebook_from_source(source.read_text(encoding="utf-8"))), encoding="utf-8"
    )
    return target


def main(argv: list[str]) -> int:
    sources = sorted(p for p in BUILD_DIR.glob("[0-9][0-9]_*.py"))
    if argv:
        sources = [s for s in sources if s.stem in argv or s.stem[:2] in argv]
    for s in sources:
        print(f"{s.name} -> {build(s).relative_to(LESSONS_DIR.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
