"""``python -m minigenesis lessons capstone --mine``: chapter 13's run trained with the learner's
engine pieces. With the reference answers as the learner's, every piece is theirs and the run
matches minigenesis's; with the shipped stubs, none is and the run IS minigenesis's; a wrong
piece changes the result and is named, and one that raises or makes NaN is named and replaced."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while a class is built
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, str(LESSONS))
mine = _load("_capstone_mine", LESSONS / "_capstone_mine.py")


@pytest.fixture(scope="module")
def reference_run():
    """Chapter 13's run on minigenesis alone (shared by the tests that compare with it)."""
    return mine.train(LESSONS, mine.Learner(), set(), mine.shapes_data(LESSONS))


def test_reference_answers_make_every_piece_yours_and_match(reference_run):
    result = mine.compare(LESSONS, solutions=True, reference=reference_run)
    assert result.learner.written == [p.number for p in mine.PIECES]
    assert not result.failed and not result.learner.broken
    # the head is 4.1's Linear layer, which computes x @ W.T + b itself: 3.4 has nothing to do
    assert result.idle == ["3.4"]
    assert result.mine.calls["2.4"] == 48 and result.mine.calls["6.3"] > 0  # every batch
    assert result.mine.val_acc == pytest.approx(reference_run.val_acc, abs=0.03)
    assert result.mine.val_acc >= 0.85
    text = mine.report(result)
    assert text.startswith("your engine: 13 of 14 pieces (2.3 topological order, 2.4 backward")
    assert "3.4 Linear's backward: yours, but the head is your 4.1" in text


def test_linear_backward_is_used_when_the_head_is_minigenesis_linear(reference_run):
    """Without 4.1, the head is nn.Linear, whose F.linear runs the learner's linear_backward."""
    learner = mine.read_learner(LESSONS, solutions=True)
    data = mine.shapes_data(LESSONS)
    run = mine.train(LESSONS, learner, {"2.3", "2.4", "3.4"}, data)
    assert run.calls["3.4"] == 48 and run.calls["2.4"] == 48
    assert run.val_acc == pytest.approx(reference_run.val_acc, abs=0.03)


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINIGENESIS_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def test_command_with_the_stubs_is_the_reference_run():
    run = subprocess.run(
        [sys.executable, "-m", "minigenesis", "lessons", "capstone", "--mine"],
        cwd=ROOT, env=_env(MINIGENESIS_STUBS="1"), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.startswith("your engine: 0 of 14 pieces\n"), out
    assert "not yet yours (minigenesis's ran): 2.3 topological order" in out, out
    acc = out.split("validation accuracy ")[1].split(",")[0]  # "93.0% (reference 93.0%)"
    value, ref = acc.split(" (reference ")
    assert value == ref.rstrip(")"), out
    assert not list(LESSONS.glob("*/exercises.before-*.py"))  # nothing of a learner's touched


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A copy of the course's code and answers (no notebooks), to write exercises.py files in."""
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    for name in (
        "_course.py",
        "_capstone_mine.py",
        "_capstone_plugs.py",
        "_progress.py",
        "_moves.py",
    ):
        shutil.copy(LESSONS / name, lessons / name)
    for chapter in sorted({p.chapter for p in mine.PIECES}):
        (source,) = LESSONS.glob(f"{chapter}_*")
        (lessons / source.name).mkdir()
        for name in ("exercises_template.py", "solutions.py", "test_lesson.py"):
            shutil.copy(source / name, lessons / source.name / name)
    return lessons


def _answer(lessons: Path, chapter: str, text: str) -> None:
    (folder,) = lessons.glob(f"{chapter}_*")
    (folder / "exercises.py").write_text(text)


def _solutions(chapter: str) -> str:
    (folder,) = LESSONS.glob(f"{chapter}_*")
    return (folder / "solutions.py").read_text()


def test_wrong_raising_and_nan_pieces_are_named(course: Path, reference_run):
    # 6.3: AdamW without bias correction (trains, but differently)
    wrong_adamw = _solutions("06")
    head, tail = wrong_adamw.split("class AdamW(Adam):")
    tail = tail.replace("m_hat = m / (1 - beta1**t)", "m_hat = m").replace(
        "v_hat = v / (1 - beta2**t)", "v_hat = v"
    )
    assert "m_hat = m\n" in tail
    _answer(course, "06", head + "class AdamW(Adam):" + tail)
    # 8.1: a clipping that raises; 7.1: a schedule that gives NaN
    clip = _solutions("08").replace(
        "    grads = [p.grad for p in parameters if p.grad is not None]",
        "    raise ValueError('oops')",
    )
    _answer(course, "08", clip)
    schedule = _solutions("07").replace(
        "            return step / max(1, num_warmup_steps)",
        "            return float('nan')",
    )
    _answer(course, "07", schedule)

    result = mine.compare(course, reference=reference_run)
    assert result.learner.written == ["6.3", "7.1", "8.1"]
    assert result.used == ["6.3"]
    assert result.failed["8.1"] == "raised ValueError: oops"
    assert result.failed["7.1"] == "returned nan"
    # without bias correction, Adam's first steps are far too small: a different run
    assert abs(result.mine.val_loss - reference_run.val_loss) > 0.02
    text = mine.report(result)
    assert "your engine: 1 of 14 pieces (6.3 AdamW)" in text
    assert "8.1 gradient clipping: raised ValueError: oops; minigenesis's piece ran instead" in text
    assert "7.1 warmup + cosine schedule: returned nan; minigenesis's piece ran instead" in text
    assert "Your pieces train differently from minigenesis's" in text


def test_a_chapter_that_does_not_load_is_named(course: Path, reference_run):
    _answer(course, "04", _solutions("04") + "\ndef broken(:\n")
    result = mine.compare(course, reference=reference_run)
    assert result.learner.written == [] and "04" in result.learner.broken
    assert result.mine.val_acc == reference_run.val_acc
    text = mine.report(result)
    assert "chapter 4 does not load (" in text and "SyntaxError" in text, text


@pytest.mark.parametrize(
    "raising, working",
    [("2.4", "2.3"), ("2.3", "2.4")],
    ids=["backward-raises", "order-raises"],
)
def test_the_walk_piece_that_raises_is_named_alone(
    course: Path, reference_run, raising: str, working: str
):
    """2.3 and 2.4 run together in the walk; the one that raised is named and replaced, and the
    other one still runs (the learner's backward with the reference order, or the reverse)."""
    text = _solutions("02")
    if raising == "2.4":
        broken = "    order = topological_order(root)\n    order[len(order)]\n"
        text = text.replace("    order = topological_order(root)\n", broken, 1)
    else:
        text = text.replace("    order: list[Node] = []\n", "    order: list[Node] = [][0]\n", 1)
    _answer(course, "02", text)
    result = mine.compare(course, reference=reference_run)
    assert result.learner.written == ["2.3", "2.4"]
    assert set(result.failed) == {raising}, result.failed
    assert result.failed[raising].startswith("raised IndexError")
    assert result.used == [working] and result.mine.calls[working] == 48
    assert result.mine.val_acc == pytest.approx(reference_run.val_acc, abs=0.03)
