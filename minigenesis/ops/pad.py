"""Padding: ``F.pad(x, pad, mode, value)``, with PyTorch's argument order.

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


def _gather_index(xp, n: int, lo: int, hi: int, mode: str):
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


def pad(x, pad: tuple | list, mode: str = "constant", value: float | None = None):
    """Pad ``x`` by ``pad`` = (last_lo, last_hi, second_last_lo, second_last_hi, ...)."""
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in pad):
        raise TypeError(f"pad: amounts must be ints, got {tuple(pad)}")
    pad = tuple(pad)
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(
            f"pad: expected an even number of amounts for at most {x.ndim} dims "
            f"(a tensor of shape {tuple(x.shape)}), got {pad}"
        )
    k = len(pad) // 2
    # one (lo, hi) per padded dim, in dim order
    pairs = [(pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k)]
    dims = list(range(x.ndim - k, x.ndim))
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(
            f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}"
        )
    # Negative amounts crop. Constant and circular padding crop first and pad what is left;
    # reflect and replicate index the uncropped input (PyTorch's results in both cases).
    for (lo, hi), d in zip(pairs, dims):
        if lo + x.shape[d] + hi < 0:
            raise ValueError(
                f"pad: amounts {pad} leave {lo + x.shape[d] + hi} elements of dim {d} "
                f"(size {x.shape[d]}) in mode {mode!r}"
            )
    if mode in ("constant", "circular") and any(lo < 0 or hi < 0 for lo, hi in pairs):
        crop = tuple(slice(-lo if lo < 0 else None, hi if hi < 0 else None) for lo, hi in pairs)
        x = x[(Ellipsis, *crop)]
        pairs = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if mode == "constant":
        widths = ((0, 0),) * (x.ndim - k) + tuple(pairs)
        return Pad.apply(x, widths, 0.0 if value is None else value)
    if value not in (None, 0, 0.0):
        raise ValueError(f"pad: value= is only used by mode='constant', not {mode!r}")
    xp = get_array_module(x._data)
    index: list = [slice(None)] * (x.ndim - k)
    for j, ((lo, hi), d) in enumerate(zip(pairs, dims)):
        n = x.shape[d]
        if mode == "reflect" and max(lo, hi) >= n:
            raise ValueError(
                f"pad: reflect padding ({lo}, {hi}) must be less than the size {n} of dim {d}"
            )
        if mode == "circular" and max(lo, hi) > n:
            raise ValueError(
                f"pad: circular padding ({lo}, {hi}) can wrap at most once around dim {d} "
                f"of size {n}"
            )
        idx = _gather_index(xp, n, lo, hi, mode)
        # orthogonal (np.ix_-style) indexing: the j-th index varies along its own axis
        index.append(idx.reshape((-1,) + (1,) * (k - 1 - j)))
    return x[tuple(index)]
