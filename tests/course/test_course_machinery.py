"""The course's machinery, on a tiny made-up course: one-line reports of unfinished exercises, a
run that does not fail for them alone, exact progress, a file that does not load reported once,
reset and update, and what a notebook's ``load()`` gives."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"
TEMPLATE = "exercises_template.py"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while a class is built
    spec.loader.exec_module(module)
    return module


course = _load("lessons_course_helper", LESSONS / "_course.py")


def _progress():
    """lessons/_progress.py, the progress tool behind ``python -m minigenesis lessons``."""
    return _load("_progress", LESSONS / "_progress.py")


FAKE_TEMPLATE = '''
def double(x):
    """Exercise 9.1: return 2 * x."""
    raise NotImplementedError("Exercise 9.1: return 2 * x")


def square(x):
    """Exercise 9.2: return x * x."""
    raise NotImplementedError("Exercise 9.2: return x * x")


def cube(x):
    """Exercise 9.3: return x ** 3 (you may use square)."""
    raise NotImplementedError("Exercise 9.3: return x ** 3")
'''

FAKE_SOLUTIONS = """
def double(x):
    return 2 * x


def square(x):
    return x * x


def cube(x):
    return square(x) * x
"""

# A learner's state: 9.1 not started, 9.2 wrong, 9.3 right (it uses square: its checks get the
# reference square, so the wrong 9.2 does not make 9.3 fail).
FAKE_ANSWERS = FAKE_TEMPLATE.replace(
    'raise NotImplementedError("Exercise 9.2: return x * x")', "return x * x + 1  # wrong"
).replace('raise NotImplementedError("Exercise 9.3: return x ** 3")', "return square(x) * x")

FAKE_TESTS = """
import pytest


@pytest.mark.exercise("9.1")
def test_double(impl):
    assert impl.double(3) == 6


@pytest.mark.exercise("9.1")
def test_double_negative(impl):
    assert impl.double(-3) == -6


@pytest.mark.exercise("9.2")
def test_square(impl):
    assert impl.square(3) == 9


@pytest.mark.exercise("9.3")
def test_cube(impl):
    assert impl.cube(2) == 8


@pytest.mark.exercise("9.3")
def test_cube_of_double(impl):
    assert impl.cube(impl.double(1)) == 8
"""


@pytest.fixture
def fake_course(tmp_path: Path) -> Path:
    """A one-chapter course in lessons/09_fake, with a learner's exercises.py (FAKE_ANSWERS)."""
    lessons = tmp_path / "lessons"
    chapter = lessons / "09_fake"
    chapter.mkdir(parents=True)
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    for name in ("conftest.py", "_course.py", "_progress.py", "_moves.py"):
        shutil.copy(LESSONS / name, lessons / name)
    (chapter / TEMPLATE).write_text(FAKE_TEMPLATE)
    (chapter / "exercises.py").write_text(FAKE_ANSWERS)
    (chapter / "solutions.py").write_text(FAKE_SOLUTIONS)
    (chapter / "test_lesson.py").write_text(FAKE_TESTS)
    return lessons


def _env() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MINIGENESIS_SOLUTIONS", None)
    env.pop("MINIGENESIS_STUBS", None)
    return env


