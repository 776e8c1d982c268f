"""The course helper: load a chapter's exercises (or, in solutions mode, its reference answers).

Used by ``lessons/conftest.py`` (the ``impl`` fixture) and by the notebooks::

    import sys; sys.path.insert(0, "..")   # lessons/, where this helper lives
    from _course import load
    ex = load()    # this chapter's exercises.py; solutions.py when MINIGENESIS_SOLUTIONS=1

Solutions mode is on when the environment variable ``MINIGENESIS_SOLUTIONS`` is ``1`` (``pytest
--solutions`` sets it, so notebooks run by ``--nbmake`` follow the same switch).

Modules are loaded by file path under a name made from the chapter folder
(``lessons_07_lr_schedulers_exercises``), so every chapter can have its own ``exercises.py``
without clashing with the others.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType

SOLUTIONS_ENV = "MINIGENESIS_SOLUTIONS"
LESSONS_DIR = Path(__file__).resolve().parent
REPO_ROOT = LESSONS_DIR.parent

# "Exercise 7.2: what to do" -- the message every stub raises.
EXERCISE_RE = re.compile(r"Exercise (\d+\.\d+)\s*:?\s*(.*)", re.DOTALL)

# A notebook started in lessons/NN_topic/ must find the package even when it is not pip-installed.
if (REPO_ROOT / "minigenesis").is_dir() and importlib.util.find_spec("minigenesis") is None:
    sys.path.insert(0, str(REPO_ROOT))


def solutions_mode() -> bool:
    """True when the reference solutions should be used instead of the learner's exercises."""
    return os.environ.get(SOLUTIONS_ENV, "") == "1"


def chapter_dir(chapter: str | os.PathLike | None = None) -> Path:
    """The folder of a chapter: a path, a folder name (``"07_lr_schedulers"``), a number
    (``"7"``, ``"07"``), or None for the current directory (where Jupyter starts a notebook)."""
    if chapter is None:
        return Path.cwd().resolve()
    path = Path(chapter)
    if path.is_dir():
        return path.resolve()
    name = str(chapter)
    if name.isdigit():
        matches = sorted(LESSONS_DIR.glob(f"{int(name):02d}_*"))
        if matches:
            return matches[0]
    if (LESSONS_DIR / name).is_dir():
        return LESSONS_DIR / name
    raise FileNotFoundError(f"no chapter {chapter!r} under {LESSONS_DIR}")


def load_file(path: str | os.PathLike, fresh: bool = False) -> ModuleType:
    """Import a Python file by path; the module name is unique per chapter and file.

    The module is imported once and reused, unless ``fresh`` asks to run the file again (a
    notebook does, so that edits to exercises.py show up when the cell is re-run).
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    name = "lessons_" + re.sub(r"\W", "_", f"{path.parent.name}_{path.stem}")
    module = sys.modules.get(name)
    if not fresh and module is not None and Path(module.__file__).resolve() == path:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before exec: dataclasses and pickle look themselves up here
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load(
    chapter: str | os.PathLike | None = None, solutions: bool | None = None, fresh: bool = True
) -> ModuleType:
    """A chapter's ``exercises.py``, or its ``solutions.py`` in solutions mode.

    ``chapter`` defaults to the current directory (a notebook runs in its chapter's folder);
    ``solutions`` defaults to :func:`solutions_mode`; ``fresh`` re-reads the file (so a notebook
    sees your latest edits each time the cell runs).
    """
    if solutions is None:
        solutions = solutions_mode()
    folder = chapter_dir(chapter)
    return load_file(folder / ("solutions.py" if solutions else "exercises.py"), fresh=fresh)
