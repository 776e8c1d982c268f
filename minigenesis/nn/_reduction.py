"""The ``reduction=`` argument of the losses, shared by ``F.*`` and the loss modules (PyTorch keeps
the same in ``torch.nn._reduction``).

A loss reduces its per-element values with ``"none"`` (keep them), ``"mean"`` or ``"sum"``. Before
``reduction`` existed PyTorch spelled it with two flags, ``size_average`` and ``reduce``; they
still work and, when given, decide: ``reduce=False`` keeps the values, else ``size_average=False``
sums and anything else averages.
"""

from __future__ import annotations

REDUCTIONS = ("none", "mean", "sum")


def reduction_mode(size_average, reduce, reduction: str, name: str) -> str:
    """PyTorch's legacy ``size_average``/``reduce`` flags, else ``reduction`` checked (``name`` is
    the loss, for the error)."""
    if size_average is not None or reduce is not None:
        if reduce is False:
            return "none"
        return "sum" if size_average is False else "mean"
    if reduction not in REDUCTIONS:
        raise ValueError(f"{name}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
    return reduction
