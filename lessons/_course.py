"""The course helper: where a chapter's exercises live, and how they are loaded.

Each chapter folder ships ``exercises_template.py`` (the stubs, as the course wrote them) and
``solutions.py`` (the reference answers). YOUR answers live in ``exercises.py`` next to them: your
own copy of the template, made the first time you open the notebook or run the chapter's checks,
and never tracked by git (a ``git pull`` of a newer course cannot touch it, and the project's own
checks never read it). ``python -m minigenesis lessons reset 02`` starts a chapter over (your old
file is kept as a backup).

Used by ``lessons/conftest.py`` (the ``impl`` fixture) and by the notebooks::

    import sys; sys.path.insert(0, "..")   # lessons/, where this helper lives
    from _course import load
    ex = load()    # your exercises.py; solutions.py when MINIGENESIS_SOLUTIONS=1

What ``load()`` gives a notebook: your functions where you have written them, and the reference
answer, with a one-line note the first time it runs, for each exercise you have not done yet, so
that "Run All" reads the whole lesson with its outputs.

What the checks get (``hybrid``): a check of exercise N.M runs YOUR code for N.M and the reference
answers for every other exercise of the chapter, so that its result depends on N.M alone.

Modes, chosen by environment variables (``pytest --solutions`` sets the first; notebooks run by
``--nbmake`` inherit it):

- ``MINIGENESIS_SOLUTIONS=1``: the reference answers.
- ``MINIGENESIS_STUBS=1``: the shipped stubs (``exercises_template.py``), never your copy; the
  project's own tests use it to check the stubs, and nothing is written.
- neither: your ``exercises.py`` (made from the template when missing).

Modules are loaded by file path under a name made from the chapter folder
(``lessons_07_lr_schedulers_exercises``), so every chapter can have its own files without clashing.
"""

from __future__ import annotations

import ast
import datetime
import importlib.util
import os
import re
import shutil
import sys
import types
from pathlib import Path
from types import ModuleType

SOLUTIONS_ENV = "MINIGENESIS_SOLUTIONS"
STUBS_ENV = "MINIGENESIS_STUBS"
LESSONS_DIR = Path(__file__).resolve().parent
REPO_ROOT = LESSONS_DIR.parent

TEMPLATE = "exercises_template.py"  # the stubs as shipped (tracked by git)
EXERCISES = "exercises.py"  # the learner's copy (ignored by git and by the linters)
SOLUTIONS = "solutions.py"

# "Exercise 7.2: what to do" -- the message every stub raises.
EXERCISE_RE = re.compile(r"Exercise (\d+\.\d+)\s*:?\s*(.*)", re.DOTALL)
_STUB_MESSAGE_RE = re.compile(r"Exercise (\d+\.\d+)")

_COPY_HEADER = (
    "# Your answers for this chapter: a copy of exercises_template.py, yours to edit (git ignores\n"
    "# it). Start over with: python -m minigenesis lessons reset {number}\n"
)

# A notebook started in lessons/NN_topic/ must find the package even when it is not pip-installed.
if (REPO_ROOT / "minigenesis").is_dir() and importlib.util.find_spec("minigenesis") is None:
    sys.path.insert(0, str(REPO_ROOT))


def one_blas_thread() -> None:
    """Let NumPy's BLAS use one thread from now on, as the main job does for its training loop
    (``minigenesis/utils/threads.py`` says why).

    The course's matrices are small: a second BLAS thread saves nothing on them, and on a busy
    machine threads that wait for each other make a product many times slower (the RNNs and
    the GPT of chapters 14-15, one notebook then: 233 s with the default threads on two busy
    cores, 15 s with one). Every notebook
    calls this in its first cell, and the checks call it when pytest starts (``conftest.py``);
    it is ``mg.set_num_threads(1)``, which you may call yourself to change it."""
    import minigenesis as mg  # here, not at the top: the package path is set up above

    mg.set_num_threads(1)


def solutions_mode() -> bool:
    """True when the reference solutions should be used instead of the learner's exercises."""
    return os.environ.get(SOLUTIONS_ENV, "") == "1"


def stubs_mode() -> bool:
    """True when the shipped stubs should be checked instead of the learner's copy."""
    return os.environ.get(STUBS_ENV, "") == "1"


