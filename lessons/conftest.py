"""The course's pytest machinery.

- ``impl``: what a check calls (``impl.some_exercise(...)``), compared with minigenesis, NumPy or
  a closed form -- never with the exercises themselves. For a check marked
  ``@pytest.mark.exercise("N.M")`` it is YOUR code for N.M and the reference answers for the
  chapter's other exercises, so that a check's result depends on its own exercise alone. Under
  ``pytest --solutions`` it is ``solutions.py``.
- Learner mode (no ``--solutions``): a check stopped by a stub's
  ``NotImplementedError("Exercise 7.2: ...")`` is reported as ``TODO`` and summarised in one line
  per exercise ("Exercise 7.2 not done yet: ..."), instead of a traceback. Unfinished exercises
  are what learner mode expects: when they are the only thing left, pytest exits with status 0;
  a wrong answer (or any other failure) still fails as usual.
- An ``exercises.py`` that does not load (a syntax error, say) is one failure naming the file and
  line, in place of that chapter's checks.
- Every chapter's test file is called ``test_lesson.py``; pytest's default import mode would
  refuse the second one, so each is imported fresh (see ``pytest_collectstart``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import minigenesis as mg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _course  # noqa: E402  (the folder above must be on the path first)

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_NOTEBOOK_TODO = re.compile(r"NotImplementedError: Exercise (\d+\.\d+)\s*:?\s*([^\n]*)")


def _solutions(config: pytest.Config) -> bool:
    return bool(config.getoption("--solutions", default=False)) or _course.solutions_mode()


# The check that is running now: `impl` looks at its exercise marker.
_RUNNING: dict[str, pytest.Item | None] = {"item": None}
# (chapter folder, exercises kept) -> module, for this session
_HYBRIDS: dict[tuple[str, frozenset | None], object] = {}


def _exercises_of(item: pytest.Item | None) -> frozenset | None:
    if item is None:
        return None
    numbers = {str(a) for m in item.iter_markers("exercise") for a in m.args}
    return frozenset(numbers) if numbers else None


class _Impl:
    """The ``impl`` of one chapter: attribute lookups go to the module the running check needs."""

    def __init__(self, folder: Path, solutions: bool) -> None:
        self._folder = folder
        self._solutions = solutions

    def _module(self):
        if self._solutions:
            return _course.load_file(self._folder / _course.SOLUTIONS)
        keep = _exercises_of(_RUNNING["item"])
        key = (str(self._folder), keep)
        if key not in _HYBRIDS:
            tag = "check_" + "_".join(sorted(keep)) if keep else "check"
            _HYBRIDS[key] = _course.hybrid(self._folder, keep=set(keep) if keep else None, tag=tag)
        return _HYBRIDS[key]

    def __getattr__(self, name: str):
        return getattr(self._module(), name)

    def __repr__(self) -> str:
        return f"<impl of {self._folder.name}: {self._module().__file__}>"


@pytest.fixture(scope="module")
def impl(request: pytest.FixtureRequest):
    """This chapter's code as a check of the running exercise should see it (see the module
    docstring); ``solutions.py`` with ``--solutions``.

    Module-scoped (so hypothesis's ``@given`` tests can use it); what it returns follows the
    running check's ``exercise`` marker.
    """
    return _Impl(Path(request.path).resolve().parent, _solutions(request.config))


@pytest.fixture(autouse=True)
def _seeded() -> None:
    """Every check starts from seed 0 (each process starts from a fresh seed, as PyTorch's)."""
    mg.manual_seed(0)


@pytest.fixture(autouse=True)
def _running_check(request: pytest.FixtureRequest):
    _RUNNING["item"] = request.node
    yield
    _RUNNING["item"] = None


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


# ----------------------------------------------------------------------------------------------
# An exercises.py that does not load: one failure for the chapter, naming the file and line
# ----------------------------------------------------------------------------------------------
class _ExercisesDoNotLoad(Exception):
    pass


class ExercisesFileItem(pytest.Item):
    """Stands in for a chapter's checks while its exercises.py does not load."""

    def __init__(self, *, message: str, count: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.message = message
        self.count = count

    def runtest(self) -> None:
        raise _ExercisesDoNotLoad(self.message)

    def repr_failure(self, excinfo, style=None) -> str:
        return f"{self.message}  (the chapter's {self.count} checks wait until it loads)"

    def reportinfo(self):
        return self.path, None, "exercises.py"


def _load_problem(folder: Path) -> str | None:
    path = _course.learner_file(folder)
    problem = _course.load_error(path)
    if problem:
        return problem
    try:
        _course.load_file(path, fresh=True, tag="probe")
    except Exception as err:  # noqa: BLE001  (whatever the learner's file raises: name it)
        return _course.describe_error(path, err)
    return None


def pytest_collection_modifyitems(session, config, items) -> None:
    if _solutions(config):
        return
    by_folder: dict[Path, list[pytest.Item]] = {}
    for item in items:
        if item.path.name == "test_lesson.py" and (item.path.parent / _course.TEMPLATE).is_file():
            by_folder.setdefault(item.path.parent, []).append(item)
    for folder, chapter_items in by_folder.items():
        problem = _load_problem(folder)
        if problem is None:
            continue
        first = items.index(chapter_items[0])
        stand_in = ExercisesFileItem.from_parent(
            chapter_items[0].parent,
            name="exercises.py",
            message=problem,
            count=len(chapter_items),
        )
        stand_in.broken_exercises = problem
        for item in chapter_items:
            items.remove(item)
        items.insert(first, stand_in)


# ----------------------------------------------------------------------------------------------
# Unfinished exercises: one line each, and not an error in learner mode
# ----------------------------------------------------------------------------------------------
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
    broken = getattr(item, "broken_exercises", None)
    if broken and call.excinfo is not None:
        report = _short_report(item, call, item.repr_failure(call.excinfo))
        report.broken_exercises = broken
        return report
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
    report = _short_report(item, call, f"{where}Exercise {number} not done yet: {message}")
    report.exercise_todo = number
    return report


def _short_report(item: pytest.Item, call: pytest.CallInfo, text: str) -> pytest.TestReport:
    return pytest.TestReport(
        item.nodeid,
        item.location,
        {k: 1 for k in item.keywords},
        "failed",
        text,
        call.when,
        duration=call.duration,
        start=call.start,
        stop=call.stop,
        user_properties=item.user_properties,
    )


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    if getattr(report, "exercise_todo", None):
        return "todo", "T", ("TODO", {"yellow": True})
    return None


# exercise number -> [its one-line report, the names of the checks it stopped]
_TODO: dict[str, list] = {}
_OTHER_FAILURES = [0]


def pytest_sessionstart(session: pytest.Session) -> None:
    _TODO.clear()
    _OTHER_FAILURES[0] = 0


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    number = getattr(report, "exercise_todo", None)
    if number:
        entry = _TODO.setdefault(number, [str(report.longrepr), []])
        entry[1].append(report.nodeid.split("::")[-1])
    elif report.failed:
        _OTHER_FAILURES[0] += 1


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Learner mode: exercises not done yet are the expected state of a course, not a failure of
    # the project. When they are all that failed, the run succeeds (a wrong answer still fails).
    if (
        _TODO
        and not _OTHER_FAILURES[0]
        and not _solutions(session.config)
        and exitstatus == pytest.ExitCode.TESTS_FAILED
    ):
        session.exitstatus = pytest.ExitCode.OK


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    todo = _TODO
    if not todo:
        return
    terminalreporter.section("exercises not done yet", sep="=", yellow=True)
    for number in sorted(todo, key=lambda n: tuple(int(p) for p in n.split("."))):
        line, tests = todo[number]
        note = f"  [{len(tests)} checks]" if len(tests) > 1 else ""
        terminalreporter.write_line(line + note)
    checks = sum(len(tests) for _, tests in todo.values())
    terminalreporter.write_line(
        f"Learner mode: these {checks} checks wait for exercises you have not written yet, as "
        "expected (they do not make the run fail). Write each in the chapter's exercises.py (your "
        "copy of exercises_template.py) and run pytest again; `python -m minigenesis lessons` "
        "shows your progress, and `python -m pytest --solutions` checks the reference answers."
    )


# ----------------------------------------------------------------------------------------------
# A failing check starts with its exercise number
# ----------------------------------------------------------------------------------------------
class _NumberedFailure:
    """A failure's report, headed by the exercise its check is marked with."""

    def __init__(self, number: str, inner) -> None:
        self.number, self.inner = number, inner

    def toterminal(self, tw) -> None:
        tw.line(f"Exercise {self.number}: this check of your answer failed", red=True, bold=True)
        self.inner.toterminal(tw)

    def __str__(self) -> str:
        return f"Exercise {self.number}: {self.inner}"

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


class _ExerciseNumbers:
    """The plugin that heads each failure with its exercise number (a plugin object, because
    this file's own ``pytest_runtest_makereport`` builds the reports of unfinished exercises)."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        numbers = _exercises_of(item)
        if not (report.failed and numbers and len(numbers) == 1):
            return
        if getattr(report, "exercise_todo", None) or getattr(report, "broken_exercises", None):
            return  # already one line that names its exercise or file
        (number,) = numbers
        longrepr = report.longrepr
        if isinstance(longrepr, str):
            report.longrepr = f"Exercise {number}: {longrepr}"
            return
        crash = getattr(longrepr, "reprcrash", None)
        if crash is not None and not crash.message.startswith("Exercise "):
            crash.message = f"Exercise {number}: {crash.message}"  # the short summary's line
        if hasattr(longrepr, "toterminal"):
            report.longrepr = _NumberedFailure(number, longrepr)


def pytest_configure(config: pytest.Config) -> None:
    _course.one_blas_thread()  # as every notebook's first cell does (see _course.py)
    if not config.pluginmanager.has_plugin("lessons-exercise-numbers"):
        config.pluginmanager.register(_ExerciseNumbers(), "lessons-exercise-numbers")
