"""A learner's answers when a newer course moves exercises to another chapter (chapter 14 split
in two, data parallelism renumbered 16): ``lessons update`` carries every started exercise into
the chapter it now belongs to, by name, with its numbers rewritten and a backup of every file it
writes; an answer already written in the new chapter stays; the old chapter folder, left with
nothing of the course, moves to ``lessons/_moved/``. Until then the progress command and the
notebook say in one line what moved."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lessons"))
import _course  # noqa: E402
import _moves  # noqa: E402

CH14, CH15, CH16, OLD15 = (
    "14_sequence_models",
    "15_attention_and_gpt",
    "16_distributed",
    "15_distributed",
)
BACK14 = {new: old for old, new in _moves.MOVES[0].numbers.items()}
BACK16 = {new: old for old, new in _moves.MOVES[1].numbers.items()}

ATTENTION = '''def attention(
    q: mg.Tensor, k: mg.Tensor, v: mg.Tensor, mask: mg.Tensor | None = None
) -> tuple[mg.Tensor, mg.Tensor]:
    """Exercise 14.6: my attention."""
    scores = q @ k.mT / float(np.sqrt(q.shape[-1]))  # my answer, with my import
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights
'''
OLD_QUIZ = '''def quiz() -> dict[str, str]:
    """Exercise 14.11: your answers to the lesson's self-check questions."""
    return {"q1": "c", "q2": "b", "q3": "c", "q4": "a", "q5": "c"}
