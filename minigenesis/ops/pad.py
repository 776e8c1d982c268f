"""Padding: the ops behind ``F.pad(x, pad, mode, value)`` (``nn/functional/padding.py``).

``pad`` lists (before, after) pairs starting from the LAST dim: ``(1, 2)`` pads the last dim with
one element in front and two behind, ``(1, 1, 2, 2)`` also pads the dim before it by two.

- ``constant``: the ``Pad`` op below; its gradient is the slice of dL/dy that covers x. Negative
  amounts crop (as in PyTorch), done by slicing first.
- ``reflect``, ``replicate``, ``circular``: each output element is a copy of some input element, so
  these are plain gathers ``x[..., rows, cols]`` with an index per padded dim (a negative amount
  starts or ends that index inside x: it crops, as in PyTorch). The gather's
  gradient already scatter-adds, which is exactly right: a border pixel copied three times
  collects three gradients.
"""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module


class Pad(Op):
    """y = x surrounded by ``value`` (``widths`` = one (before, after) pair per dim, all >= 0);
    dL/dx = dL/dy[the slice where x sits]."""

    @staticmethod
    def forward(ctx, x, widths, value):
        ctx.inner = tuple(slice(lo, lo + n) for (lo, _), n in zip(widths, x.shape))
        xp = get_array_module(x)
        return xp.pad(x, widths, mode="constant", constant_values=value)

    @staticmethod
    def backward(ctx, gy):
        return gy[ctx.inner], None, None


def gather_index(xp, n: int, lo: int, hi: int, mode: str):
    """Which input position each of the lo + n + hi output positions copies, along one dim."""
    pos = xp.arange(-lo, n + hi)
    if mode == "replicate":
        return xp.clip(pos, 0, n - 1)
    if mode == "circular":
        return pos % n
    # reflect (the edge itself is not repeated): ... 2 1 | 0 1 2 ... n-1 | n-2 n-3 ...
    period = 2 * (n - 1)
    pos = xp.abs(pos) % period if period else xp.zeros_like(pos)
    return xp.where(pos >= n, period - pos, pos)