def _pytest(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    # plugins the made-up course does not use cost seconds of start-up each
    plugins = ["-p", "no:hypothesispytest"] + ([] if "--nbmake" in args else ["-p", "no:nbmake"])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugins, *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _lessons_command(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m minigenesis lessons ...`` on the lessons/ folder under ``cwd``."""
    return subprocess.run(
        [sys.executable, str(cwd / "lessons" / "_progress.py"), *args, "--path", "lessons"],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_learner_mode_reports_one_line_per_exercise(fake_course: Path):
    run = _pytest(["lessons"], fake_course.parent)
    out = run.stdout
    assert run.returncode == 1, out  # the wrong square fails: a real failure
    lines = [ln for ln in out.splitlines() if ln.startswith("Exercise ")]
    assert lines == [
        "Exercise 9.2: this check of your answer failed",  # a wrong answer: headed by its number
        "Exercise 9.1 not done yet: return 2 * x  [2 checks]",
    ], out
    assert "NotImplementedError:" not in out and "Traceback" not in out, out
    assert "1 failed, 2 passed, 2 todo" in out, out

    run = _pytest(["--solutions", "lessons"], fake_course.parent)
    assert run.returncode == 0 and "5 passed" in run.stdout, run.stdout


def test_unfinished_exercises_alone_do_not_fail_the_run(fake_course: Path):
    """Learner mode on an untouched course: every check waits for its exercise, pytest says that
    this is expected, and exits with status 0 (a broken project would not)."""
    (fake_course / "09_fake" / "exercises.py").unlink()
    run = _pytest(["lessons"], fake_course.parent)
    assert run.returncode == 0, run.stdout
    assert "5 todo" in run.stdout and "as expected" in run.stdout, run.stdout
    # the copy is made on first use, from the template
    mine = (fake_course / "09_fake" / "exercises.py").read_text()
    assert mine.endswith(FAKE_TEMPLATE) and "lessons reset 09" in mine


def test_status_command_counts_done_todo_and_failing(fake_course: Path, capsys):
    status = _progress()

    assert status.main(["--path", str(fake_course)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"09_fake\s+1/3\s+to do: 9\.1\s+failing: 9\.2\n", out), out

    assert status.main(["--path", str(fake_course), "--no-run"]) == 0
    assert re.search(r"09_fake\s+2/3\s+to do: 9\.1", capsys.readouterr().out)

    assert status.main(["--path", str(fake_course / "nowhere")]) == 2
    assert "no lessons folder" in capsys.readouterr().err


def test_a_file_that_does_not_load_is_reported_once(fake_course: Path):
    mine = fake_course / "09_fake" / "exercises.py"
    text = FAKE_ANSWERS.replace("\n\ndef square", "\nx = 1 +\n\ndef square")
    line = text.splitlines().index("x = 1 +") + 1  # a syntax error on this line
    mine.write_text(text)
    run = _pytest(["lessons"], fake_course.parent)
    assert run.returncode == 1, run.stdout
    where = f"lessons/09_fake/exercises.py line {line}: SyntaxError"
    assert 1 <= run.stdout.count(where) <= 2, run.stdout  # the failure (and its summary line)
    assert "1 failed" in run.stdout and "Traceback" not in run.stdout, run.stdout
    assert len(run.stdout.splitlines()) < 25, run.stdout
    status = _lessons_command([], fake_course.parent)
    assert re.search(r"09_fake\s+0/3", status.stdout), status.stdout
    assert status.stdout.count(f"exercises.py line {line}: SyntaxError") == 1, status.stdout

    mine.write_text(FAKE_ANSWERS + "\nundefined_name + 1\n")  # compiles, fails when it runs
    run = _pytest(["lessons"], fake_course.parent)
    line = len(FAKE_ANSWERS.splitlines()) + 2
    assert f"exercises.py line {line}: NameError" in run.stdout, run.stdout
    assert "1 failed" in run.stdout and "Traceback" not in run.stdout, run.stdout


def test_reset_keeps_a_backup_and_update_adds_new_exercises(fake_course: Path):
    chapter = fake_course / "09_fake"
    run = _lessons_command(["reset", "9"], fake_course.parent)
    assert run.returncode == 0, run.stderr
    backups = sorted(chapter.glob("exercises.before-reset-*.py"))
    assert len(backups) == 1 and backups[0].read_text() == FAKE_ANSWERS
    assert (chapter / "exercises.py").read_text().endswith(FAKE_TEMPLATE)
    status = _lessons_command([], fake_course.parent).stdout
    assert re.search(r"09_fake\s+0/3\s+to do: 9\.1 9\.2 9\.3\n", status), status

    # a newer course adds exercise 9.4; the learner's answers stay as they are
    (chapter / "exercises.py").write_text(FAKE_ANSWERS)
    newer = FAKE_TEMPLATE + '\n\ndef half(x):\n    """Exercise 9.4."""\n'
    newer += '    raise NotImplementedError("Exercise 9.4: return x / 2")\n'
    (chapter / TEMPLATE).write_text(newer)
    (chapter / "solutions.py").write_text(FAKE_SOLUTIONS + "\n\ndef half(x):\n    return x / 2\n")
    with open(chapter / "test_lesson.py", "a") as f:
        f.write('\n\n@pytest.mark.exercise("9.4")\ndef test_half(impl):\n')
        f.write("    assert impl.half(3) == 1.5\n")
    status = _lessons_command([], fake_course.parent).stdout  # before update: 9.4 is to do
    assert re.search(r"09_fake\s+1/4\s+to do: 9\.1 9\.4\s+failing: 9\.2\n", status), status
    run = _lessons_command(["update"], fake_course.parent)
    assert "added to exercises.py: half" in run.stdout, run.stdout
    text = (chapter / "exercises.py").read_text()
    assert text.startswith(FAKE_ANSWERS) and "Exercise 9.4: return x / 2" in text
    assert "up to date" in _lessons_command(["update", "09"], fake_course.parent).stdout
    assert _lessons_command(["reset", "42"], fake_course.parent).returncode == 2


def test_update_brings_unstarted_exercises_to_a_new_interface(fake_course: Path):
    """A newer course changes the signature of 9.1 (not started) and 9.3 (answered): update
    replaces the unstarted stub with the template's (a backup of the file is kept) and names the
    answered one, which it leaves as it is."""
    chapter = fake_course / "09_fake"
    newer = FAKE_TEMPLATE.replace("def double(x):", "def double(x, times=2):").replace(
        "def cube(x):", "def cube(x, power=3):"
    )
    (chapter / TEMPLATE).write_text(newer)
    run = _lessons_command(["update", "9"], fake_course.parent)
    assert run.returncode == 0, run.stderr
    assert "brought up to the course's new version: double" in run.stdout, run.stdout
    assert "your answers kept as they are: cube" in run.stdout, run.stdout
    text = (chapter / "exercises.py").read_text()
    assert "def double(x, times=2):" in text and "def cube(x):" in text
    assert "return x * x + 1  # wrong" in text and "return square(x) * x" in text
    (backup,) = chapter.glob("exercises.before-update-*.py")
    assert backup.read_text() == FAKE_ANSWERS
    again = _lessons_command(["update", "9"], fake_course.parent).stdout
    assert "brought up" not in again and "kept as they are: cube" in again, again
    assert len(list(chapter.glob("exercises.before-update-*.py"))) == 1


def test_notebook_gets_reference_answers_for_unfinished_exercises(fake_course: Path, capsys):
    """What a notebook's `load()` gives: the learner's code where written, the reference answer
    (with a one-line note, once) where not, and the reference answers when the file is broken."""
    chapter = fake_course / "09_fake"
    module = course.load(chapter, solutions=False)
    assert module.square(3) == 10  # the learner's (wrong) answer: theirs to see
    assert capsys.readouterr().out == ""
    assert module.double(4) == 8 and module.double(5) == 10
    out = capsys.readouterr().out
    assert out.count("Exercise 9.1 not done yet") == 1, out
    (chapter / "exercises.py").write_text("def double(x:\n")
    module = course.load(chapter, solutions=False)
    assert module.square(3) == 9
    assert "exercises.py line 1: SyntaxError" in capsys.readouterr().out


@pytest.mark.slow  # two notebook kernels: ~10 s
def test_notebook_runs_through_unfinished_exercises(fake_course: Path):
    pytest.importorskip("nbmake")
    nbformat = pytest.importorskip("nbformat")
    code = textwrap.dedent("""\
        import sys; sys.path.insert(0, "..")
        from _course import load
        ex = load()
        print(ex.double(21))""")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, fake_course / "09_fake" / "lesson.ipynb")
    run = _pytest(["--nbmake", "lessons/09_fake/lesson.ipynb"], fake_course.parent)
    assert run.returncode == 0, run.stdout
    run = _pytest(["--solutions", "--nbmake", "lessons/09_fake/lesson.ipynb"], fake_course.parent)
    assert run.returncode == 0, run.stdout


def test_course_helper_finds_chapters_and_switches_modes(fake_course: Path, monkeypatch):
    first = sorted(LESSONS.glob("[0-9][0-9]_*"))[0]
    assert course.chapter_dir(first.name) == first
    assert course.chapter_dir(str(int(first.name[:2]))) == first
    chapter = fake_course / "09_fake"
    monkeypatch.setenv("MINIGENESIS_SOLUTIONS", "1")
    assert Path(course.load(chapter).__file__).name == "solutions.py"
    monkeypatch.setenv("MINIGENESIS_SOLUTIONS", "0")
    assert Path(course.load(chapter).__file__).name == "exercises.py"
    monkeypatch.setenv("MINIGENESIS_STUBS", "1")
    assert Path(course.load(chapter).__file__).name == TEMPLATE
    with pytest.raises(FileNotFoundError, match="no chapter"):
        course.chapter_dir("99_nothing")


def test_learner_answer_does_not_see_the_reference_answers_imports(fake_course: Path):
    """The reference answers import ``math`` and define a helper; a learner's answer that uses
    either without defining it fails its check with the NameError a notebook would show, while
    the reference pieces the checks run beside it still find their own imports."""
    chapter = fake_course / "09_fake"
    (chapter / "solutions.py").write_text(
        "import math\n\n\ndef _twice(x):\n    return 2 * x\n"
        + FAKE_SOLUTIONS.replace("return 2 * x", "return int(math.copysign(_twice(abs(x)), x))")
    )
    (chapter / "exercises.py").write_text(
        FAKE_ANSWERS.replace("return x * x + 1  # wrong", "return int(math.pow(x, 2))").replace(
            "return square(x) * x", "return _twice(square(x)) // 2 * x"
        )
    )
    run = _pytest(["lessons", "-rf"], fake_course.parent)
    out = run.stdout
    assert run.returncode == 1, out
    assert "NameError: name 'math' is not defined" in out, out
    assert "NameError: name '_twice' is not defined" in out, out
    assert "3 failed, 2 todo" in out, out

    module = course.load(chapter, solutions=False)
    with pytest.raises(NameError, match="'math'"):
        module.square(3)
    assert module.double(-4) == -8  # the reference double: its own math and _twice
    assert not hasattr(module, "math") and not hasattr(module, "_twice")


def test_chapter_16_answer_using_mg_without_importing_it_fails_its_check(tmp_path: Path):
    """16.5 written with ``mg.tensor`` in a file that never imports ``mg`` (a learner who deleted
    the template's import): the check fails on the learner's NameError, as the notebook would,
    and never borrows the reference answers' ``mg``."""
    lessons = tmp_path / "lessons"
    chapter = lessons / "16_distributed"
    shutil.copytree(
        LESSONS / chapter.name,
        chapter,
        ignore=shutil.ignore_patterns("exercises.py", "exercises.*.py", "*.ipynb"),
    )
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    for name in (
        "conftest.py",
        "_course.py",
        "_progress.py",
        "_moves.py",
        "_checks.py",
        "_quiz.py",
    ):
        shutil.copy(LESSONS / name, lessons / name)
    shipped = (chapter / TEMPLATE).read_text()
    line = "import minigenesis as mg  # noqa: F401  (mg.tensor, for exercise 16.5)\n"
    assert line in shipped  # the template has the import the reference answer needs
    template = shipped.replace(line, "")
    answer = (
        "    n = comm.Get_size()\n"
        "    for p in model.parameters():\n"
        "        if p.grad is not None:\n"
        "            p.grad.copy_(mg.tensor(comm.allreduce(p.grad.numpy()) / n))\n"
    )
    stub = (
        '    raise NotImplementedError("Exercise 16.5: for each p with a grad: sum with allreduce, '
        '/ N")\n'
    )
    assert stub in template
    (chapter / "exercises.py").write_text(template.replace(stub, answer))
    run = _pytest(["lessons/16_distributed", "-k", "16_5"], tmp_path)
    assert run.returncode == 1, run.stdout
    assert "NameError: name 'mg' is not defined" in run.stdout, run.stdout
    assert "2 failed" in run.stdout, run.stdout

    (chapter / "exercises.py").write_text(
        template.replace(stub, answer).replace(
            "from minigenesis import nn", "import minigenesis as mg\nfrom minigenesis import nn"
        )
    )
    run = _pytest(["lessons/16_distributed", "-k", "16_5"], tmp_path)
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout


def test_chapter_16_ring_on_mpi_processes_runs_the_reference_chunks(tmp_path: Path):
    """16.2's check on real MPI processes loads the answers in each process: there too the
    learner's ring runs with the reference 16.1 (``chunks``), so a right ring passes while 16.1
    is still a stub."""
    pytest.importorskip("mpi4py")
    if not (Path(sys.executable).parent / "mpiexec").exists():
        pytest.skip("no mpiexec")
    lessons = tmp_path / "lessons"
    chapter = lessons / "16_distributed"
    shutil.copytree(
        LESSONS / chapter.name,
        chapter,
        ignore=shutil.ignore_patterns("exercises.py", "exercises.*.py", "*.ipynb"),
    )
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    for name in ("conftest.py", "_course.py", "_progress.py", "_moves.py", "_checks.py"):
        shutil.copy(LESSONS / name, lessons / name)
    shutil.copy(LESSONS / "_quiz.py", lessons / "_quiz.py")
    template = (chapter / TEMPLATE).read_text()
    stub = (
        '    raise NotImplementedError("Exercise 16.2: N-1 reduce-scatter steps, then N-1 '
        'all-gather steps")\n'
    )
    assert stub in template
    ring = (  # the reference ring, which calls chunks() (16.1, left a stub here)
        "    r, n = comm.Get_rank(), comm.Get_size()\n"
        "    out = np.array(x, copy=True)\n"
        "    bounds = chunks(out.size, n)\n"
        "    right, left = (r + 1) % n, (r - 1) % n\n"
        "    part = lambda i: out[bounds[i % n][0] : bounds[i % n][1]]\n"
        "    for s in range(n - 1):\n"
        "        part(r - s - 1)[...] += comm.sendrecv(part(r - s), dest=right, source=left)\n"
        "    for s in range(n - 1):\n"
        "        part(r - s)[...] = comm.sendrecv(part(r + 1 - s), dest=right, source=left)\n"
        "    return out\n"
    )
    (chapter / "exercises.py").write_text(template.replace(stub, ring))
    run = _pytest(["lessons/16_distributed", "-k", "mpi_processes"], tmp_path)
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout
