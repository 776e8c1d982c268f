"""``python -m minigenesis lessons``: how far you are in the course.

For every chapter under ``lessons/`` it runs the chapter's checks (``test_lesson.py``) on YOUR
``exercises.py``, quietly, in one pytest run, and prints the exercises done / total::

    01_tensors             3/4   to do: 1.4
    02_autograd_scratch    0/5   to do: 2.1 2.2 2.3 2.4 2.5

An exercise is done when every check marked ``@pytest.mark.exercise("N.M")`` passes. One that no
longer raises its ``NotImplementedError`` but fails a check is listed as "failing". Without pytest
installed, the command falls back to counting the stubs you have replaced (unchecked).

This module is also the small pytest plugin (``-p _progress``, with lessons/ on the path) that
records the outcome of each check for the command; its hooks do nothing unless the command started
the run. It lives with the course, not in the library: ``python -m minigenesis lessons`` loads it
from the lessons/ folder next to the package.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

_STATUS_ENV = "MINIGENESIS_LESSONS_STATUS_FILE"
_SOLUTIONS_ENV = "MINIGENESIS_SOLUTIONS"
_CHAPTER_RE = re.compile(r"^(\d{2})_\w+$")
_MARKER_RE = re.compile(r"mark\.exercise\(([^)]*)\)")
_NUMBER_RE = re.compile(r"\d+\.\d+")
_STUB_RE = re.compile(r"NotImplementedError\(\s*[rRuU]?[\"']{1,3}Exercise (\d+\.\d+)")


def _number_key(number: str) -> tuple[int, ...]:
    return tuple(int(p) for p in number.split("."))


@dataclass
class Chapter:
    """One lessons/NN_topic folder and what we know about its exercises."""

    path: Path
    numbers: list[str] = field(default_factory=list)  # every exercise, in order
    done: list[str] = field(default_factory=list)
    todo: list[str] = field(default_factory=list)  # still a stub
    failing: list[str] = field(default_factory=list)  # implemented, but a check fails

    @property
    def name(self) -> str:
        return self.path.name


def find_lessons_dir(path: str | None = None) -> Path:
    """``--path``, else ./lessons, else the lessons/ folder this file lives in."""
    candidates = [Path(path)] if path else [Path.cwd() / "lessons", Path(__file__).resolve().parent]
    for c in candidates:
        if c.is_dir():
            return c.resolve()
    raise FileNotFoundError(
        f"no lessons folder at {', '.join(str(c) for c in candidates)}: run this from the "
        f"minigenesis checkout, or pass --path lessons/"
    )


def find_chapters(lessons: Path, wanted: list[str] | None = None) -> list[Chapter]:
    """The chapter folders (NN_topic with a test_lesson.py), optionally filtered by number/name."""
    chapters = []
    for d in sorted(lessons.iterdir()):
        m = _CHAPTER_RE.match(d.name)
        if not (d.is_dir() and m and (d / "test_lesson.py").is_file()):
            continue
        if wanted and not any(
            w == d.name or (w.isdigit() and int(w) == int(m.group(1))) for w in wanted
        ):
            continue
        ch = Chapter(d)
        ch.numbers = exercise_numbers(d)
        chapters.append(ch)
    return chapters


def exercise_numbers(chapter: Path) -> list[str]:
    """Every exercise of a chapter: the numbers its checks are marked with, and its stubs."""
    found: set[str] = set()
    for args in _MARKER_RE.findall((chapter / "test_lesson.py").read_text(encoding="utf-8")):
        found.update(_NUMBER_RE.findall(args))
    found.update(stub_numbers(chapter / "exercises.py"))
    return sorted(found, key=_number_key)


def stub_numbers(exercises: Path) -> set[str]:
    """The exercises whose ``raise NotImplementedError("Exercise N.M ...")`` is still there."""
    if not exercises.is_file():
        return set()
    return set(_STUB_RE.findall(exercises.read_text(encoding="utf-8")))


def run_checks(lessons: Path, chapters: list[Chapter], solutions: bool) -> list[dict]:
    """Run the chapters' test_lesson.py in one quiet pytest process; one record per check."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "status.json"
        env = dict(os.environ)
        env[_STATUS_ENV] = str(out)
        env[_SOLUTIONS_ENV] = "1" if solutions else "0"
        here = Path(__file__).resolve().parent  # lessons/: this file, the plugin of the run
        paths = (str(here.parent), str(here), env.get("PYTHONPATH"))  # the package, the plugin
        env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "_progress",
            "-p",
            "no:cacheprovider",
            "--color=no",
        ]
        cmd += [str(ch.path / "test_lesson.py") for ch in chapters]
        subprocess.run(
            cmd,
            cwd=lessons.parent,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=1800,
            check=False,
        )
        if not out.is_file():
            return []
        return json.loads(out.read_text(encoding="utf-8"))


