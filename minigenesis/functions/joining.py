"""Tensors built from several tensors: ``mg.cat``, ``mg.stack``, ``hstack`` / ``vstack`` /
``dstack`` / ``column_stack``, ``atleast_1d/2d/3d``, ``mg.meshgrid``, ``cartesian_prod``,
``combinations``, ``block_diag`` and ``vander``. These take several tensors (or make a new one), so
they are functions only, with no Tensor method."""

from __future__ import annotations

import builtins
import itertools
import math
from typing import Any

import numpy as np

from .. import creation as _creation
from .. import dtypes as _dt
from .._tensor import Tensor
from ..backend import get_array_module
from ..ops import shape as S
from ..promotion import result_type
from ..size import norm_dim
from ._common import _t, _with_out


@_with_out
def cat(tensors: Any, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim (all other dims must match)."""
    tensors = [_t(t) for t in tensors]
    if not tensors:
        raise ValueError("cat() needs at least one tensor")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"cat: tensor {i} is 0-d and cannot be concatenated (use stack)")
    target = tensors[0].dtype
    for t in tensors[1:]:
        target = _dt.promote_types(target, t.dtype)
    # PyTorch's legacy rule: 1-D empty tensors are skipped in the shape check (they still take
    # part in the dtype, and in autograd: one that requires grad makes the result require grad
    # and gets a (0,) gradient). So each is reshaped to the others' shape with 0 along dim.
    kept = [t for t in tensors if t.shape != (0,)]
    if kept and len(kept) < len(tensors):
        d = norm_dim(dim, kept[0].ndim)[0]
        empty = list(kept[0].shape)
        empty[d] = 0
        tensors = [t.reshape(empty) if t.shape == (0,) else t for t in tensors]
    d = norm_dim(dim, tensors[0].ndim)[0]
    ref = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.ndim != len(ref) or builtins.any(
            a != b for k, (a, b) in enumerate(zip(t.shape, ref)) if k != d
        ):
            raise RuntimeError(  # PyTorch's type for a shape mismatch (its ValueError: no list)
                f"cat: tensor {i} has shape {t.shape}, which does not match {ref} outside dim {d}"
            )
    tensors = [t._cast(target.numpy_dtype) for t in tensors]
    return S.Cat.apply(d, *tensors)


concat = cat


concatenate = cat


@_with_out
def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Join same-shape tensors along a new dim."""
    tensors = [_t(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack() needs at least one tensor")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack: tensor {i} has shape {t.shape}, tensor 0 has {tensors[0].shape}"
            )
    n = tensors[0].ndim
    if not -(n + 1) <= dim <= n:
        raise IndexError(
            f"stack: dim {dim} is out of range for tensors with {n} dims (the new dim goes in "
            f"[{-(n + 1)}, {n}])"
        )
    d = dim % (n + 1)
    dtype = tensors[0].dtype
    if builtins.all(t.dtype == dtype for t in tensors):  # else cat promotes them
        return S.Stack.apply(d, *tensors)
    return cat([t.unsqueeze(d) for t in tensors], dim=d)


def _at_least(t: Any, n: int) -> Any:
    """atleast_1d / atleast_2d: leading dims of size 1 added."""
    return t if t.ndim >= n else t.reshape((1,) * (n - t.ndim) + tuple(t.shape))


def _non_empty(tensors: Any, name: str) -> list:
    """The tensors as a list, refusing none at all with PyTorch's RuntimeError."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors: Any) -> Any:
    """cat along dim 1 (dim 0 for 1-d tensors)."""
    ts = [_at_least(t, 1) for t in _non_empty(tensors, "hstack")]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Any:
    """cat along dim 0 of the tensors as at least 2-d (a 1-d tensor becomes a row)."""
    return cat([_at_least(t, 2) for t in _non_empty(tensors, "vstack")], 0)


row_stack = vstack


def column_stack(tensors: Any) -> Any:
    """0-d and 1-d tensors become columns, then cat along dim 1."""
    ts = _non_empty(tensors, "column_stack")
    return cat([t.reshape(-1, 1) if t.ndim <= 1 else t for t in ts], 1)


def _tensors_arg(tensors: tuple) -> tuple:
    """f(a, b) and f([a, b]) alike."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        return tuple(tensors[0])
    return tensors


def _atleast(n: int, tensors: tuple) -> Any:
    one = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    out = tuple(_at_least_nd(_t(t), n) for t in _tensors_arg(tensors))
    return out[0] if one else out


def _at_least_nd(t: Tensor, n: int) -> Tensor:
    if n < 3 or t.ndim >= 3:
        return _at_least(t, n)
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.reshape(1, -1, 1)
    return t.unsqueeze(-1)  # (m, n) -> (m, n, 1)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 dim (a 0-d tensor becomes shape (1,))."""
    return _atleast(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dims (leading 1s added)."""
    return _atleast(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dims: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _atleast(3, tensors)


def dstack(tensors: Any) -> Tensor:
    """cat along dim 2 (depth) of the tensors made at least 3-d."""
    return cat([_at_least_nd(_t(t), 3) for t in _non_empty(tensors, "dstack")], 2)


def meshgrid(*tensors: Any, indexing: str = "ij") -> tuple:
    """Coordinate grids: with "ij", out[k] varies along dim k; "xy" swaps the first two dims."""
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)) else tensors
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'meshgrid: indexing must be "ij" or "xy", got {indexing!r}')
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid: expected 0-d or 1-d tensors, got {t.ndim} dims")
    if len({t.dtype for t in ts}) > 1:  # PyTorch does not promote the grids
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
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


def cartesian_prod(*tensors: Any) -> Tensor:
    """Every combination of one element from each 1-D tensor, one per row (the rows of
    itertools.product); a single tensor is returned as it is."""
    ts = [_t(t) for t in tensors]
    for i, t in enumerate(ts):
        if t.ndim != 1:
            raise RuntimeError(
                f"cartesian_prod: expect a 1D vector, but got tensor {i} with {t.ndim} dims"
            )
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:  # noqa: A002
    """The length-r combinations of the elements of a 1-D tensor, one per row, in the order of
    itertools.combinations (or combinations_with_replacement)."""
    if input.ndim != 1:
        raise RuntimeError(f"combinations: Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"combinations: Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(get_array_module(input._data).zeros((0,), input._data.dtype), False)
    n = input.shape[0]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    # The rows go straight into an array of their known number: its allocation fails at once
    # (MemoryError naming the size) for a count no memory holds, where a list of tuples first
    # grew for minutes, at ~10x the array's size, until the machine ran out of memory.
    combos = np.fromiter(pick(range(n), r), dtype=np.dtype((np.int64, r)), count=count)
    if combos.shape[0] == 0:  # r > n: no combination, shape (0, r)
        return Tensor._make(get_array_module(input._data).zeros((0, r), input._data.dtype), False)
    xp = get_array_module(input._data)
    return input[Tensor._make(xp.asarray(combos), False)]


def block_diag(*tensors: Any) -> Tensor:
    """The tensors (0-, 1- or 2-d) down the diagonal of one matrix, zeros elsewhere."""
    mats, given = [], []
    for i, t in enumerate(tensors):
        t = _t(t)
        given.append(t)
        if t.ndim > 2:
            raise RuntimeError(
                f"block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                f"{t.ndim} dimensions"
            )
        mats.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not mats:
        return _creation.zeros(1, 0)
    dt = result_type(*given)  # (a 0-d tensor counts only by its category, as in PyTorch)
    width = builtins.sum(m.shape[1] for m in mats)
    xp = get_array_module(mats[0]._data)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        pad_l = Tensor._make(xp.zeros((r, left), dt.numpy_dtype), False)
        pad_r = Tensor._make(xp.zeros((r, width - left - c), dt.numpy_dtype), False)
        rows.append(S.Cat.apply(1, pad_l, m._cast(dt.numpy_dtype), pad_r))
        left += c
    return S.Cat.apply(0, *rows)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix: column j holds x^(N-1-j) (x^j with ``increasing``), built as a
    cumulative product of [1, x, x, ...], so x = 0 has a finite gradient."""
    if x.ndim != 1:
        raise RuntimeError(f"vander: x must be a one-dimensional tensor, got {x.ndim} dims")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError(f"vander: N must be non-negative, got {n}")
    xv = x if x._data.dtype.kind != "b" else x.long()
    if xv._data.dtype.kind in "iu":
        xv = xv.long()
    if n == 0:
        return Tensor._make(get_array_module(x._data).zeros((x.shape[0], 0), xv._data.dtype), False)
    ones = Tensor._make(get_array_module(x._data).ones((x.shape[0], 1), xv._data.dtype), False)
    cols = S.Cat.apply(1, ones, xv.unsqueeze(1).expand(x.shape[0], n - 1)) if n > 1 else ones
    out = cols.cumprod(1)
    return out if increasing else out.flip(1)
