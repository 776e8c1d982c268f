"""vmap's guard against in-place writes into tensors it does not map over.

``vmap`` here runs the function once per sample. A tensor that is not mapped (an argument with
in_dim None, or one the function captured: a closure variable, a global it names, a module's
parameters and buffers) is the same object in every call, so an in-place write into it would
happen once per sample: ``y.add_(1)`` adds the batch size, and a BatchNorm in training mode
updates its running statistics once per sample. PyTorch's vmap writes once, or refuses (a
batched value into an unbatched tensor; BatchNorm's running stats). Neither can be done right
by a loop, so such a write is refused with an error rather than silently repeated."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..nn.module import Module


def _tensors_in(value: Any, depth: int = 0) -> list:
    """The tensors a captured value holds: itself, a module's parameters and buffers, or the
    tensors of a (nested) tuple, list or dict."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, Module):
        return [*value.parameters(), *(b for b in value.buffers() if b is not None)]
    if depth < 3 and isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors_in(v, depth + 1)]
    if depth < 3 and isinstance(value, dict):
        return [t for v in value.values() for t in _tensors_in(v, depth + 1)]
    return []


def _captured(func: Callable, depth: int = 0) -> list:
    """The tensors ``func`` reaches without being passed them: closure cells, the globals its
    code names, a module's own state, a partial's bound arguments (nested functions followed
    a few levels)."""
    if depth > 3:
        return []
    if isinstance(func, Module):
        return _tensors_in(func)
    if isinstance(func, functools.partial):
        bound = [*func.args, *func.keywords.values()]
        return _tensors_in(bound) + _captured(func.func, depth + 1)
    owner = getattr(func, "__self__", None)
    found = _tensors_in(owner) if isinstance(owner, Module) else []
    func = getattr(func, "__func__", func)
    code = getattr(func, "__code__", None)
    if code is None:
        return found
    values = [cell.cell_contents for cell in func.__closure__ or () if _filled(cell)]
    scope = getattr(func, "__globals__", {})
    values += [scope[n] for n in code.co_names if n in scope]
    for value in values:
        if callable(value) and not isinstance(value, (Tensor, Module, type)):
            found += _captured(value, depth + 1)
        else:
            found += _tensors_in(value)
    return found


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 (an empty cell raises)
    except ValueError:
        return False
    return True


class UnmappedWrites:
    """The versions of the unmapped tensors before the samples run; ``check`` raises when one
    of them was written in place since."""

    def __init__(self, func: Callable, unmapped_args: list) -> None:
        seen: dict[int, Tensor] = {}
        for t in [*_tensors_in(list(unmapped_args)), *_captured(func)]:
            seen.setdefault(id(t), t)
        self.tensors = list(seen.values())
        self.versions = [t._version for t in self.tensors]

    def check(self) -> None:
        for t, version in zip(self.tensors, self.versions):
            if t._version != version:
                raise RuntimeError(
                    "vmap: the function wrote in place into a tensor it does not map over (an "
                    f"argument with in_dim None or a tensor it captured, of shape {list(t.shape)}"
                    "). vmap runs the function once per sample here, so the write would be "
                    "repeated per sample: write into a mapped input or a new tensor instead "
                    "(for BatchNorm in training mode, see func.replace_all_batch_norm_modules_)"
                )