def chapter_dir(chapter: str | os.PathLike | None = None) -> Path:
    """The folder of a chapter: a path, a folder name (``"07_lr_schedulers"``), a number
    (``"7"``, ``"07"``), or None for the current directory (where Jupyter starts a notebook)."""
    if chapter is None:
        return Path.cwd().resolve()
    path = Path(chapter)
    if path.is_dir():
        return path.resolve()
    name = str(chapter)
    if name.isdigit():
        matches = sorted(LESSONS_DIR.glob(f"{int(name):02d}_*"))
        if matches:
            return matches[0]
    if (LESSONS_DIR / name).is_dir():
        return LESSONS_DIR / name
    raise FileNotFoundError(f"no chapter {chapter!r} under {LESSONS_DIR}")


# ----------------------------------------------------------------------------------------------
# The learner's copy
# ----------------------------------------------------------------------------------------------
def ensure_copy(folder: Path) -> bool:
    """Make ``exercises.py`` from the template when it does not exist; True if it was made."""
    folder = Path(folder)
    mine, template = folder / EXERCISES, folder / TEMPLATE
    if mine.exists() or mine.is_symlink() or not template.is_file():  # (never write through a link)
        return False
    number = str(int(folder.name[:2])) if folder.name[:2].isdigit() else folder.name
    text = template.read_text(encoding="utf-8")
    mine.write_text(_COPY_HEADER.format(number=f"{int(number):02d}") + text, encoding="utf-8")
    return True


def learner_file(folder: Path, create: bool = True) -> Path:
    """The file the learner's checks and notebook read: ``exercises.py`` (made on first use), or
    the template where it cannot be made (``create=False``, or stubs mode)."""
    folder = Path(folder)
    if stubs_mode():
        return folder / TEMPLATE
    if create:
        ensure_copy(folder)
    mine = folder / EXERCISES
    return mine if mine.is_file() else folder / TEMPLATE


def reset(folder: Path) -> Path | None:
    """Start a chapter over: the learner's copy is renamed to a dated backup (returned) and a
    fresh copy of the template takes its place."""
    folder = Path(folder)
    mine = folder / EXERCISES
    backup = None
    if mine.exists():
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        backup = folder / f"exercises.before-reset-{stamp}.py"
        n = 1
        while backup.exists():
            n += 1
            backup = folder / f"exercises.before-reset-{stamp}-{n}.py"
        shutil.move(str(mine), str(backup))
    ensure_copy(folder)
    return backup