'''
CHUNKS = '''def chunks(n: int, world: int) -> list[tuple[int, int]]:
    """Exercise 15.1: my chunks."""
    sizes = [n // world + (r < n % world) for r in range(world)]  # my chunks
    starts = [sum(sizes[:r]) for r in range(world)]
    return [(s, s + k) for s, k in zip(starts, sizes)]
'''


def _piece(text: str, name: str) -> str:
    lines = text.splitlines()
    node = _course._units(ast.parse(text))[name]
    return "\n".join(lines[node.lineno - 1 : node.end_lineno]) + "\n"


def _old_course(lessons: Path) -> None:
    """The learner's files as an older course left them after `git pull`: chapter 14's file
    with the attention exercises (14.6-14.10) and a 14.11 self-check answered, and a folder
    15_distributed holding only the learner's file and a backup."""
    t14 = (lessons / CH14 / _course.TEMPLATE).read_text()
    t15 = (lessons / CH15 / _course.TEMPLATE).read_text()
    moved = t15[t15.index("def causal_mask(") : t15.index("\ndef quiz(")]
    old14 = t14[: t14.index("\ndef quiz(")].replace(
        "import minigenesis as mg", "import numpy as np\n\nimport minigenesis as mg"
    )
    old14 += "\n\n# ---------------\n# Attention\n# ---------------\n" + ATTENTION + "\n\n"
    old14 += _moves._renumber(moved, BACK14) + "\n\n" + OLD_QUIZ
    (lessons / CH14 / _course.EXERCISES).write_text(old14)

    old = lessons / OLD15
    old.mkdir()
    t16 = (lessons / CH16 / _course.TEMPLATE).read_text()
    stub = _piece(t16, "chunks")
    (old / _course.EXERCISES).write_text(_moves._renumber(t16.replace(stub, CHUNKS), BACK16))
    (old / "exercises.before-reset-20250101-000000.py").write_text("# an older try\n")


def _copy(dest: Path) -> Path:
    skip = shutil.ignore_patterns("exercises.py", "exercises.*.py", "__pycache__", "_moved")
    shutil.copytree(ROOT / "lessons", dest / "lessons", ignore=skip)
    shutil.copy(ROOT / "conftest.py", dest / "conftest.py")
    return dest / "lessons"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MINIGENESIS_SOLUTIONS", None)
    env.pop("MINIGENESIS_STUBS", None)
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_update_carries_answers_to_the_chapters_they_moved_to(tmp_path: Path):
    lessons = _copy(tmp_path)
    _old_course(lessons)
    before14 = (lessons / CH14 / _course.EXERCISES).read_text()

    # before: the progress command names what moved, in one line each
    run = _run(["lessons/_progress.py", "--no-run", "--path", "lessons"], tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"(lessons/{CH14}/exercises.py: chapter 14 was split in two" in run.stdout
    assert f"(lessons/{OLD15}/exercises.py: data parallelism is chapter 16 now" in run.stdout

    # the project's structure checks do not take the leftover folder for a chapter
    (tmp_path / "tests" / "course").mkdir(parents=True)
    for name in ("__init__.py", "test_lessons_structure.py"):
        shutil.copy(ROOT / "tests" / "course" / name, tmp_path / "tests" / "course" / name)
    run = _run(
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbmake",
         "tests/course/test_lessons_structure.py", "-k", "there_are_chapters or four_files"],
        tmp_path,
    )  # fmt: skip
    assert run.returncode == 0 and "15_distributed" not in run.stdout, run.stdout[-3000:]

    run = _run(["lessons/_progress.py", "update", "--path", "lessons"], tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert f"{CH15}: carried your answers from {CH14}/exercises.py" in out and "attention" in out
    assert f"{CH16}: carried your answers from {OLD15}/exercises.py" in out
    assert f"{OLD15}: no longer a chapter; its files are now in lessons/_moved/{OLD15}" in out
    assert "self-check has new questions" in out

    # chapter 15: the learner's attention (with the import it needs), the rest the new stubs
    mine15 = (lessons / CH15 / _course.EXERCISES).read_text()
    assert "# my answer, with my import" in mine15 and "import numpy as np" in mine15
    assert '"""Exercise 15.1: my attention."""' in mine15 and "Exercise 14." not in mine15
    assert _course.unfinished(mine15) == {
        "causal_mask": "15.2", "split_heads": "15.3", "merge_heads": "15.3", "Block": "15.4",
        "sample_next": "15.5", "quiz": "15.6",
    }  # fmt: skip
    # chapter 14: what moved is out, the rest as it was, the old self-check a stub again
    mine14 = (lessons / CH14 / _course.EXERCISES).read_text()
    assert "def attention(" not in mine14 and "class CharGPT" not in mine14
    assert "# Attention" not in mine14
    assert _piece(before14, "rnn_cell") in mine14
    assert "Exercise 14.6: return {'q1'" in mine14 and '"q5": "c"' not in mine14
    backups = sorted((lessons / CH14).glob("exercises.before-update-*.py"))
    assert backups and backups[0].read_text() == before14
    assert list((lessons / CH15).glob("exercises.before-update-*.py"))
    # chapter 16: the answer renumbered; the old folder, whole, under _moved/
    mine16 = (lessons / CH16 / _course.EXERCISES).read_text()
    assert "# my chunks" in mine16 and "Exercise 16.1: my chunks." in mine16
    assert "Exercise 15." not in mine16
    assert not (lessons / OLD15).exists()
    moved = lessons / "_moved" / OLD15
    assert (moved / "exercises.before-reset-20250101-000000.py").is_file()

    # the carried answers pass their checks where they are now
    run = _run(
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbmake",
         f"lessons/{CH15}", "-k", "15_1", f"lessons/{CH16}/test_lesson.py::"
         "test_16_1_chunks_cut_as_array_split"], tmp_path,
    )  # fmt: skip
    assert run.returncode == 0 and "failed" not in run.stdout, run.stdout[-3000:]

    # a second update has nothing to move, and the progress command no note
    run = _run(["lessons/_progress.py", "update", "--path", "lessons"], tmp_path)
    assert "carried" not in run.stdout and "took out" not in run.stdout, run.stdout
    run = _run(["lessons/_progress.py", "--no-run", "--path", "lessons"], tmp_path)
    assert "lessons update` carries" not in run.stdout, run.stdout


def test_an_answer_already_written_in_the_new_chapter_stays(tmp_path: Path):
    """The learner opened chapter 16 after the pull and answered 16.1 there: update carries the
    other answers from the old folder and keeps that one."""
    lessons = _copy(tmp_path)
    _old_course(lessons)
    t16 = (lessons / CH16 / _course.TEMPLATE).read_text()
    mine = t16.replace(_piece(t16, "chunks"), CHUNKS.replace("my chunks", "written anew"))
    (lessons / CH16 / _course.EXERCISES).write_text(mine)
    run = _run(["lessons/_progress.py", "update", "16", "--path", "lessons"], tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{CH16}: already answered here, kept as it is: chunks" in run.stdout
    text = (lessons / CH16 / _course.EXERCISES).read_text()
    assert "written anew" in text and "# my chunks" not in text
    # only chapter 16 was asked for: chapter 14's file is as it was
    assert "def attention(" in (lessons / CH14 / _course.EXERCISES).read_text()


def test_a_notebook_says_where_its_answers_are(tmp_path: Path, monkeypatch, capsys):
    lessons = _copy(tmp_path)
    _old_course(lessons)
    monkeypatch.delenv("MINIGENESIS_SOLUTIONS", raising=False)
    monkeypatch.delenv("MINIGENESIS_STUBS", raising=False)
    _course._say_what_moved(lessons / CH16)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "data parallelism is chapter 16 now" in out


def test_an_old_file_that_does_not_parse_stops_the_update(tmp_path: Path):
    lessons = _copy(tmp_path)
    _old_course(lessons)
    path = lessons / OLD15 / _course.EXERCISES
    path.write_text(path.read_text() + "\ndef broken(:\n")
    run = _run(["lessons/_progress.py", "update", "--path", "lessons"], tmp_path)
    assert run.returncode == 2 and "nothing was changed" in run.stderr, run.stderr
    assert f"cannot carry {OLD15}'s answers to {CH16}" in run.stderr
    assert "def attention(" in (lessons / CH14 / _course.EXERCISES).read_text()
