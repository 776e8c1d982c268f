"""The course's shape: every chapter has its four files, the shipped stubs and the solutions agree
on names and signatures, every stub raises NotImplementedError naming its exercise and has checks,
notebooks carry no outputs, and the learner-mode machinery (one-line reports, exact progress,
reset, ``minigenesis lessons``) works.

These checks read the shipped stubs (``exercises_template.py``) and the reference answers, never a
learner's ``exercises.py``: working through the course leaves them green.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"
TEMPLATE = "exercises_template.py"  # the stubs as shipped; a learner works in exercises.py
FILES = ("lesson.ipynb", TEMPLATE, "solutions.py", "test_lesson.py")
# A folder with none of a chapter's files is a learner's leftover after a newer course renumbered
# its chapters (their exercises.py, until `lessons update` carries it over): not a chapter.
CHAPTERS = sorted(
    d
    for d in LESSONS.iterdir()
    if d.is_dir()
    and re.fullmatch(r"\d{2}_[a-z0-9_]+", d.name)
    and any((d / f).is_file() for f in FILES)
)
IDS = [d.name for d in CHAPTERS]
STUB_MESSAGE = re.compile(r"Exercise (\d+)\.(\d+): \S")


def _course():
    spec = importlib.util.spec_from_file_location("lessons_course_helper", LESSONS / "_course.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


course = _course()


def _progress():
    """lessons/_progress.py, the progress tool behind ``python -m minigenesis lessons``."""
    spec = importlib.util.spec_from_file_location("_progress", LESSONS / "_progress.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while a class is built
    spec.loader.exec_module(module)
    return module


def _stub_raises(tree: ast.AST) -> list[ast.Raise]:
    """Every ``raise NotImplementedError(...)`` in a module."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                out.append(node)
    return out


def _message(node: ast.Raise) -> str | None:
    call = node.exc
    if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Constant):
        return call.args[0].value if isinstance(call.args[0].value, str) else None
    return None


def _stub_numbers(chapter: Path) -> set[str]:
    tree = ast.parse((chapter / TEMPLATE).read_text(encoding="utf-8"))
    numbers = set()
    for node in _stub_raises(tree):
        match = STUB_MESSAGE.match(_message(node) or "")
        if match:
            numbers.add(f"{match.group(1)}.{match.group(2)}")
    return numbers


def _marked_numbers(chapter: Path) -> set[str]:
    tree = ast.parse((chapter / "test_lesson.py").read_text(encoding="utf-8"))
    numbers = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "exercise"
        ):
            numbers.update(a.value for a in node.args if isinstance(a, ast.Constant))
    return numbers


def _public(module) -> dict:
    """Functions and classes a module defines itself (not imports), without a leading _."""
    return {
        name: obj
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == module.__name__
    }


def _methods(cls: type) -> dict:
    """The methods a class defines itself (public names and dunders such as __add__)."""
    out = {}
    for name, attr in vars(cls).items():
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        func = attr.__func__ if isinstance(attr, (staticmethod, classmethod)) else attr
        if inspect.isfunction(func):
            out[name] = func
    return out


def test_there_are_chapters():
    assert len(CHAPTERS) >= 6, f"expected the course's chapters under {LESSONS}"
    numbers = [int(d.name[:2]) for d in CHAPTERS]
    assert numbers == list(range(1, len(numbers) + 1)), f"chapters must be numbered 01..: {IDS}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_chapter_has_its_four_files(chapter: Path):
    missing = [f for f in FILES if not (chapter / f).is_file()]
    hint = ""
    if TEMPLATE in missing:
        hint = (
            f" (the stubs are committed as {TEMPLATE}; exercises.py is the learner's own copy, "
            "made from it and ignored by git: see lessons/README.md)"
        )
    assert not missing, f"{chapter.name} lacks {missing}{hint}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_exercises_and_solutions_have_the_same_names_and_signatures(chapter: Path):
    ex = course.load_file(chapter / TEMPLATE)
    sol = course.load_file(chapter / "solutions.py")
    ex_names, sol_names = _public(ex), _public(sol)
    assert sorted(ex_names) == sorted(sol_names), f"{chapter.name}: public names differ"
    for name, obj in ex_names.items():
        other = sol_names[name]
        assert inspect.isclass(obj) == inspect.isclass(other), f"{name}: class vs function"
        if inspect.isfunction(obj):
            assert str(inspect.signature(obj)) == str(inspect.signature(other)), name
            continue
        ex_methods, sol_methods = _methods(obj), _methods(other)
        assert sorted(ex_methods) == sorted(sol_methods), f"{name}: methods differ"
        for meth, func in ex_methods.items():
            sig, sol_sig = inspect.signature(func), inspect.signature(sol_methods[meth])
            assert str(sig) == str(sol_sig), f"{name}.{meth}"


