"""Build lessons/NN_topic/lesson.ipynb from its source lessons/_build/NN_topic.py, with jupytext.

A source is plain Python in jupytext's "percent" format, which editors and Jupyter (with
jupytext) understand::

    # ---
    # jupyter:
    #   kernelspec: ...          (the notebook's metadata, in a YAML header)
    # ---

    # %% [markdown]
    # # Title
    # Some prose, each line a comment.

    # %%
    import minigenesis as mg

The notebook written has no outputs, cell ids "0", "1", ... and no jupytext bookkeeping in its
metadata, so rebuilding an unchanged source changes nothing (and ``nbstripout --verify`` accepts
it). ``tests/course/test_lessons_structure.py`` checks that every committed notebook matches its source.

    python lessons/_build/build.py            # every source
    python lessons/_build/build.py 01         # one chapter (number or full name)
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext

BUILD_DIR = Path(__file__).resolve().parent
LESSONS_DIR = BUILD_DIR.parent


def notebook_from_source(text: str):
    """The notebook (an ``nbformat`` node) for a percent-format source."""
    notebook = jupytext.reads(text, fmt="py:percent")
    notebook.metadata.pop("jupytext", None)  # where jupytext read it from: not the lesson's
    # a stray blank line between cells reads as an empty code cell: not part of the lesson
    notebook.cells = [cell for cell in notebook.cells if cell.source.strip()]
    for index, cell in enumerate(notebook.cells):
        cell.id = str(index)  # stable ids: a rebuild of an unchanged source is byte-identical
        cell.metadata.pop("lines_to_next_cell", None)  # blank lines in the source: layout only
    return notebook


def render(notebook) -> str:
    """Serialise as Jupyter and nbstripout do (sorted keys, 1-space indent, final newline)."""
    return jupytext.writes(notebook, fmt="ipynb") + "\n"


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