def _units(tree: ast.Module) -> dict[str, ast.AST]:
    """Top-level functions and classes of a module, by name."""
    return {
        n.name: n
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def update(folder: Path) -> list[str]:
    """Bring a learner's copy up to a newer template without touching their answers: every
    top-level function or class the template has and the copy lacks is appended to the copy.
    Returns their names (empty when nothing was missing)."""
    folder = Path(folder)
    mine, template = folder / EXERCISES, folder / TEMPLATE
    if not mine.is_file():
        ensure_copy(folder)
        return []
    template_text = template.read_text(encoding="utf-8")
    new = _units(ast.parse(template_text))
    have = _units(ast.parse(mine.read_text(encoding="utf-8")))
    missing = [name for name in new if name not in have]
    if not missing:
        return []
    lines = template_text.splitlines()
    blocks = []
    for name in missing:
        node = new[name]
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        blocks.append("\n".join(lines[start - 1 : node.end_lineno]))
    text = mine.read_text(encoding="utf-8").rstrip("\n")
    text += "\n\n\n# New in the course (added by `python -m minigenesis lessons update`)\n\n\n"
    text += "\n\n\n".join(blocks) + "\n"
    mine.write_text(text, encoding="utf-8")
    return missing


def _stub_parts(node: ast.AST) -> set[str]:
    """The names of a unit's functions that still raise their exercise's stub (the unit's own
    name for a function; method names for a class)."""
    if isinstance(node, ast.ClassDef):
        return {m.name for m in node.body if isinstance(m, ast.FunctionDef) and _stub_number(m)}
    return {node.name} if _stub_number(node) else set()


def refresh_unstarted(folder: Path) -> tuple[list[str], list[str]]:
    """Bring the learner's not-yet-started exercises up to a newer template's interface.

    Returns ``(refreshed, changed)``. ``refreshed``: the pieces the learner has not started
    (every part the template stubs is still a stub in their copy) whose code differs from the
    template's: they are replaced by the template's version, the file's previous text kept as
    ``exercises.before-update-<date>-<time>.py``. ``changed``: pieces the learner HAS written
    whose signature (a function's arguments, a class's bases) differs from the template's: they
    are left as they are, to be compared with the template by the learner.
    """
    folder = Path(folder)
    mine, template = folder / EXERCISES, folder / TEMPLATE
    if not (mine.is_file() and template.is_file()):
        return [], []
    template_text, text = template.read_text(encoding="utf-8"), mine.read_text(encoding="utf-8")
    new, have = _units(ast.parse(template_text)), _units(ast.parse(text))
    exercises = exercise_units(template_text)
    refreshed, changed = [], []
    for name in exercises:
        if name not in have:
            continue
        ours, theirs = new[name], have[name]
        if ast.dump(ours) == ast.dump(theirs):
            continue
        if _stub_parts(ours) <= _stub_parts(theirs):
            refreshed.append(name)
        elif _signature(ours) != _signature(theirs):
            changed.append(name)
    if not refreshed:
        return [], changed
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    shutil.copyfile(mine, folder / f"exercises.before-update-{stamp}.py")
    lines, template_lines = text.splitlines(), template_text.splitlines()
    # replace from the bottom up, so that the line numbers above stay right
    for name in sorted(refreshed, key=lambda n: have[n].lineno, reverse=True):
        old, node = have[name], new[name]
        start = min([old.lineno] + [d.lineno for d in getattr(old, "decorator_list", [])])
        new_start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        lines[start - 1 : old.end_lineno] = template_lines[new_start - 1 : node.end_lineno]
    mine.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return refreshed, changed


def _signature(node: ast.AST) -> str:
    """A unit's interface as text: a class's bases and its methods' arguments, a function's
    arguments."""
    if isinstance(node, ast.ClassDef):
        methods = [_signature(m) for m in node.body if isinstance(m, ast.FunctionDef)]
        return f"({', '.join(ast.unparse(b) for b in node.bases)}) " + " ".join(sorted(methods))
    return f"{node.name}({ast.unparse(node.args)})"


# ----------------------------------------------------------------------------------------------
# Which code belongs to which exercise
# ----------------------------------------------------------------------------------------------
def _stub_number(func: ast.AST) -> str | None:
    """The N.M of a ``raise NotImplementedError("Exercise N.M: ...")`` inside a function."""
    for node in ast.walk(func):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            call = node.exc
            if (
                isinstance(call.func, ast.Name)
                and call.func.id == "NotImplementedError"
                and call.args
                and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, str)
            ):
                match = _STUB_MESSAGE_RE.match(call.args[0].value)
                if match:
                    return match.group(1)
    return None


def exercise_units(source: str) -> dict[str, str]:
    """Which exercise each piece of a module is: ``{"mul": "2.1", "Softplus": "2.5"}``.

    A piece is a top-level function, or a class (an exercise's methods all sit in one class,
    and a class belongs to one exercise). Pieces with no stub are not listed.
    """
    units = {}
    for name, node in _units(ast.parse(source)).items():
        if isinstance(node, ast.ClassDef):
            numbers = {_stub_number(m) for m in node.body if isinstance(m, ast.FunctionDef)}
            numbers.discard(None)
            if numbers:
                units[name] = min(numbers, key=lambda n: tuple(int(p) for p in n.split(".")))
        else:
            number = _stub_number(node)
            if number:
                units[name] = number
    return units


def unfinished(source: str) -> dict[str, str]:
    """The pieces of a module that still raise their exercise's NotImplementedError."""
    return exercise_units(source)


def load_error(path: Path) -> str | None:
    """None if a Python file compiles, else one line: ``file line N: SyntaxError: message``."""
    try:
        compile(Path(path).read_text(encoding="utf-8"), str(path), "exec")
    except SyntaxError as err:
        return f"{_short(path)} line {err.lineno}: {type(err).__name__}: {err.msg}"
    except UnicodeDecodeError as err:  # one line, not the bytes' repr
        return f"{_short(path)}: not UTF-8 text (byte {err.start} is {err.object[err.start]:#04x})"
    except (OSError, ValueError) as err:
        return f"{_short(path)}: {err}"
    return None


def describe_error(path: Path, err: BaseException) -> str:
    """One line for an error raised while running a file: where in it, and what."""
    path = Path(path).resolve()
    if isinstance(err, SyntaxError) and err.lineno:
        return f"{_short(path)} line {err.lineno}: {type(err).__name__}: {err.msg}"
    line = None
    tb = err.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f"{_short(path)} line {line}" if line else _short(path)
    return f"{where}: {type(err).__name__}: {err}"


