"""The self-check questions at the end of every chapter: three to five per lesson, each with
lettered choices, answered in the chapter's last exercise (``quiz()``) and checked against a
hashed key (``lessons/_quiz.py`` says why hashed). A computed answer, one letter for every
question, or a malformed answer fails; ``lessons update`` brings the new exercise to a learner's
older file."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"
CHAPTERS = sorted(  # (a folder without a test_lesson.py is no chapter: a learner's leftover)
    d
    for d in LESSONS.iterdir()
    if d.is_dir() and re.fullmatch(r"\d{2}_[a-z0-9_]+", d.name) and (d / "test_lesson.py").is_file()
)
IDS = [d.name for d in CHAPTERS]
sys.path.insert(0, str(LESSONS))
import _course  # noqa: E402
import _quiz  # noqa: E402


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _key(chapter: Path) -> dict:
    """The QUIZ dict of a chapter's test_lesson.py, read without importing the file."""
    tree = ast.parse((chapter / "test_lesson.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["QUIZ"]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{chapter.name}/test_lesson.py has no QUIZ")


def _questions(chapter: Path) -> dict[str, list[str]]:
    """The self-check section of the lesson: question -> its options' letters, in order."""
    nb = json.loads((chapter / "lesson.ipynb").read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    (section,) = [c for c in cells if c.startswith("## Self-check")]
    assert section == cells[-1], f"{chapter.name}: the self-check is not the lesson's end"
    parts = re.split(r"^\*\*(q\d+)\.\*\*", section, flags=re.M)
    return {
        q: re.findall(r"^- \(([a-e])\) ", body, re.M) for q, body in zip(parts[1::2], parts[2::2])
    }


def _quiz_number(chapter: Path) -> str:
    template = (chapter / _course.TEMPLATE).read_text(encoding="utf-8")
    return _course.exercise_units(template)["quiz"]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_every_lesson_ends_with_three_to_five_self_check_questions(chapter: Path):
    questions = _questions(chapter)
    assert 3 <= len(questions) <= 5, f"{chapter.name}: {len(questions)} questions"
    assert list(questions) == [f"q{i}" for i in range(1, len(questions) + 1)]
    for q, letters in questions.items():
        assert len(letters) >= 3 and letters == list("abcde"[: len(letters)]), (q, letters)
    # the quiz is the chapter's last exercise, and the section asks for it by number
    template = (chapter / _course.TEMPLATE).read_text(encoding="utf-8")
    numbers = sorted(_course.exercise_units(template).values(), key=lambda n: int(n.split(".")[1]))
    assert _quiz_number(chapter) == numbers[-1]
    nb = (chapter / "lesson.ipynb").read_text(encoding="utf-8")
    assert f"**Exercise {numbers[-1]}**" in nb


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_the_key_covers_the_questions_and_the_reference_answers_fit_it(chapter: Path):
    key, questions = _key(chapter), _questions(chapter)
    assert list(key) == list(questions)
    salts = [salt for salt, _ in key.values()]
    assert len(set(salts)) == len(salts) and all(len(s) >= 16 for s in salts), "one salt each"
    solutions = _load(chapter / "solutions.py", f"quiz_solutions_{chapter.name}")
    answers = solutions.quiz()
    assert list(answers) == list(questions)
    for q, (salt, digest) in key.items():
        letter = _quiz.normalize(answers[q])
        assert letter in questions[q], (q, answers[q])
        assert hashlib.sha256(f"{salt}:{letter}".encode()).hexdigest() == digest, q
    # one letter for everything never passes: the answers use at least two letters
    assert len({_quiz.normalize(a) for a in answers.values()}) >= 2


@pytest.mark.parametrize("chapter", CHAPTERS, ids=IDS)
def test_one_letter_for_every_question_fails(chapter: Path):
    key = _key(chapter)
    for letter in "abcde":
        passed = 0
        for q in key:
            try:
                _quiz.check_answer(dict.fromkeys(key, letter), q, key, "hint")
                passed += 1
            except AssertionError:
                pass
        assert passed < len(key), (chapter.name, letter)


def test_a_quiz_that_computes_its_answers_from_the_key_fails():
    chapter = CHAPTERS[1]
    key = _key(chapter)

    def quiz():  # tries every letter against the hashed key
        return {q: next(c for c in "abcde" if hashlib.sha256(f"{s}:{c}".encode()).hexdigest() == d)
                for q, (s, d) in key.items()}  # fmt: skip

    with pytest.raises(AssertionError, match="not compute them; it ran _hashlib"):
        _quiz.answers_of(quiz)


def test_a_quiz_that_returns_its_answers_passes_and_the_feedback_names_the_question():
    answers = {"q1": "B", "q2": " (c) ", "q3": "a"}
    assert _quiz.answers_of(lambda: answers) is answers
    key = _quiz.make_key({"q1": "b", "q2": "c", "q3": "d"})
    _quiz.check_answer(answers, "q1", key, "hint")
    _quiz.check_answer(answers, "q2", key, "hint")
    with pytest.raises(AssertionError, match=r"q3: \(a\) is not the answer. Re-read it"):
        _quiz.check_answer(answers, "q3", key, "Re-read it")
    with pytest.raises(AssertionError, match="q4: no answer"):
        _quiz.check_answer(answers, "q4", {**key, "q4": key["q1"]}, "hint")
    for bad in ("bc", 2, "", None):
        with pytest.raises(AssertionError, match="answer with one letter"):
            _quiz.check_answer({"q1": bad}, "q1", key, "hint")
    with pytest.raises(AssertionError, match="should return a dict"):
        _quiz.answers_of(lambda: [("q1", "b")])


def test_lessons_update_brings_the_quiz_to_an_older_learner_file(tmp_path: Path):
    """A learner who started before the self-check existed gets its stub appended by
    ``lessons update``; the answers already written stay."""
    chapter = tmp_path / CHAPTERS[1].name
    skip = shutil.ignore_patterns("exercises.py", "exercises.*.py")
    shutil.copytree(CHAPTERS[1], chapter, ignore=skip)
    template = (chapter / _course.TEMPLATE).read_text(encoding="utf-8")
    cut = template.index("\ndef quiz(")
    older = template[:cut].rstrip("\n") + "\n\n\n# my notes stay\n"
    (chapter / _course.EXERCISES).write_text(older, encoding="utf-8")
    assert _course.update(chapter) == ["quiz"]
    text = (chapter / _course.EXERCISES).read_text(encoding="utf-8")
    assert text.startswith(older.rstrip("\n")) and "# my notes stay" in text
    mine = _course.load_file(chapter / _course.EXERCISES, fresh=True, tag="update")
    number = _quiz_number(CHAPTERS[1])
    with pytest.raises(NotImplementedError, match=rf"^Exercise {re.escape(number)}: "):
        mine.quiz()
    assert _course.update(chapter) == []
