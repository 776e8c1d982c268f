"""When a newer course moves exercises to another chapter, carry the learner's answers along.

Your answers live in ``exercises.py`` files that git does not track, so a ``git pull`` that
renumbers chapters leaves them where they were: an old chapter folder with nothing but your file
in it, or exercises in a chapter that no longer has them. ``python -m minigenesis lessons
update`` reads the moves listed here and, for each, carries every exercise you had started into
the chapter it now belongs to, by name (a function, or a class with its methods), with its
exercise numbers rewritten. Before writing a file it keeps the previous one as
``exercises.before-update-<date>-<time>.py``; an exercise you have already answered in the new
chapter stays as it is there (and is named); a chapter folder left with nothing of the course in
it moves to ``lessons/_moved/`` (ignored by git) with everything you had in it. Until then,
``python -m minigenesis lessons`` and the notebooks say in one line what moved.
"""

from __future__ import annotations

import ast
import datetime
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import _course

MOVED_DIR = "_moved"  # lessons/_moved/: old chapter folders, whole (ignored by git)


@dataclass(frozen=True)
class Move:
    """Exercises that moved from chapter folder ``old`` to ``new``.

    ``names``: the top-level functions and classes that moved (ready-made ones included, so that
    they leave the old file too); empty when the whole chapter moved (every piece of ``new``'s
    template). ``numbers``: each old exercise number and the new one."""

    old: str
    new: str
    why: str
    numbers: dict[str, str]
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Retired:
    """An answer whose question changed (a self-check split between two chapters): a piece of
    ``folder`` whose text still names the old exercise ``number`` goes back to the stub."""

    folder: str
    name: str
    number: str
    why: str


MOVES = (
    Move(
        "14_sequence_models",
        "15_attention_and_gpt",
        "chapter 14 was split in two: attention and the GPT are chapter 15 now",
        {"14.6": "15.1", "14.7": "15.2", "14.8": "15.3", "14.9": "15.4", "14.10": "15.5"},
        (
            "attention",
            "causal_mask",
            "split_heads",
            "merge_heads",
            "CausalSelfAttention",
            "Block",
            "sample_next",
            "CharGPT",
        ),
    ),
    Move(
        "15_distributed",
        "16_distributed",
        "data parallelism is chapter 16 now",
        {f"15.{m}": f"16.{m}" for m in range(1, 7)},
    ),
)
RETIRED = (
    Retired(
        "14_sequence_models",
        "quiz",
        "14.11",
        "chapter 14's self-check has new questions (its old ones were split with chapter 15)",
    ),
)


@dataclass
class Plan:
    """What ``update`` would do for one move: the pieces to carry and to take out."""

    move: Move
    source: Path
    carry: list[str] = field(default_factory=list)  # started by the learner: their text moves
    drop: list[str] = field(default_factory=list)  # every moved piece found in the source
    whole: bool = False  # the source folder is no chapter any more: it moves to _moved/


def _units(text: str) -> dict[str, ast.AST]:
    return _course._units(ast.parse(text))


def _unstarted(mine: ast.AST, template: ast.AST) -> bool:
    """Every part the template stubs is still a stub in the learner's piece."""
    return _course._stub_parts(template) <= _course._stub_parts(mine)


def plan(lessons: Path, move: Move) -> Plan | None:
    """The work ``move`` needs in ``lessons``, or None when there is none (nothing of it left
    in the old place, or the course does not have the new chapter yet). SyntaxError when the
    learner's old file does not parse."""
    old, new = lessons / move.old, lessons / move.new
    source, template = old / _course.EXERCISES, new / _course.TEMPLATE
    if not (source.is_file() and template.is_file()):
        return None
    whole = not (old / _course.TEMPLATE).is_file()
    if not move.names and not whole:  # the old folder is a chapter again: nothing moved from it
        return None
    template_text = template.read_text(encoding="utf-8")
    ours, exercises = _units(template_text), _course.exercise_units(template_text)
    theirs = _units(source.read_text(encoding="utf-8"))
    still_there = set() if whole else set(_units((old / _course.TEMPLATE).read_text("utf-8")))
    names = move.names or tuple(ours)
    found = [n for n in names if n in theirs and n in ours and n not in still_there]
    if not found and not whole:
        return None
    carry = [n for n in found if n in exercises and not _unstarted(theirs[n], ours[n])]
    return Plan(move, source, carry, found, whole)


