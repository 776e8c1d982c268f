"""``python -m minigenesis lessons``: how far you are in the course.

For every chapter under ``lessons/`` it runs the chapter's checks (``test_lesson.py``) on YOUR
``exercises.py`` (your copy of ``exercises_template.py``), quietly, in one pytest run, and prints
the exercises done / total::

    01_tensors_and_dtypes        3/6   to do: 1.4 1.5 1.6
    02_autograd_from_scratch     0/5   to do: 2.1 2.2 2.3 2.4 2.5

An exercise is done when every check marked ``@pytest.mark.exercise("N.M")`` passes; each check
runs your code for its own exercise and the reference answers for the others, so a status
depends on that exercise alone. One that no longer raises its ``NotImplementedError`` but fails a
check is listed as "failing"; an ``exercises.py`` that does not load is named, with its line.
Without pytest installed, the command falls back to counting the stubs you have replaced.

    python -m minigenesis lessons reset 02    # start chapter 2 over (your file is kept as a backup)
    python -m minigenesis lessons update      # add to your files the exercises a newer course has
    python -m minigenesis lessons capstone --mine   # train the capstone with your engine's pieces

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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _course  # noqa: E402  (lessons/ must be on the path first)
import _moves  # noqa: E402

_STATUS_ENV = "MINIGENESIS_LESSONS_STATUS_FILE"
_SOLUTIONS_ENV = _course.SOLUTIONS_ENV
_CHAPTER_RE = re.compile(r"^(\d{2})_\w+$")
_MARKER_RE = re.compile(r"mark\.exercise\(([^)]*)\)")
_NUMBER_RE = re.compile(r"\d+\.\d+")
_STUB_RE = re.compile(r"NotImplementedError\(\s*[rRuU]?[\"']{1,3}Exercise (\d+\.\d+)")


def _number_key(number: str) -> tuple[int, ...]:
    return tuple(int(p) for p in number.split("."))


def _names_chapter(wanted: str, folder: str) -> bool:
    """Whether a chapter argument (``02``, ``2`` or the folder's name) means this folder. Only
    ASCII digits count as a number: ``str.isdigit`` also accepts ``'²'``, which int() refuses."""
    if wanted == folder:
        return True
    return wanted.isascii() and wanted.isdigit() and int(wanted) == int(folder[:2])


@dataclass
class Chapter:
    """One lessons/NN_topic folder and what we know about its exercises."""

    path: Path
    numbers: list[str] = field(default_factory=list)  # every exercise, in order
    done: list[str] = field(default_factory=list)
    todo: list[str] = field(default_factory=list)  # still a stub
    failing: list[str] = field(default_factory=list)  # implemented, but a check fails
    broken: str = ""  # exercises.py does not load: where and why

    @property
    def name(self) -> str:
        return self.path.name


PATH_HELP = "the lessons folder (default: ./lessons, else this checkout's lessons/)"


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
        if wanted and not any(_names_chapter(w, d.name) for w in wanted):
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
    found.update(stub_numbers(chapter / _course.TEMPLATE))
    return sorted(found, key=_number_key)


def stub_numbers(exercises: Path) -> set[str]:
    """The exercises whose ``raise NotImplementedError("Exercise N.M ...")`` is still there."""
    if not exercises.is_file():
        return set()
    # bytes that are not UTF-8 match no stub: such a file is reported as not loading instead
    return set(_STUB_RE.findall(exercises.read_text(encoding="utf-8", errors="replace")))


def learner_stubs(chapter: Path) -> set[str]:
    """The exercises still stubs in the learner's copy (the template's when there is no copy)."""
    return stub_numbers(_course.learner_file(chapter, create=False))


def run_checks(
    lessons: Path, chapters: list[Chapter], solutions: bool, stubs: bool = False
) -> list[dict]:
    """Run the chapters' test_lesson.py in one quiet pytest process; one record per check.

    ``stubs`` checks the shipped templates instead of the learner's copies (for the project's
    own tests: nothing of the learner's is read or written)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "status.json"
        env = dict(os.environ)
        env[_STATUS_ENV] = str(out)
        env[_SOLUTIONS_ENV] = "1" if solutions else "0"
        env[_course.STUBS_ENV] = "1" if stubs else "0"
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
            "-p",
            "no:nbmake",  # notebooks are not part of the checks; its start-up costs seconds
            "-p",
            "no:hypothesispytest",  # same (@given works without its pytest plugin)
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
    broken = [r["broken"] for r in mine if r.get("broken")]
    if broken:
        chapter.broken = broken[0]
        chapter.todo = [n for n in chapter.numbers if n in stubs]
        chapter.failing = [n for n in chapter.numbers if n not in stubs]
        return
    for number in chapter.numbers:
        checks = [r for r in mine if number in r["exercises"] or r["todo"] == number]
        # a check of this exercise stopped by a stub: its own (the others run reference answers)
        if number in stubs or any(r["todo"] for r in checks):
            chapter.todo.append(number)
        elif (
            checks
            and all(r["outcome"] != "failed" for r in checks)
            and any(r["outcome"] == "passed" for r in checks)
        ):
            chapter.done.append(number)
        else:
            chapter.failing.append(number)


