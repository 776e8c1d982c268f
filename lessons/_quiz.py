"""The self-check questions at the end of every chapter, and how their answers are checked.

Each lesson ends with three to five questions (predict an output, spot the bug, explain why),
each with lettered choices. The learner answers in the chapter's last exercise::

    def quiz() -> dict[str, str]:
        return {"q1": "b", "q2": "d", "q3": "a"}

and ``test_lesson.py`` checks each answer with ``check_answer``, one check per question, so a
wrong answer names its question and gives a hint that points back to the lesson.

Why the key is stored as hashes: ``test_lesson.py`` is the first file a learner opens to see
what a check wants, and a key in plain letters there would answer the questions before they are
read. So a check holds, per question, a random salt and ``sha256(salt + ":" + letter)`` of the
right letter; the letter itself is in ``solutions.py`` only, next to the other reference answers
(which a learner reads after trying, not to find out what to write). The salt differs per
question, so two questions with the same answer do not show it by having the same hash. This
hides the key from sight; it does not stop someone who tries every letter on purpose: a quiz is
for the learner, and guessing only cheats the guesser. What a check does stop is an answer that
is computed instead of chosen (``quiz()`` that reads the key and hashes letters until one
matches): ``quiz()`` must return its answers as written, running no other code.

Maintainers: ``python lessons/_quiz.py key 02`` prints the ``QUIZ`` dict for a chapter's
``test_lesson.py`` from its ``solutions.py``, with fresh salts.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import secrets
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

# question -> (salt, sha256 hex digest of salt + ":" + the right letter)
Key = Mapping[str, tuple[str, str]]

_LETTER = re.compile(r"^\(?([a-z])\)?$")


def normalize(answer: Any) -> str | None:
    """The letter an answer means ("b", "B", " (b) " -> "b"), or None if it is not one letter."""
    if not isinstance(answer, str):
        return None
    match = _LETTER.match(answer.strip().lower())
    return match.group(1) if match else None


def answer_hash(salt: str, letter: str) -> str:
    return hashlib.sha256(f"{salt}:{letter}".encode()).hexdigest()


def answers_of(quiz: Callable[[], Any]) -> dict[str, Any]:
    """Run the learner's ``quiz()`` and return its answers; AssertionError if it computed them
    (ran code of any other file, or a built-in function of a module such as hashlib's) or
    returned something other than a dict."""
    code, inside = quiz.__code__, [0]
    files: set[str] = set()
    modules: set[str] = set()

    def profile(frame, event: str, arg: Any) -> None:  # (sys.setprofile: this thread only)
        if event == "call" and frame.f_code is code:
            inside[0] += 1
        elif event == "return" and frame.f_code is code:
            inside[0] -= 1
        elif inside[0] and event == "call":
            files.add(frame.f_code.co_filename)
        elif inside[0] and event == "c_call":
            modules.add(str(getattr(arg, "__module__", None) or ""))

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        answers = quiz()
    finally:
        sys.setprofile(previous)
    own = Path(code.co_filename).resolve()
    ran = sorted(f for f in files if Path(f).resolve() != own)
    ran += sorted(m for m in modules if m not in ("", "builtins"))
    assert not ran, (
        "quiz() should return your answers as written, e.g. {'q1': 'b', ...}, not compute them; "
        f"it ran {', '.join(ran[:3])}"
    )
    assert isinstance(answers, dict), f"quiz() should return a dict, got {type(answers).__name__}"
    return answers


def check_answer(answers: Mapping[str, Any], question: str, key: Key, hint: str) -> None:
    """AssertionError unless ``answers[question]`` is the letter the key holds; the message says
    which question, what was answered, and ``hint`` (where in the lesson to look again)."""
    if question not in answers:
        raise AssertionError(f"{question}: no answer (quiz() returned {sorted(answers)})")
    letter = normalize(answers[question])
    if letter is None:
        raise AssertionError(f"{question}: answer with one letter, got {answers[question]!r}")
    salt, digest = key[question]
    assert answer_hash(salt, letter) == digest, f"{question}: ({letter}) is not the answer. {hint}"


def make_key(answers: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """A key for these answers (letters), each question with a fresh random salt."""
    key = {}
    for question, answer in answers.items():
        letter = normalize(answer)
        if letter is None:
            raise ValueError(f"{question}: {answer!r} is not one letter")
        salt = secrets.token_hex(8)
        key[question] = (salt, answer_hash(salt, letter))
    return key


def _main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "key":
        print("usage: python lessons/_quiz.py key NN", file=sys.stderr)
        return 2
    lessons = Path(__file__).resolve().parent
    (folder,) = sorted(lessons.glob(f"{int(argv[1]):02d}_*"))
    spec = importlib.util.spec_from_file_location("quiz_solutions", folder / "solutions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    print("QUIZ = {  # question -> (salt, sha256 of salt:letter); see lessons/_quiz.py")
    for question, (salt, digest) in make_key(module.quiz()).items():
        print(f'    "{question}": ("{salt}", "{digest}"),')
    print("}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(_main(sys.argv[1:]))