def pending(lessons: Path) -> list[str]:
    """One line per move that ``lessons update`` has still to make."""
    lines = []
    for move in MOVES:
        try:
            todo = plan(lessons, move)
        except SyntaxError:
            todo = Plan(move, lessons / move.old / _course.EXERCISES, whole=True)
        if todo is not None:
            lines.append(
                f"({_course._short(todo.source)}: {move.why}; `python -m minigenesis lessons "
                f"update` carries your answers to {move.new}/exercises.py)"
            )
    return lines


def problem(lessons: Path) -> str | None:
    """A learner's file a move would read or write that cannot be: one that does not parse, or a
    symbolic link. ``update`` then changes nothing."""
    for move in MOVES:
        source = lessons / move.old / _course.EXERCISES
        target = lessons / move.new / _course.EXERCISES
        for path in (source, target):
            if path.is_symlink():
                return f"{path} is a symbolic link; make it a plain file to let the course write it"
        if source.is_file() and (lessons / move.new / _course.TEMPLATE).is_file():
            error = _course.load_error(source)
            if error:
                return f"cannot carry {move.old}'s answers to {move.new}: {error}"
    return None


def _renumber(text: str, numbers: dict[str, str]) -> str:
    """``Exercise 14.9`` -> ``Exercise 15.4``: each old number of the move, whole."""
    pattern = "|".join(re.escape(n) for n in sorted(numbers, key=len, reverse=True))
    return re.sub(rf"(?<![\d.])({pattern})(?![\d])", lambda m: numbers[m.group(1)], text)


def _span(node: ast.AST, lines: list[str]) -> tuple[int, int]:
    """0-based [start, end) of a piece, with its decorators and the comment lines just above."""
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
    while start > 0 and lines[start - 1].startswith("#"):
        start -= 1
    return start, node.end_lineno


def _imports(text: str) -> list[str]:
    """The module-level import statements of a file, as written."""
    tree = ast.parse(text)
    return [
        ast.get_source_segment(text, n)
        for n in tree.body
        if isinstance(n, (ast.Import, ast.ImportFrom)) and getattr(n, "module", "") != "__future__"
    ]


_BACKED_UP: set[Path] = set()  # the files this update has kept a copy of: one copy each


def _backup(path: Path) -> None:
    """Keep the file as it was before this update touched it (once per update)."""
    if path.resolve() in _BACKED_UP:
        return
    _BACKED_UP.add(path.resolve())
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    backup, n = path.parent / f"exercises.before-update-{stamp}.py", 1
    while backup.exists():
        n += 1
        backup = path.parent / f"exercises.before-update-{stamp}-{n}.py"
    shutil.copyfile(path, backup)


