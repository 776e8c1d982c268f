"""Globals a user trusts: ``add_safe_globals`` extends the ``weights_only=True`` allow-list.

PyTorch's spelling and rules. A checkpoint that holds an object of your own class (a config
dataclass, an enum) is refused by a weights-only load, because loading it means calling into that
class. If you trust the class, name it::

    mg.serialization.add_safe_globals([TrainConfig])        # for the rest of the process
    with mg.serialization.safe_globals([TrainConfig]):       # or for one block
        ckpt = mg.load("run.ckpt")

What an allowed global ``G`` lets a file do, and nothing more (as in PyTorch): call ``G(*args)``
(REDUCE: how enums and callables are pickled); if ``G`` is a class, make ``G.__new__(G, *args)``
(NEWOBJ: how plain instances, dataclasses and namedtuples are pickled) and set the state of an
instance of exactly ``G`` (BUILD: ``__setstate__(state)`` if the class defines it, else an update
of ``__dict__`` with string keys). The arguments and the state are themselves made of what the
weights-only loader allows. Every other class, and every other opcode, stays refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

# "module.qualname" as a pickle names it -> the object
_USER_GLOBALS: dict[str, Any] = {}
# ids of allowed classes a file may make (NEWOBJ, BUILD) but not call (REDUCE): see made_only
_MADE_ONLY: set[int] = set()


def name_of(obj: Any) -> str:
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        raise TypeError(
            f"add_safe_globals: {obj!r} has no __module__/__qualname__ to be found by in a pickle; "
            "pass (obj, 'module.name') to name it"
        )
    return f"{module}.{qualname}"


def add_safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> None:
    """Allow these globals (classes or functions) in ``weights_only=True`` loads, for the rest of
    the process. An entry ``(obj, "module.name")`` names ``obj`` as the file spells it (for a
    class saved under an older path)."""
    if not isinstance(safe_globals, (list, tuple)):
        raise TypeError(
            f"add_safe_globals expects a list of classes or functions, got "
            f"{type(safe_globals).__name__} (wrap a single one in a list: [MyClass])"
        )
    for entry in safe_globals:
        if not callable(entry[0] if isinstance(entry, tuple) and entry else entry):
            raise TypeError(f"add_safe_globals: {entry!r} is neither a class nor a function")
        if isinstance(entry, tuple):
            if len(entry) != 2 or not isinstance(entry[1], str):
                raise TypeError(
                    f"add_safe_globals: a tuple entry must be (obj, 'module.name'), got {entry!r}"
                )
            obj, name = entry
        else:
            obj, name = entry, name_of(entry)
        _USER_GLOBALS[name] = obj


def get_safe_globals() -> list[Callable | tuple[Callable, str]]:
    """The globals added by ``add_safe_globals`` (an entry whose name is not its own comes back
    as ``(obj, name)``)."""
    return [obj if _safe_name(obj) == name else (obj, name) for name, obj in _USER_GLOBALS.items()]


def _safe_name(obj: Any) -> str | None:
    try:
        return name_of(obj)
    except TypeError:
        return None


def clear_safe_globals() -> None:
    """Forget every global added by ``add_safe_globals``."""
    _USER_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> Iterator[None]:
    """``with safe_globals([A, B]): ...``: allow ``A`` and ``B`` inside the block only."""
    saved = dict(_USER_GLOBALS)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _USER_GLOBALS.clear()
        _USER_GLOBALS.update(saved)


def user_global(name: str) -> Any:
    """The object allowed under ``name`` ("module.qualname"), or None."""
    return _USER_GLOBALS.get(name)


def is_user_global(obj: Any) -> bool:
    """Is ``obj`` itself a class or function the user allowed (by identity)? Such an object
    may be a value in the result, e.g. a module's ``activation = F.relu``."""
    return any(obj is allowed for allowed in _USER_GLOBALS.values())


def is_user_class(cls: Any) -> bool:
    """Is ``cls`` a class the user allowed (by identity)?"""
    return isinstance(cls, type) and any(cls is obj for obj in _USER_GLOBALS.values())


@contextlib.contextmanager
def made_only(classes: list[type]) -> Iterator[None]:
    """Inside the block, allow ``classes`` to be made from their saved state (``__new__`` and
    the state set, as pickle makes a plain instance) but never called: calling a class runs its
    ``__init__`` with arguments the file chooses (a layer of 10^6 x 10^6 weights, say). How
    ``jit.load`` reads back whole modules."""
    saved, saved_made_only = dict(_USER_GLOBALS), set(_MADE_ONLY)
    add_safe_globals(list(classes))
    _MADE_ONLY.update(id(cls) for cls in classes)
    try:
        yield
    finally:
        _USER_GLOBALS.clear()
        _USER_GLOBALS.update(saved)
        _MADE_ONLY.clear()
        _MADE_ONLY.update(saved_made_only)


def made_not_called(obj: Any) -> bool:
    """Is ``obj`` a class ``made_only`` allows to be made but not called?"""
    return id(obj) in _MADE_ONLY