def _short(path: Path) -> str:
    path = Path(path).resolve()
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


# ----------------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------------
def _module_name(path: Path, tag: str = "") -> str:
    name = "lessons_" + re.sub(r"\W", "_", f"{path.parent.name}_{path.stem}")
    return name + ("__" + re.sub(r"\W", "_", tag) if tag else "")


def load_file(path: str | os.PathLike, fresh: bool = False, tag: str = "") -> ModuleType:
    """Import a Python file by path; the module name is unique per chapter, file and ``tag``.

    The module is imported once and reused, unless ``fresh`` asks to run the file again (a
    notebook does, so that edits to exercises.py show up when the cell is re-run).
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    name = _module_name(path, tag)
    module = sys.modules.get(name)
    if not fresh and module is not None and Path(module.__file__).resolve() == path:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before exec: dataclasses and pickle look themselves up here
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _rebind(
    func: types.FunctionType, namespace: dict, owner: type | None = None, module_name: str = ""
):
    """The same code as ``func``, looking its globals up in ``namespace`` (and, for a method
    that uses ``super()``, with ``owner`` as its class); ``module_name`` is where it says it
    lives (the module it is put in, for pickle), ``namespace``'s ``__name__`` by default."""
    closure = func.__closure__
    if closure and owner is not None and "__class__" in func.__code__.co_freevars:
        cells = list(closure)
        cells[func.__code__.co_freevars.index("__class__")] = types.CellType(owner)
        closure = tuple(cells)
    new = types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__, closure)
    new.__kwdefaults__ = func.__kwdefaults__
    new.__qualname__ = func.__qualname__
    new.__doc__ = func.__doc__
    new.__dict__.update(func.__dict__)
    new.__module__ = module_name or namespace.get("__name__", func.__module__)
    return new


def _rebind_attr(attr, namespace: dict, owner: type | None = None, module_name: str = ""):
    if isinstance(attr, staticmethod):
        return staticmethod(_rebind_attr(attr.__func__, namespace, owner, module_name))
    if isinstance(attr, classmethod):
        return classmethod(_rebind_attr(attr.__func__, namespace, owner, module_name))
    if isinstance(attr, property):
        parts = (attr.fget, attr.fset, attr.fdel)
        return property(
            *(_rebind_attr(p, namespace, owner, module_name) if p else None for p in parts)
        )
    if isinstance(attr, types.FunctionType):
        return _rebind(attr, namespace, owner, module_name)
    return attr


def _transplant(
    module: ModuleType, name: str, source: ModuleType, note=None, namespace: dict | None = None
) -> None:
    """Put ``source``'s function or class ``name`` into ``module``, its code looking its globals
    up in ``namespace`` (``module``'s own by default). ``note(name)`` is called the first time
    it runs."""
    target_ns = vars(module)
    namespace = target_ns if namespace is None else namespace
    obj = getattr(source, name)
    if isinstance(obj, types.FunctionType):
        new = _rebind(obj, namespace, module_name=module.__name__)
        if note is not None:
            new = _announced(new, note)
        target_ns[name] = new
        return
    if isinstance(obj, type):
        target = target_ns.get(name)
        if not isinstance(target, type):  # missing from the learner's file: take it whole
            target_ns[name] = obj
            return
        for key, attr in vars(obj).items():
            if key in ("__dict__", "__weakref__", "__module__", "__qualname__", "__doc__"):
                continue
            new = _rebind_attr(attr, namespace, target, module.__name__)
            if note is not None:
                new = _announced_attr(new, note)
            try:
                setattr(target, key, new)
            except (AttributeError, TypeError):
                pass
        return
    target_ns[name] = obj


def _announced(func, note):
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        note()
        return func(*args, **kwargs)

    return wrapper


def _announced_attr(attr, note):
    if isinstance(attr, staticmethod):
        return staticmethod(_announced(attr.__func__, note))
    if isinstance(attr, classmethod):
        return classmethod(_announced(attr.__func__, note))
    if isinstance(attr, types.FunctionType):
        return _announced(attr, note)
    return attr


