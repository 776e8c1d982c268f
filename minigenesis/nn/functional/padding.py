"""F.pad: constant padding as one op, reflect/replicate/circular as a gather (ops/pad.py)."""

from __future__ import annotations

from ...backend import get_array_module
from ...ops.pad import Pad, gather_index
from ...ops.same_dtype import check_not_bool
from ...size import plain_int


# ----------------------------------------------------------------------------------------------
# Padding
# ----------------------------------------------------------------------------------------------
def pad(input, pad: tuple | list, mode: str = "constant", value: float | None = None):  # noqa: A002
    """Pad ``input`` by ``pad`` = (last_lo, last_hi, second_last_lo, second_last_hi, ...)."""
    x = input
    pad = tuple(map(plain_int, pad))  # (NumPy integers count as ints)
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in pad):
        raise TypeError(f"pad: amounts must be ints, got {tuple(pad)}")
    pad = tuple(pad)
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise RuntimeError(
            f"pad: expected an even number of amounts for at most {x.ndim} dims "
            f"(a tensor of shape {tuple(x.shape)}), got {pad}"
        )
    k = len(pad) // 2
    # one (lo, hi) per padded dim, in dim order
    pairs = [(pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k)]
    dims = list(range(x.ndim - k, x.ndim))
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(  # PyTorch's type ("Unrecognised padding mode")
            f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}"
        )
    if mode != "constant" and not (k <= 3 and x.ndim in (k + 1, k + 2)):
        # PyTorch's rule: the last k dims are padded, behind a channel dim and maybe a batch dim
        raise NotImplementedError(
            f"pad: mode {mode!r} pads the last 1, 2 or 3 dims of a (batch, channel, *dims) or "
            f"(channel, *dims) input: {len(pad)} amounts need a {k + 1}-d or {k + 2}-d input, "
            f"got {x.ndim}-d"
        )
    if mode in ("reflect", "replicate") and 0 in x.shape[x.ndim - k - 1 :]:
        raise RuntimeError(
            f"pad: mode {mode!r} expects a {k + 1}-d or {k + 2}-d (batch mode) input with possibly "
            f"0 batch size and other non-zero dims, got shape {tuple(x.shape)}"
        )
    # Negative amounts crop. Constant and circular padding crop first and pad what is left;
    # reflect and replicate index the uncropped input (PyTorch's results in both cases).
    # PyTorch's RuntimeError: no dim may end up negative, nor empty in reflect/replicate mode
    for (lo, hi), d in zip(pairs, dims):
        size = lo + x.shape[d] + hi
        if size < 0 or (size == 0 and mode in ("reflect", "replicate")):
            raise RuntimeError(
                f"pad: amounts {pad} leave {size} elements of dim {d} "
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
    if mode in ("reflect", "replicate"):  # PyTorch's kernels have no bool case (circular: a copy)
        check_not_bool(f"{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d", x)
    xp = get_array_module(x._data)
    index: list = [slice(None)] * (x.ndim - k)
    for j, ((lo, hi), d) in enumerate(zip(pairs, dims)):
        n = x.shape[d]
        if mode == "reflect" and max(lo, hi) >= n:
            raise RuntimeError(
                f"pad: reflect padding ({lo}, {hi}) must be less than the size {n} of dim {d}"
            )
        if mode == "circular" and max(lo, hi) > n:
            raise ValueError(
                f"pad: circular padding ({lo}, {hi}) can wrap at most once around dim {d} "
                f"of size {n}"
            )
        idx = gather_index(xp, n, lo, hi, mode)
        # orthogonal (np.ix_-style) indexing: the j-th index varies along its own axis
        index.append(idx.reshape((-1,) + (1,) * (k - 1 - j)))
    return x[tuple(index)]