def carry(lessons: Path, todo: Plan) -> list[str]:
    """Make the move: the learner's started pieces into the new chapter's file (the template's
    stub replaced, or the piece appended), the moved pieces out of the old file (or the old
    folder to ``_moved/``). Returns what was done, one line each."""
    move, lines_out = todo.move, []
    new = lessons / move.new
    _course.ensure_copy(new)
    target = new / _course.EXERCISES
    source_text = todo.source.read_text(encoding="utf-8")
    source_lines = source_text.splitlines()
    theirs = _units(source_text)
    template = _units((new / _course.TEMPLATE).read_text(encoding="utf-8"))
    text = target.read_text(encoding="utf-8")
    have = _units(text)
    carried, kept = [], []
    lines = text.splitlines()
    appended = []
    for name in sorted(todo.carry, key=lambda n: have[n].lineno if n in have else 0, reverse=True):
        start, end = _span(theirs[name], source_lines)
        block = _renumber("\n".join(source_lines[start:end]), move.numbers).splitlines()
        if name not in have:
            appended.insert(0, block)
        elif _unstarted(have[name], template[name]):
            old_start = min([have[name].lineno] + [d.lineno for d in have[name].decorator_list])
            lines[old_start - 1 : have[name].end_lineno] = block
        else:
            kept.append(name)
            continue
        carried.append(name)
    if carried:
        for block in appended:
            lines += ["", ""] + block
        missing = [i for i in _imports(source_text) if i not in lines]
        if missing:  # the carried code may need the old file's imports
            tree = ast.parse("\n".join(lines))
            after = max((n.end_lineno for n in tree.body if isinstance(n, (ast.Import,
                        ast.ImportFrom))), default=0)  # fmt: skip
            lines[after:after] = missing
        _backup(target)
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        carried.reverse()
        lines_out.append(
            f"{move.new}: carried your answers from {move.old}/exercises.py ({move.why}): "
            f"{', '.join(carried)} (your previous file: exercises.before-update-*.py)"
        )
    if kept:
        lines_out.append(
            f"{move.new}: already answered here, kept as it is: {', '.join(sorted(kept))} "
            f"(the version in {move.old}/exercises.py is in its backup)"
        )
    if todo.whole:
        where = lessons / MOVED_DIR / move.old
        n = 1
        while where.exists():
            n += 1
            where = lessons / MOVED_DIR / f"{move.old}-{n}"
        where.parent.mkdir(exist_ok=True)
        shutil.move(str(todo.source.parent), str(where))
        lines_out.append(
            f"{move.old}: no longer a chapter; its files are now in {_course._short(where)}"
        )
    elif todo.drop:
        _backup(todo.source)
        for name in sorted(todo.drop, key=lambda n: theirs[n].lineno, reverse=True):
            start, end = _span(theirs[name], source_lines)
            del source_lines[start:end]
        text = re.sub(r"\n{4,}", "\n\n\n", "\n".join(source_lines))  # the gaps closed
        todo.source.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
        lines_out.append(
            f"{move.old}: took out of exercises.py what is now in {move.new}: "
            f"{', '.join(todo.drop)} (your previous file: exercises.before-update-*.py)"
        )
    return lines_out


def retire(lessons: Path, old: Retired) -> list[str]:
    """Put back the template's stub of a piece whose question changed (backed up first)."""
    folder = lessons / old.folder
    mine, template = folder / _course.EXERCISES, folder / _course.TEMPLATE
    if not (mine.is_file() and template.is_file()):
        return []
    text = mine.read_text(encoding="utf-8")
    have = _units(text).get(old.name)
    if have is None or not re.search(rf"Exercise {re.escape(old.number)}(?![\d])",
                                     ast.get_source_segment(text, have) or ""):  # fmt: skip
        return []
    template_text = template.read_text(encoding="utf-8")
    ours = _units(template_text)[old.name]
    answered = not _unstarted(have, ours)
    _backup(mine)
    lines = text.splitlines()
    start = min([have.lineno] + [d.lineno for d in getattr(have, "decorator_list", [])])
    new_start = min([ours.lineno] + [d.lineno for d in getattr(ours, "decorator_list", [])])
    lines[start - 1 : have.end_lineno] = template_text.splitlines()[new_start - 1 : ours.end_lineno]
    mine.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if not answered:
        return []
    return [
        f"{old.folder}: {old.why}; {old.name}() is a stub again, your previous answers are in "
        f"exercises.before-update-*.py"
    ]


def migrate(lessons: Path, chapters: set[str] | None = None) -> list[str]:
    """Every move and retirement whose new chapter is in ``chapters`` (all when None)."""
    _BACKED_UP.clear()
    out = []
    for move in MOVES:
        if chapters is None or move.new in chapters:
            todo = plan(lessons, move)
            if todo is not None:
                out += carry(lessons, todo)
    for old in RETIRED:
        if chapters is None or old.folder in chapters:
            out += retire(lessons, old)
    return out