def grade(chapter: Chapter, records: list[dict], stubs: set[str]) -> None:
    """Sort a chapter's exercises into done / to do / failing from its checks' outcomes."""
    mine = [r for r in records if Path(r["file"]).resolve().parent == chapter.path.resolve()]
    for number in chapter.numbers:
        checks = [r for r in mine if number in r["exercises"] or r["todo"] == number]
        if number in stubs or any(r["todo"] == number for r in checks):
            chapter.todo.append(number)
        elif (
            checks
            and all(r["outcome"] != "failed" for r in checks)
            and any(r["outcome"] == "passed" for r in checks)
        ):
            chapter.done.append(number)
        else:
            chapter.failing.append(number)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m minigenesis lessons",
        description="Show the course chapters with your exercises done / total.",
    )
    parser.add_argument("chapters", nargs="*", help="only these chapters (numbers or folder names)")
    parser.add_argument("--path", help="the lessons folder (default: ./lessons)")
    parser.add_argument(
        "--solutions",
        action="store_true",
        help="check the reference solutions instead of your exercises",
    )
    parser.add_argument(
        "--no-run",
        action="store_true",
        help="do not run the checks: only count the stubs you have replaced",
    )
    args = parser.parse_args(argv)

    try:
        lessons = find_lessons_dir(args.path)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    chapters = find_chapters(lessons, args.chapters)
    if not chapters:
        print(f"error: no chapters found under {lessons}", file=sys.stderr)
        return 2

    checked = not args.no_run
    if checked:
        try:
            import pytest  # noqa: F401  (only to know whether the checks can run)
        except ImportError:
            checked = False
            print("(pytest is not installed: counting replaced stubs only, not checking them)")
    stubs = {
        ch.name: set() if args.solutions else stub_numbers(ch.path / "exercises.py")
        for ch in chapters
    }
    # A chapter whose exercises are all still stubs has nothing to check: skip running it.
    to_run = [ch for ch in chapters if set(ch.numbers) - stubs[ch.name]]
    records = run_checks(lessons, to_run, args.solutions) if checked and to_run else []

    mode = "reference solutions" if args.solutions else "your exercises.py"
    print(f"minigenesis course: exercises done / total ({mode})\n")
    width = max(len(ch.name) for ch in chapters)
    total = done = 0
    for ch in chapters:
        if checked:
            grade(ch, records, stubs[ch.name])
        else:
            ch.todo = [n for n in ch.numbers if n in stubs[ch.name]]
            ch.done = [n for n in ch.numbers if n not in stubs[ch.name]]
        total += len(ch.numbers)
        done += len(ch.done)
        line = f"  {ch.name:<{width}}  {len(ch.done):>2}/{len(ch.numbers):<2}"
        if ch.todo:
            line += "  to do: " + " ".join(ch.todo)
        if ch.failing:
            line += "  failing: " + " ".join(ch.failing)
        if len(ch.done) == len(ch.numbers):
            line += "  done"
        print(line)
    print(f"\n  {'total':<{width}}  {done:>2}/{total}")
    if done < total:
        print(
            "\nCheck a chapter with:  python -m pytest lessons/<chapter>   (one line per "
            "exercise left)"
        )
    return 0


# ----------------------------------------------------------------------------------------------
# The pytest plugin side (active only when main() started the run)
# ----------------------------------------------------------------------------------------------
_records: dict[str, dict] = {}


def pytest_collection_modifyitems(session, config, items) -> None:
    if _STATUS_ENV not in os.environ:
        return
    for item in items:
        numbers = [str(a) for m in item.iter_markers("exercise") for a in m.args]
        _records[item.nodeid] = {
            "nodeid": item.nodeid,
            "file": str(item.path),
            "exercises": numbers,
            "outcome": None,
            "todo": None,
        }


def pytest_runtest_logreport(report) -> None:
    record = _records.get(report.nodeid)
    if record is None:
        return
    if report.failed:
        record["outcome"] = "failed"
        record["todo"] = record["todo"] or getattr(report, "exercise_todo", None)
    elif report.skipped and record["outcome"] is None:
        record["outcome"] = "skipped"
    elif report.passed and report.when == "call" and record["outcome"] is None:
        record["outcome"] = "passed"


def pytest_sessionfinish(session, exitstatus) -> None:
    path = os.environ.get(_STATUS_ENV)
    if path:
        Path(path).write_text(json.dumps(list(_records.values())), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
