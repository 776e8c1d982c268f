"""mg.* forms of the shape and index methods of ``tensor_shape_index.py`` (mg.roll(x, 1) is
x.roll(1)), and the stacking helpers that only exist as functions: hstack, vstack, column_stack
(each a ``cat`` along the right dim) and meshgrid (expanded views)."""

from __future__ import annotations

from typing import Any

from .functions import cat as _cat


def _at_least(t: Any, n: int) -> Any:
    """atleast_1d / atleast_2d: leading dims of size 1 added."""
    return t if t.ndim >= n else t.reshape((1,) * (n - t.ndim) + tuple(t.shape))


def hstack(tensors: Any) -> Any:
    """cat along dim 1 (dim 0 for 1-d tensors)."""
    ts = [_at_least(t, 1) for t in tensors]
    return _cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Any:
    """cat along dim 0 of the tensors as at least 2-d (a 1-d tensor becomes a row)."""
    return _cat([_at_least(t, 2) for t in tensors], 0)


row_stack = vstack


def column_stack(tensors: Any) -> Any:
    """0-d and 1-d tensors become columns, then cat along dim 1."""
    return _cat([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors], 1)


def meshgrid(*tensors: Any, indexing: str = "ij") -> tuple:
    """Coordinate grids: with "ij", out[k] varies along dim k; "xy" swaps the first two dims."""
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)) else tensors
    if indexing not in ("ij", "xy"):
        raise ValueError(f'meshgrid: indexing must be "ij" or "xy", got {indexing!r}')
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid: expected 0-d or 1-d tensors, got {t.ndim} dims")
    ts = [t.reshape(-1) for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = [
        t.reshape([-1 if e == k else 1 for e in range(len(ts))]).expand(shape)
        for k, t in enumerate(ts)
    ]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# mg.* forms of the methods (PyTorch has both): mg.roll(x, 1) == x.roll(1)
def roll(x: Any, shifts: Any, dims: Any = None) -> Any:
    return x.roll(shifts, dims)


def index_select(x: Any, dim: int, index: Any) -> Any:
    return x.index_select(dim, index)


def movedim(x: Any, source: Any, destination: Any) -> Any:
    return x.movedim(source, destination)


moveaxis = movedim


def swapaxes(x: Any, axis0: int, axis1: int) -> Any:
    return x.swapaxes(axis0, axis1)


swapdims = swapaxes


def t(x: Any) -> Any:
    return x.t()


def broadcast_to(x: Any, size: Any) -> Any:
    return x.broadcast_to(size)


def tile(x: Any, dims: Any) -> Any:
    return x.tile(dims)


def repeat_interleave(x: Any, repeats: int, dim: Any = None, *, output_size: Any = None) -> Any:
    return x.repeat_interleave(repeats, dim)


def take_along_dim(x: Any, indices: Any, dim: Any = None) -> Any:
    return x.take_along_dim(indices, dim)


def scatter(x: Any, dim: int, index: Any, src: Any = None, *, value: Any = None) -> Any:
    return x.scatter(dim, index, src, value=value)


def scatter_add(x: Any, dim: int, index: Any, src: Any) -> Any:
    return x.scatter_add(dim, index, src)


def index_fill(x: Any, dim: int, index: Any, value: Any) -> Any:
    return x.index_fill(dim, index, value)


def index_copy(x: Any, dim: int, index: Any, source: Any) -> Any:
    return x.index_copy(dim, index, source)


def diag(x: Any, diagonal: int = 0) -> Any:
    return x.diag(diagonal)


def trace(x: Any) -> Any:
    return x.trace()


def outer(x: Any, vec2: Any) -> Any:
    return x.outer(vec2)


ger = outer


def addmm(x: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return x.addmm(mat1, mat2, beta=beta, alpha=alpha)


def baddbmm(x: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return x.baddbmm(batch1, batch2, beta=beta, alpha=alpha)
