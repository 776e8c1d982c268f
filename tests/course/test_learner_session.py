"""A learner's session, simulated in a copy of the course: solve an exercise, get one wrong, leave
a syntax error in another chapter, start a chapter over. Throughout, the project's own checks
(structure, style, ``--solutions``) stay green, and progress reports each exercise exactly."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CH2 = "02_autograd_from_scratch"
CH3 = "03_broadcasting_and_gradients"

LONG_COMMENT = "  # the chain rule: the other factor times the incoming gradient, elementwise"
MUL_ANSWER = (  # a line of 116 characters: longer than the project's style allows
    "    def backward_fn(gz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:\n"
    f"        return gz * b.data, gz * a.data{LONG_COMMENT}\n\n"
    '    return Node(a.data * b.data, (a, b), backward_fn, "mul")\n'
)
MUL_STUB = """    raise NotImplementedError(
        "Exercise 2.1: return a Node for a * b whose backward_fn gives gz*b, gz*a"
    )
"""
TOPO_STUB = (
    '    raise NotImplementedError("Exercise 2.3: depth-first search from root with an explicit '
    'stack")\n'
)


def _copy_course(dest: Path) -> None:
    """The course and the project's checks of it; the package itself is imported from ROOT."""
    skip = shutil.ignore_patterns(
        "exercises.py", "exercises.*.py", "__pycache__", ".ipynb_checkpoints"
    )
    shutil.copytree(ROOT / "lessons", dest / "lessons", ignore=skip)
    (dest / "tests" / "course").mkdir(parents=True)
    for name in ("conftest.py", "pyproject.toml", ".gitignore"):
        shutil.copy(ROOT / name, dest / name)
    shutil.copy(ROOT / "tests" / "test_style.py", dest / "tests" / "test_style.py")
    for name in ("__init__.py", "test_lessons_structure.py"):
        shutil.copy(ROOT / "tests" / "course" / name, dest / "tests" / "course" / name)
    # the package, for ruff to know its imports as first-party (a link: nothing to copy)
    (dest / "minigenesis").symlink_to(ROOT / "minigenesis", target_is_directory=True)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MINIGENESIS_SOLUTIONS", None)
    env.pop("MINIGENESIS_STUBS", None)
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def _progress(repo: Path) -> str:
    run = _run(["lessons/_progress.py", "2", "3", "--path", "lessons"], repo)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def _project_checks(repo: Path) -> subprocess.CompletedProcess:
    """The project's test command on the copy, for what a learner's files could disturb: the
    structure and style checks and the two chapters' checks on the reference answers."""
    return _run(
        [
            "-m",
            "pytest",
            "--solutions",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:nbmake",
            "tests/course/test_lessons_structure.py",
            "tests/test_style.py::test_ruff",
            f"lessons/{CH2}",
            f"lessons/{CH3}",
            "-k",
            "not stubs_fail_every_check and not nbstripout",  # the whole course's runs: elsewhere
        ],
        repo,
    )


def test_a_learner_session_keeps_the_project_green_and_progress_exact(tmp_path: Path):
    repo = tmp_path / "repo"
    _copy_course(repo)
    ch2, ch3 = repo / "lessons" / CH2, repo / "lessons" / CH3

    # A fresh copy: nothing done, and the learner's files are made from the templates.
    out = _progress(repo)
    assert re.search(rf"{CH2}\s+0/7\s+to do: 2\.1 2\.2 2\.3 2\.4 2\.5 2\.6 2\.7\n", out), out

    # 2.1 solved (with a line longer than the project's style allows: the learner's business),
    # 2.3 written but wrong, and a syntax error in chapter 3.
    shutil.copy(ch2 / "exercises_template.py", ch2 / "exercises.py")
    text = (ch2 / "exercises.py").read_text()
    assert MUL_STUB in text and TOPO_STUB in text
    text = text.replace(MUL_STUB, MUL_ANSWER).replace(TOPO_STUB, "    return [root]\n")
    (ch2 / "exercises.py").write_text(text)
    lint = _run(["-m", "ruff", "check", "--isolated", "--select", "E501", str(ch2)], repo)
    assert "E501" in lint.stdout, lint.stdout + lint.stderr  # what the project's style would say
    shutil.copy(ch3 / "exercises_template.py", ch3 / "exercises.py")
    lines = (ch3 / "exercises.py").read_text().splitlines()
    bad_line = lines.index("def sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:")
    lines[bad_line] = "def sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray"
    (ch3 / "exercises.py").write_text("\n".join(lines) + "\n")

    out = _progress(repo)
    # exact: 2.4's checks get the reference topological_order, so the wrong 2.3 is 2.3's alone
    assert re.search(rf"{CH2}\s+1/7\s+to do: 2\.2 2\.4 2\.5 2\.6 2\.7\s+failing: 2\.3\n", out), out
    where = f"lessons/{CH3}/exercises.py line {bad_line + 1}: SyntaxError"
    assert out.count(where) == 1, out

    learner = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", f"lessons/{CH3}"], repo)
    assert learner.returncode == 1 and learner.stdout.count(where) <= 2, learner.stdout
    assert len(learner.stdout.splitlines()) < 25, learner.stdout  # not a traceback per check

    # The project's checks do not see any of it.
    project = _project_checks(repo)
    assert project.returncode == 0, project.stdout[-3000:]

    # Start chapter 2 over: the answers are kept in a backup, the progress is back to zero.
    run = _run(["lessons/_progress.py", "reset", "02", "--path", "lessons"], repo)
    assert run.returncode == 0 and "fresh copy" in run.stdout, run.stdout + run.stderr
    (backup,) = ch2.glob("exercises.before-reset-*.py")
    assert LONG_COMMENT in backup.read_text()
    (ch3 / "exercises.py").write_text((ch3 / "exercises_template.py").read_text())
    out = _progress(repo)
    assert re.search(rf"{CH2}\s+0/7\s+to do: 2\.1 2\.2 2\.3 2\.4 2\.5 2\.6 2\.7\n", out), out
    assert "does not load" not in out, out

    # Learner mode on unfinished chapters: expected, said so, and not a failing run.
    learner = _run(
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", f"lessons/{CH2}", f"lessons/{CH3}"], repo
    )
    assert learner.returncode == 0, learner.stdout
    assert "as expected" in learner.stdout and "failed" not in learner.stdout, learner.stdout
