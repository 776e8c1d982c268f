"""The course's pytest machinery.

- ``impl``: a fixture holding this chapter's ``exercises.py`` (or ``solutions.py`` under
  ``pytest --solutions``). Tests call ``impl.some_exercise(...)`` and compare with minigenesis,
  NumPy or a closed form -- never with the exercises themselves.
- Learner mode: a test stopped by a stub's ``NotImplementedError("Exercise 7.2: ...")`` is
  reported as ``TODO`` and summarised in one line per exercise ("Exercise 7.2 not done yet: ..."),
  instead of a traceback. It still counts as not passing (pytest's exit status is 1).
- Every chapter's test file is called ``test_lesson.py``; pytest's default import mode would
  refuse the second one, so each is imported fresh (see ``pytest_collectstart``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _course  # noqa: E402  (the folder above must be on the path first)

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_NOTEBOOK_TODO = re.compile(r"NotImplementedError: Exercise (\d+\.\d+)\s*:?\s*([^\n]*)")


def _solutions(config: pytest.Config) -> bool:
    return bool(config.getoption("--solutions", default=False)) or _course.solutions_mode()


@pytest.fixture(scope="module")
def impl(request: pytest.FixtureRequest):
    """This chapter's exercises.py, or solutions.py with ``--solutions``.

    Module-scoped (the file is imported once anyway), so hypothesis's ``@given`` tests can use it.
    """
    folder = Path(request.path).resolve().parent
    name = "solutions.py" if _solutions(request.config) else "exercises.py"
    return _course.load_file(folder / name)


@pytest.fixture(scope="module")
def solutions_mode(request: pytest.FixtureRequest) -> bool:
    """True when the run checks the reference solutions (``--solutions``)."""
    return _solutions(request.config)


def pytest_collectstart(collector: pytest.Collector) -> None:
    # Under the default "prepend" import mode a test file is imported by its base name, and the
    # second lessons/*/test_lesson.py would collide with the first in sys.modules. Forgetting the
    # previous one makes Python import the file pytest is about to collect.
    path = getattr(collector, "path", None)
    if isinstance(collector, pytest.Module) and path is not None:
        previous = sys.modules.get(path.stem)
        if previous is not None and Path(getattr(previous, "__file__", "") or "") != path:
            del sys.modules[path.stem]


def _exercise_todo(excinfo: pytest.ExceptionInfo | None) -> tuple[str, str] | None:
    """(number, message) if the failure is a stub's NotImplementedError("Exercise N.M: ...")."""
    if excinfo is None:
        return None
    exc: BaseException | None = excinfo.value
    seen = set()
    while exc is not None and id(exc) not in seen:  # also look through "raise ... from stub"
        seen.add(id(exc))
        if isinstance(exc, NotImplementedError):
            match = _course.EXERCISE_RE.match(str(exc))
            if match:
                return match.group(1), match.group(2).strip()
        exc = exc.__cause__ or exc.__context__
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A stub's NotImplementedError becomes a short failed report.

    Built here, before pytest's own hook, so that no traceback is ever rendered (rendering one
    costs ~0.2 s, which adds up over a chapter of unfinished exercises).
    """
    todo = _exercise_todo(call.excinfo)
    where = ""
    if todo is None and call.excinfo is not None and item.path.suffix == ".ipynb":
        # nbmake: the kernel's traceback is text inside the failure
        match = _NOTEBOOK_TODO.search(_ANSI.sub("", str(item.repr_failure(call.excinfo))))
        if match:
            where = f"{item.path.parent.name}/{item.path.name}: "
            todo = match.group(1), match.group(2).strip()
    if todo is None:
        return None  # pytest makes the usual report
    number, message = todo
    report = pytest.TestReport(
        item.nodeid,
        item.location,
        {k: 1 for k in item.keywords},
        "failed",
        f"{where}Exercise {number} not done yet: {message}",
        call.when,
        duration=call.duration,
        start=call.start,
        stop=call.stop,
        user_properties=item.user_properties,
    )
    report.exercise_todo = number
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    if getattr(report, "exercise_todo", None):
        return "todo", "T", ("TODO", {"yellow": True})
    return None


# exercise number -> [its one-line report, the names of the checks it stopped]
_TODO: dict[str, list] = {}


def pytest_sessionstart(session: pytest.Session) -> None:
    _TODO.clear()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    number = getattr(report, "exercise_todo", None)
    if number:
        entry = _TODO.setdefault(number, [str(report.longrepr), []])
        entry[1].append(report.nodeid.split("::")[-1])


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    todo = _TODO
    if not todo:
        return
    terminalreporter.section("exercises not done yet", sep="=", yellow=True)
    for number in sorted(todo, key=lambda n: tuple(int(p) for p in n.split("."))):
        line, tests = todo[number]
        note = f"  [{len(tests)} checks]" if len(tests) > 1 else ""
        terminalreporter.write_line(line + note)
    terminalreporter.write_line(
        "Open the chapter's exercises.py, replace each `raise NotImplementedError` with your code, "
        "and run pytest again."
    )