def _reset_or_update(argv: list[str], parser_class: type[argparse.ArgumentParser]) -> int:
    """``lessons reset CHAPTER...`` and ``lessons update [CHAPTER...]``."""
    command, rest = argv[0], argv[1:]
    parser = parser_class(
        prog=f"python -m minigenesis lessons {command}",
        description=(
            "Start chapters over: your exercises.py is renamed to a dated backup next to it and a "
            "fresh copy of exercises_template.py takes its place."
            if command == "reset"
            else "Add to your exercises.py the exercises a newer course has (your answers are "
            "kept as they are); without chapters, every chapter."
        ),
    )
    parser.add_argument(
        "chapters", nargs="+" if command == "reset" else "*", help="numbers or folder names"
    )
    parser.add_argument("--path", help=PATH_HELP)
    args = parser.parse_args(rest)
    try:
        lessons = find_lessons_dir(args.path)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    chapters = find_chapters(lessons, args.chapters)
    unknown = [w for w in args.chapters if not any(_names_chapter(w, c.name) for c in chapters)]
    if unknown or not chapters:
        print(f"error: no chapter {' '.join(unknown) or ''} under {lessons}", file=sys.stderr)
        return 2
    problem = _cannot_update(chapters) or _moves.problem(lessons) if command == "update" else None
    problem = problem or _symlinked(chapters)
    if problem:  # before any file is touched: all chapters are done, or none
        print(f"error: {problem}; nothing was changed", file=sys.stderr)
        return 2
    if command == "update":  # exercises a newer course moved to another chapter: first
        for line in _moves.migrate(lessons, {ch.name for ch in chapters}):
            print(line)
    for ch in chapters:
        mine = ch.path / _course.EXERCISES
        if command == "reset":
            backup = _course.reset(ch.path)
            kept = f" (your previous file: {backup.name})" if backup else ""
            print(f"{ch.name}: exercises.py is a fresh copy of the template{kept}")
        else:
            existed = mine.is_file()
            added = _course.update(ch.path)
            refreshed, changed = _course.refresh_unstarted(ch.path) if existed else ([], [])
            if not existed:
                print(f"{ch.name}: made exercises.py from the template")
            if added:
                print(f"{ch.name}: added to exercises.py: {', '.join(added)}")
            if refreshed:
                print(
                    f"{ch.name}: exercises you had not started, brought up to the course's new "
                    f"version: {', '.join(refreshed)} (your previous file: "
                    f"exercises.before-update-*.py)"
                )
            if changed:
                print(
                    f"{ch.name}: changed in the course, your answers kept as they are: "
                    f"{', '.join(changed)}; compare them with exercises_template.py (the "
                    f"checks expect its interface)"
                )
            if existed and not (added or refreshed or changed):
                print(f"{ch.name}: up to date")
    return 0


def _capstone(
    argv: list[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
) -> int:
    """``lessons capstone --mine``: see lessons/_capstone_mine.py."""
    path = argv[argv.index("--path") + 1] if "--path" in argv[:-1] else None
    try:
        lessons = find_lessons_dir(path)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    import _capstone_mine  # (numpy and minigenesis load only for this command)

    return _capstone_mine.main(argv, lessons=lessons, parser_class=parser_class)


def _symlinked(chapters: list[Chapter]) -> str | None:
    """A learner's file that is a symbolic link: writing it would write wherever it points."""
    for ch in chapters:
        mine = ch.path / _course.EXERCISES
        if mine.is_symlink():
            return f"{mine} is a symbolic link; make it a plain file to let the course write it"
    return None


def _cannot_update(chapters: list[Chapter]) -> str | None:
    """A learner's file that does not parse (a syntax error, bytes that are not UTF-8): its
    exercises cannot be compared with the template's, so ``update`` leaves it alone."""
    for ch in chapters:
        mine = ch.path / _course.EXERCISES
        problem = _course.load_error(mine) if mine.is_file() else None
        if problem:
            return f"cannot update {ch.name}: {problem} (fix it, or start over: lessons reset)"
    return None


def main(
    argv: list[str] | None = None,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> int:
    """The ``lessons`` command. ``parser_class`` reads its arguments: the command line passes
    its own, whose errors are one line (exit 2) without a usage dump."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("reset", "update"):
        return _reset_or_update(argv, parser_class)
    if argv and argv[0] == "capstone":  # the capstone trained by your engine's pieces
        return _capstone(argv[1:], parser_class)
    parser = parser_class(
        prog="python -m minigenesis lessons",
        description="Show the course chapters with your exercises done / total. "
        "`lessons reset CHAPTER` starts a chapter over; `lessons update` adds the exercises of a "
        "newer course to your files; `lessons capstone --mine` trains the capstone with your own "
        "engine's pieces.",
    )
    parser.add_argument("chapters", nargs="*", help="only these chapters (numbers or folder names)")
    parser.add_argument("--path", help=PATH_HELP)
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
    unknown = [w for w in args.chapters if not any(_names_chapter(w, c.name) for c in chapters)]
    if unknown:  # `lessons 99` or a mistyped command (`lessons rest 02`): say which, and what is
        print(
            f"error: no chapter {' '.join(unknown)} under {lessons} (a chapter is a number such "
            "as 02 or a folder name; the commands are reset, update and capstone)",
            file=sys.stderr,
        )
        return 2
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
    stubs = {ch.name: set() if args.solutions else learner_stubs(ch.path) for ch in chapters}
    if not args.solutions:  # a file that does not even compile: say where, and run nothing of it
        for ch in chapters:
            ch.broken = _course.load_error(_course.learner_file(ch.path, create=False)) or ""
    # A chapter whose exercises are all still stubs has nothing to check: skip running it.
    to_run = [ch for ch in chapters if set(ch.numbers) - stubs[ch.name] and not ch.broken]
    records = run_checks(lessons, to_run, args.solutions) if checked and to_run else []

    for line in [] if args.solutions else _moves.pending(lessons):
        print(line)  # answers left where a newer course no longer looks for them
    mode = "reference solutions" if args.solutions else "your exercises.py"
    print(f"minigenesis course: exercises done / total ({mode})\n")
    width = max(len(ch.name) for ch in chapters)
    total = done = 0
    for ch in chapters:
        if ch.broken:
            ch.todo = [n for n in ch.numbers if n in stubs[ch.name]]
            ch.failing = [n for n in ch.numbers if n not in stubs[ch.name]]
        elif checked:
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
        if ch.broken:
            line += f"\n      does not load: {ch.broken}"
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


def _hookimpl(**kwargs):
    """pytest's hookimpl marker, without making pytest a requirement of the command itself."""
    try:
        import pytest
    except ImportError:
        return lambda func: func
    return pytest.hookimpl(**kwargs)


@_hookimpl(trylast=True)  # after lessons/conftest.py has put in its stand-ins
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
            "skip_reason": None,
            "broken": getattr(item, "broken_exercises", None),
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
        # pytest's skip report is (file, line, reason); a missing optional package shows here
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
            record["skip_reason"] = str(report.longrepr[2])
    elif report.passed and report.when == "call" and record["outcome"] is None:
        record["outcome"] = "passed"


def pytest_sessionfinish(session, exitstatus) -> None:
    path = os.environ.get(_STATUS_ENV)
    if path:
        Path(path).write_text(json.dumps(list(_records.values())), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
