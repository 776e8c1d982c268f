"""Which tensors hold one sample of a running vmap.

``func.vmap`` runs its function once per sample, on slices of the mapped inputs. PyTorch's vmap
runs it once, on batched tensors, so Python cannot see one sample's numbers: ``.item()``,
``float(t)``, ``if t > 0:`` on a batched tensor raise there. To refuse them as PyTorch does, the
loop marks each slice with a ``Sample`` of the running vmap call, and every op's outputs take the
mark of an input that has one (``Function.apply`` calls ``spread``, only while some vmap runs).
A mark outlives its vmap call harmlessly: it counts only while its call is in ``RUNNING``.

A slice also records where its sample starts in the input's memory (``shift``, in elements), so
that ``as_strided`` inside vmap counts its offset per sample, as PyTorch's batching rule does.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

RUNNING: list = []  # the vmap calls in progress, innermost last (tested for truth by every op)

_ITEM = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling "
    ".item() on a Tensor, please try to rewrite what you're doing with other operations. If "
    "error is occurring somewhere inside PyTorch internals, please file a bug report."
)
_CONTROL_FLOW = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. "
    "We don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues ."
)
_DATA = (
    "vmap: {what} reads the numbers of one sample of a batched Tensor, which vmap does not "
    "support (PyTorch: Cannot access data pointer of Tensor that doesn't have storage); "
    "rewrite it with tensor operations"
)


class Sample:
    """One sample's mark: the vmap call, the array owning the mapped input's memory and where
    this sample starts in it (elements from the start of sample 0)."""

    __slots__ = ("call", "owner", "shift")

    def __init__(self, call: object, owner: Any, shift: int) -> None:
        self.call, self.owner, self.shift = call, owner, shift


def sample_of(t: Any) -> Sample | None:
    """t's mark when it holds a sample of a vmap call still running, else None."""
    mark = t.__dict__.get("_vmap_sample")
    return mark if mark is not None and mark.call in RUNNING else None


def spread(args: tuple, outputs: Any) -> None:
    """Mark ``outputs`` (one tensor or a tuple) with the mark of the first tensor among ``args``
    (or in a list/tuple among them) that holds a sample."""
    mark = None
    for a in args:
        for t in a if isinstance(a, (list, tuple)) else (a,):
            d = getattr(t, "__dict__", None)
            if d is not None and (m := d.get("_vmap_sample")) is not None and m.call in RUNNING:
                mark = m
                break
        if mark is not None:
            break
    if mark is None:
        return
    for out in outputs if isinstance(outputs, tuple) else (outputs,):
        if hasattr(out, "__dict__"):
            out.__dict__["_vmap_sample"] = mark


# Tensor's conversions that read a number through .item(): float(t), int(t), an index, f"{t}"
_CONVERSIONS = frozenset({"__float__", "__int__", "__index__", "__format__", "__bool__"})


def _from_user_code(depth: int) -> bool:
    """Whether the frame ``depth`` levels above the caller (past Tensor's conversions, which
    read through .item()) is outside minigenesis: the library's own code may read a sample's
    numbers (it runs per sample, as PyTorch's kernels do)."""
    frame = sys._getframe(depth + 1)
    while frame.f_code.co_name in _CONVERSIONS and frame.f_back is not None:
        frame = frame.f_back
    name = frame.f_globals.get("__name__", "")
    return name != "minigenesis" and not name.startswith("minigenesis.")


def refuse_item(t: Any, control_flow: bool = False, depth: int = 1) -> None:
    """Raise PyTorch's RuntimeError where user code reads one number of a sample inside vmap:
    .item(), float(), int(), an index (control_flow=False), or bool() (control_flow=True)."""
    if RUNNING and sample_of(t) is not None and _from_user_code(depth + 1):
        raise RuntimeError(_CONTROL_FLOW if control_flow else _ITEM)


def refuse_data(t: Any, what: str, depth: int = 1) -> None:
    """Raise a RuntimeError where user code reads a sample's numbers (tolist(), numpy())."""
    if RUNNING and sample_of(t) is not None and _from_user_code(depth + 1):
        raise RuntimeError(_DATA.format(what=what))


_NO_RULE = {  # PyTorch's words for the ops its vmap has no batching rule for
    "allclose": "vmap over torch.allclose isn't supported yet. Please file an issue at "
    "https://github.com/pytorch/pytorch/issues",
    "equal": "Batching rule not implemented for aten::equal. We could not generate a fallback.",
}


def one_bool(name: str, t: Any) -> bool:
    """``bool(t)`` for an op that answers one Python bool (equal, allclose); inside vmap, where
    ``t`` holds a sample, PyTorch's RuntimeError: it has no batching rule for the op."""
    if RUNNING and sample_of(t) is not None:
        raise RuntimeError(_NO_RULE[name])
    return bool(t)


@contextmanager
def samples_hidden_for(cls: type) -> Iterator[None]:
    """Run a custom autograd.Function's forward with no vmap in progress where the class has
    its own ``vmap`` rule: PyTorch hands that rule the whole batch as plain tensors, so the
    forward may read their numbers (numpy(), item()). (generate_vmap_rule=True: the forward
    runs under vmap, as PyTorch's.)"""
    if not RUNNING or getattr(cls, "generate_vmap_rule", False) or not hasattr(cls, "vmap"):
        yield
        return
    running = RUNNING[:]
    RUNNING.clear()
    try:
        yield
    finally:
        RUNNING[:] = running
