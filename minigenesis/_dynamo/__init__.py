"""``mg._dynamo`` (``torch._dynamo``): the names programs touch around ``torch.compile``.

PyTorch's Dynamo rewrites a function's bytecode into graphs that ``torch.compile`` hands to a
compiler. minigenesis runs every op eagerly (see ``compiler.py``), so there is nothing to trace:
``disable`` returns the function it is given, ``reset`` has no caches to clear, ``mark_dynamic``
and friends have no shapes to guard, and ``is_compiling()`` is False. What programs set before
compiling (``torch._dynamo.config.suppress_errors = True``, ``config.patch(...)``) is kept in
``config`` with PyTorch's defaults, read back as set, and has no effect on the results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import config

__all__ = [
    "allow_in_graph", "config", "disable", "is_compiling", "mark_dynamic", "mark_static",
    "maybe_mark_dynamic", "reset",
]  # fmt: skip


def disable(
    fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None
) -> Any:
    """``torch._dynamo.disable``: keep ``fn`` out of compilation. Used bare (``@disable``), with
    options (``@disable(recursive=False)``) or called on a function; everything already runs
    eagerly here, so the function comes back as it was."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    if not callable(fn):
        raise TypeError(f"disable expects a callable, got {type(fn).__name__}")
    return fn


def reset() -> None:
    """``torch._dynamo.reset``: clear the compiled-code caches; nothing is cached here."""


def is_compiling() -> bool:
    """False: nothing is ever being traced here."""
    return False


def allow_in_graph(fn: Any) -> Any:
    """``torch._dynamo.allow_in_graph``: put ``fn`` in the graph as one call; here it returns
    ``fn`` (there is no graph)."""
    return fn


def _check_index(t: Any, index: Any) -> None:
    """The checks PyTorch makes when marking dims: ``index`` a dim of ``t`` (or a list of them)."""
    dims = index if isinstance(index, (list, tuple)) else [index]
    for d in dims:
        if not isinstance(d, int) or not -t.dim() <= d < max(t.dim(), 1):
            raise IndexError(f"dim {d!r} is out of range for a tensor of {t.dim()} dims")


def mark_dynamic(t: Any, index: Any, **hints: Any) -> None:
    """``torch._dynamo.mark_dynamic(t, dim, min=, max=)``: let ``dim`` of ``t`` vary between calls
    without recompiling. Nothing is compiled here; the dims are checked and nothing else done."""
    _check_index(t, index)


def maybe_mark_dynamic(t: Any, index: Any) -> None:
    """``torch._dynamo.maybe_mark_dynamic``: ``mark_dynamic`` as a hint."""
    _check_index(t, index)


def mark_static(t: Any, index: Any = None) -> None:
    """``torch._dynamo.mark_static``: treat ``dim`` of ``t`` (all of them without ``index``) as a
    constant when compiling; nothing is compiled here."""
    if index is not None and hasattr(t, "dim"):
        _check_index(t, index)