def hybrid(
    folder: Path,
    keep: set[str] | None = None,
    *,
    fallback: bool = False,
    tag: str = "",
    announce=None,
) -> ModuleType:
    """The learner's module with other exercises' pieces taken from the reference answers.

    - ``keep``: the exercises whose pieces stay the learner's; every other exercise of the chapter
      runs the reference answer (a check of 2.4 gets the reference 2.1, 2.2 and 2.3). ``None``
      keeps every piece the learner has written.
    - ``fallback``: also replace the pieces that are still stubs (what a notebook wants), calling
      ``announce(number)`` the first time one of an exercise's pieces runs.

    Pieces the template has and the learner's copy lacks (a newer course) come from the template.

    Each side runs in its own namespace. The learner's code sees only what the learner's file
    defines and imports (plus the pieces put into it): an answer that uses ``mg`` without
    importing it fails with a NameError here as it does in a notebook. The reference pieces see
    the reference answers' imports and helpers, with the chapter's pieces and ready-made code
    taken from the learner's module (so they build the same classes and call the pieces the
    check runs).
    """
    folder = Path(folder)
    path = learner_file(folder)
    module = load_file(path, fresh=True, tag=tag or "hybrid")
    template_path = folder / TEMPLATE
    if not template_path.is_file():
        return module
    template_text = template_path.read_text(encoding="utf-8")
    units = exercise_units(template_text)
    solutions = load_file(folder / SOLUTIONS)
    reference_ns = dict(vars(solutions))  # a copy: the loaded solutions module stays as it is
    template = None
    for name in units:
        if name not in vars(module):
            template = template or load_file(template_path, tag="template")
            _transplant(module, name, template)
    # an exercise with a piece still a stub is not done: all its pieces run the reference answer
    # (its save with your load could disagree on a file format)
    not_done = {units[n] for n in unfinished(path.read_text(encoding="utf-8")) if n in units}
    announced: set[str] = set()  # one note per exercise, however many pieces it has
    for name, number in units.items():
        if keep is not None and number not in keep:
            _transplant(module, name, solutions, namespace=reference_ns)
        elif fallback and number in not_done and hasattr(solutions, name):
            note = _once(announce, number, announced)
            _transplant(module, name, solutions, note=note, namespace=reference_ns)
    # the reference pieces call the chapter's pieces and ready-made code as this module has them
    shared = set(units) | set(_units(ast.parse(template_text)))
    for name in shared:
        if name in vars(module):
            reference_ns[name] = vars(module)[name]
    return module


def _once(announce, number: str, announced: set[str]):
    def note():
        if number not in announced:
            announced.add(number)
            if announce is not None:
                announce(number)

    return note


def _print_note(number: str) -> None:
    print(f"(Exercise {number} not done yet: this runs the reference answer)")


def _say_what_moved(folder: Path) -> None:
    """One line when answers for this chapter still sit where an older course had them."""
    try:
        import _moves  # lessons/_moves.py (it imports this module: here, not at the top)
    except ImportError:
        return
    for line in _moves.pending(folder.parent):
        if f" to {folder.name}/" in line:
            print(line)


def load(
    chapter: str | os.PathLike | None = None, solutions: bool | None = None, fresh: bool = True
) -> ModuleType:
    """What a notebook works with: the chapter's exercises, finished by the reference answers.

    Your functions run where you have written them; an exercise you have not done yet runs the
    reference answer and says so, once, in the cell that first uses it. If your exercises.py does
    not load (a syntax error, say), the notebook says where, once, and runs the reference answers.

    ``chapter`` defaults to the current directory (a notebook runs in its chapter's folder);
    ``solutions`` defaults to :func:`solutions_mode`; ``fresh`` re-reads the file (so a notebook
    sees your latest edits each time the cell runs).
    """
    if solutions is None:
        solutions = solutions_mode()
    folder = chapter_dir(chapter)
    if solutions:
        return load_file(folder / SOLUTIONS, fresh=fresh)
    if not (folder / TEMPLATE).is_file():  # a folder without the course's layout
        return load_file(folder / EXERCISES, fresh=fresh)
    made = ensure_copy(folder) and not stubs_mode()
    path = learner_file(folder)
    if made:
        print(f"(made your copy of the exercises: {_short(path)})")
    if not stubs_mode():
        _say_what_moved(folder)
    try:
        return hybrid(folder, fallback=True, tag="notebook", announce=_print_note)
    except Exception as err:  # noqa: BLE001  (any error in the learner's file: say it, go on)
        print(f"({describe_error(path, err)}; this notebook runs the reference answers)")
        return load_file(folder / SOLUTIONS, fresh=fresh)