def _imported(path: Path) -> set[str]:
    """The names a module's top-level imports bind (``import numpy as np`` binds ``np``)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_the_template_imports_what_the_answers_use(chapter: Path):
    # a learner writing the reference answer into the template must not meet a NameError
    # (`mg`, `math`) that the template could have spared them
    missing = _imported(chapter / "solutions.py") - _imported(chapter / TEMPLATE)
    assert not missing, (
        f"{chapter.name}/{TEMPLATE} lacks the imports solutions.py uses: {sorted(missing)} "
        "(add them, with `# noqa: F401` while no ready-made code uses them)"
    )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_stubs_name_their_exercise(chapter: Path):
    number = int(chapter.name[:2])
    tree = ast.parse((chapter / TEMPLATE).read_text(encoding="utf-8"))
    raises = _stub_raises(tree)
    for node in raises:
        msg = _message(node)
        match = STUB_MESSAGE.match(msg or "")
        assert match and int(match.group(1)) == number, (
            f"{chapter.name}/{TEMPLATE} line {node.lineno}: a stub must raise "
            f'NotImplementedError("Exercise {number}.M: what to do"), got {msg!r}'
        )
    assert len(_stub_numbers(chapter)) >= 3, f"{chapter.name}: fewer than 3 exercises"
    solutions = (chapter / "solutions.py").read_text(encoding="utf-8")
    assert 'NotImplementedError("Exercise' not in solutions, f"{chapter.name}: unsolved solution"
    for name in (TEMPLATE, "solutions.py"):
        tree = ast.parse((chapter / name).read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                assert ast.get_docstring(node), (
                    f"{chapter.name}/{name}: {node.name} has no docstring"
                )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_every_exercise_has_checks(chapter: Path):
    stubs, marked = _stub_numbers(chapter), _marked_numbers(chapter)
    assert stubs - marked == set(), (
        f"{chapter.name}: exercises without a @pytest.mark.exercise check: {sorted(stubs - marked)}"
    )
    assert marked - stubs == set(), f"{chapter.name}: checks for unknown exercises {marked - stubs}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_pure_stubs_raise_their_exercise(chapter: Path):
    """Call every stub whose body is only ``raise NotImplementedError(...)``: it must raise it."""
    ex = course.load_file(chapter / TEMPLATE)
    tree = ast.parse((chapter / TEMPLATE).read_text(encoding="utf-8"))
    called = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        body = [
            s
            for s in node.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        ]
        if len(body) != 1 or body[0] not in _stub_raises(node):
            continue
        func = _find_function(ex, tree, node)
        if func is None:
            continue
        params = [
            p
            for p in inspect.signature(func).parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        with pytest.raises(NotImplementedError, match=rf"^Exercise {int(chapter.name[:2])}\.\d+"):
            func(*[None] * len(params))
        called += 1
    assert called >= 1 or not _stub_numbers(chapter)


def _find_function(module, tree: ast.Module, node: ast.FunctionDef):
    """The callable for a FunctionDef: a module function, or a method bound to a bare instance."""
    if node in tree.body:
        return getattr(module, node.name, None)
    for cls_node in tree.body:
        if isinstance(cls_node, ast.ClassDef) and node in cls_node.body:
            cls = getattr(module, cls_node.name, None)
            attr = vars(cls).get(node.name) if cls is not None else None
            if isinstance(attr, (staticmethod, classmethod)):
                return getattr(cls, node.name)
            try:
                instance = cls.__new__(cls)
            except Exception:
                return None
            return getattr(instance, node.name, None)
    return None


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_notebook_has_no_outputs(chapter: Path):
    path = chapter / "lesson.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb.get("nbformat") == 4, f"{path}: not an nbformat-4 notebook"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{path}: no code cells"
    for i, cell in enumerate(code):
        assert cell.get("outputs") == [], f"{path}: code cell {i} has outputs (run nbstripout)"
        assert cell.get("execution_count") is None, f"{path}: code cell {i} has an execution count"
    assert "widgets" not in nb.get("metadata", {}), f"{path}: widget state saved"
    nbformat = pytest.importorskip("nbformat")
    nbformat.validate(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))


def test_nbstripout_verify_accepts_every_notebook():
    """What CI checks: nbstripout would change nothing (no outputs, ids and keys as it writes)."""
    pytest.importorskip("nbstripout")
    notebooks = [str(c / "lesson.ipynb") for c in CHAPTERS if (c / "lesson.ipynb").is_file()]
    run = subprocess.run(
        [sys.executable, "-m", "nbstripout", "--verify", *notebooks],
        capture_output=True,
        text=True,
        timeout=120,
    )
    stripped = [ln for ln in run.stdout.splitlines() if "would have stripped" in ln]
    assert run.returncode == 0, "\n".join(stripped) or run.stderr


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_notebook_matches_its_source(chapter: Path):
    """Where a notebook is built from lessons/_build/NN_topic.py, it must be up to date."""
    source = LESSONS / "_build" / f"{chapter.name}.py"
    if not source.is_file():
        pytest.skip("notebook written by hand")
    spec = importlib.util.spec_from_file_location("lessons_build", LESSONS / "_build" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    expected = build.render(build.notebook_from_source(source.read_text(encoding="utf-8")))
    actual = (chapter / "lesson.ipynb").read_text(encoding="utf-8")
    assert actual == expected, f"rebuild it: python lessons/_build/build.py {chapter.name}"


def test_learner_mode_stubs_fail_every_check():
    """With the stubs as shipped, every marked check fails, and fails because of a stub: a check
    that passed would not notice a missing exercise."""
    status = _progress()

    chapters = status.find_chapters(LESSONS)
    run = status.run_checks(LESSONS, chapters, solutions=False, stubs=True)
    records = [r for r in run if r["exercises"]]
    assert len(records) >= 3 * len(chapters), "the learner-mode run produced too few results"
    passing = [r["nodeid"] for r in records if r["outcome"] not in ("failed", "skipped")]
    assert not passing, f"checks that pass with the stubs: {passing}"
    # A check that needs an optional package (PyTorch as a second oracle) skips without it, and
    # a skip is no verdict either way: it is left out, and it may skip for no other reason.
    skipped = [r for r in records if r["outcome"] == "skipped"]
    odd = [r["nodeid"] for r in skipped if "could not import" not in (r["skip_reason"] or "")]
    assert not odd, f"checks that skip with the stubs, not for a missing package: {odd}"
    records = [r for r in records if r["outcome"] == "failed"]
    # every exercise still has a check that ran and noticed its stub
    unchecked = sorted({n for r in run for n in r["exercises"]} - {r["todo"] for r in records})
    assert not unchecked, f"exercises no check stopped at (all their checks skipped): {unchecked}"
    other = [r["nodeid"] for r in records if r["todo"] is None]
    assert not other, f"checks that fail for another reason than a stub: {other}"
    # each check gets the reference answers for the chapter's other exercises: what stops it is
    # the stub of its own exercise
    foreign = [r["nodeid"] for r in records if r["todo"] not in r["exercises"]]
    assert not foreign, f"checks stopped by another exercise's stub: {foreign}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_each_check_is_about_one_exercise(chapter: Path):
    """A check marked with several exercises would make their statuses depend on each other."""
    tree = ast.parse((chapter / "test_lesson.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "exercise"
        ):
            assert len(node.args) == 1, (
                f"{chapter.name}/test_lesson.py line {node.lineno}: mark a check with one "
                "exercise (the others' reference answers are what it gets)"
            )


def test_learner_files_are_ignored_by_git():
    """A learner's answers and their backups never reach a commit (nor a `git pull` conflict)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    chapter = CHAPTERS[0].relative_to(ROOT)
    paths = [
        chapter / "exercises.py",
        chapter / "exercises.before-reset-20260101-000000.py",
        chapter / TEMPLATE,
    ]
    run = subprocess.run(
        ["git", "check-ignore", "--no-index", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.stdout.split() == [str(p) for p in paths[:2]], run.stdout + run.stderr


_PROMPT = re.compile(r"\*\*Exercises? (\d+\.\d+)((?:(?:, | and )\d+\.\d+)*)\*\*")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_sections_are_named_and_exercises_come_in_order(chapter: Path):
    """Numbers in a lesson are exercise numbers only: a heading "7.3" next to "Exercise 7.1"
    would read as the wrong exercise. The exercises a lesson asks for come in their order."""
    nb = json.loads((chapter / "lesson.ipynb").read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    numbered = re.findall(r"^#+ +\d+\.\d+.*$", text, re.M)
    assert not numbered, f"{chapter.name}: headings with a number like an exercise's: {numbered}"
    lower = re.findall(r"\*\*exercises? \d+\.\d+[^*]*\*\*", text)
    assert not lower, f"{chapter.name}: write **Exercise N.M** with a capital E: {lower}"
    asked = []
    for first, rest in _PROMPT.findall(text):
        asked += [first] + re.findall(r"\d+\.\d+", rest)
    key = [tuple(int(p) for p in n.split(".")) for n in asked]
    assert key == sorted(key), f"{chapter.name}: exercises asked for out of order: {asked}"
    assert all(n.split(".")[0] == str(int(chapter.name[:2])) for n in asked), asked
