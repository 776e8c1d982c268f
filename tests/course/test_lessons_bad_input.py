"""The ``lessons`` command on bad input: odd chapter arguments, a learner's file that does not
parse or is not UTF-8, a symlinked exercises.py. Each is one line on stderr (exit 2) or one line
in the status, never a traceback, and nothing is written."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from minigenesis.app.cli import main as cli_main

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
TEMPLATE = 'def double(x):\n    raise NotImplementedError("Exercise 9.1: return 2 * x")\n'
NEWER = TEMPLATE + '\n\ndef half(x):\n    raise NotImplementedError("Exercise 9.2: x / 2")\n'
TESTS = 'import pytest\n\n\n@pytest.mark.exercise("9.1")\ndef test_double(impl):\n    pass\n'


def _progress():
    spec = importlib.util.spec_from_file_location("_progress", LESSONS / "_progress.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while a class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """lessons/09_fake with a newer template than the learner's exercises.py."""
    chapter = tmp_path / "lessons" / "09_fake"
    chapter.mkdir(parents=True)
    (chapter / "exercises_template.py").write_text(NEWER)
    (chapter / "exercises.py").write_text(TEMPLATE)
    (chapter / "test_lesson.py").write_text(TESTS)
    return tmp_path / "lessons"


def _one_error(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured
    assert "Traceback" not in captured.out + captured.err
    return lines[0]


@pytest.mark.parametrize("argv", [["reset", "²"], ["update", "²"], ["²"], ["update", "٣"]])
def test_a_chapter_named_by_a_non_ascii_digit_is_one_line(course, capsys, argv):
    before = (course / "09_fake" / "exercises.py").read_text()
    assert _progress().main([*argv, "--path", str(course)]) == 2
    assert "no chapter" in _one_error(capsys)
    assert (course / "09_fake" / "exercises.py").read_text() == before
    assert sorted(p.name for p in (course / "09_fake").iterdir()) == [
        "exercises.py", "exercises_template.py", "test_lesson.py"]  # fmt: skip


@pytest.mark.parametrize("argv", [["bogus"], ["99"], ["09", "99"], ["rest", "09"]])
def test_the_status_names_a_chapter_that_does_not_exist(course, capsys, argv):
    assert _progress().main([*argv, "--path", str(course), "--no-run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no table for the part of the list that exists
    (line,) = captured.err.strip().splitlines()
    unknown = " ".join(a for a in argv if a != "09")
    assert f"error: no chapter {unknown} under" in line and "reset, update and capstone" in line


def test_the_cli_passes_a_non_ascii_digit_through_as_one_line(capsys):
    assert cli_main(["lessons", "reset", "²"]) == 2
    assert "no chapter ²" in _one_error(capsys)


@pytest.mark.parametrize(
    "content, expected",
    [(TEMPLATE + "def broken(:\n", "line 3: SyntaxError"),
     (b"\xff\xfe not text", "not UTF-8 text (byte 0 is 0xff)")],
)  # fmt: skip
def test_update_refuses_a_file_that_does_not_parse(course, capsys, content, expected):
    mine = course / "09_fake" / "exercises.py"
    mine.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = mine.read_bytes()
    assert _progress().main(["update", "09", "--path", str(course)]) == 2
    line = _one_error(capsys)
    assert "cannot update 09_fake" in line and expected in line and "nothing was changed" in line
    assert mine.read_bytes() == before


def test_the_status_reports_a_file_that_is_not_utf8_in_one_line(course, capsys):
    (course / "09_fake" / "exercises.py").write_bytes(b"x = 1\n\xff\n")
    assert _progress().main(["09", "--path", str(course), "--no-run"]) == 0
    out = capsys.readouterr().out
    assert "does not load:" in out and "not UTF-8 text (byte 6 is 0xff)" in out, out


@pytest.mark.parametrize("command", ["update", "reset"])
def test_a_symlinked_exercises_file_is_refused_and_not_written_through(
    course, tmp_path, capsys, command
):
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text(TEMPLATE)
    mine = course / "09_fake" / "exercises.py"
    mine.unlink()
    mine.symlink_to(elsewhere)
    assert _progress().main([command, "09", "--path", str(course)]) == 2
    line = _one_error(capsys)
    assert f"{mine} is a symbolic link" in line
    assert elsewhere.read_text() == TEMPLATE and mine.is_symlink()


def test_update_still_adds_new_exercises_to_a_plain_file(course, capsys):
    assert _progress().main(["update", "09", "--path", str(course)]) == 0
    assert "added to exercises.py: half" in capsys.readouterr().out
    assert (course / "09_fake" / "exercises.py").read_text().startswith(TEMPLATE)


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["reset"], "the following arguments are required: chapters (see: "
         "python -m minigenesis lessons reset --help)"),
        (["update", "--path"], "argument --path: expected one argument (see: "
         "python -m minigenesis lessons update --help)"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate (see: "
         "python -m minigenesis lessons --help)"),
        (["--no-run", "--path"], "argument --path: expected one argument"),
    ],
)  # fmt: skip
def test_the_lessons_commands_own_argument_errors_are_one_line_and_exit_2(capsys, argv, expected):
    """What argparse itself refuses (a missing chapter, an option without its value, an unknown
    option) is one line naming it, without the usage dump, as the other commands."""
    assert cli_main(["lessons", *argv]) == 2
    assert expected in _one_error(capsys)


@pytest.mark.parametrize("path", ["--path", "--path="])
def test_capstone_with_a_path_that_is_not_the_course_is_one_line(tmp_path, capsys, path):
    """A folder without the course's chapters (here an empty one) is named in one line with the
    chapters it lacks; it was a StopIteration traceback from looking for chapter 13."""
    where = [path, str(tmp_path)] if path == "--path" else [path + str(tmp_path)]
    assert cli_main(["lessons", "capstone", "--mine", *where]) == 2
    line = _one_error(capsys)
    assert f"{tmp_path} is not the course's lessons folder" in line
    assert "lacks chapter(s) 02, 03, 04, 06, 07, 08, 09, 10, 13" in line
