"""Indexing: ``x[index]`` (basic and advanced), its scatter-add gradient, masked_fill, index_put.

Basic indexing (ints, slices, None, Ellipsis) returns a view; advanced indexing (integer or boolean
arrays) gathers a copy, and the same element may be picked twice: its gradient must then be the
*sum* of both picks, which is why the backward scatters with ``add.at`` and not with assignment.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..backend import (
    cast_array,
    cupyx_module,
    defer_device_assert,
    get_array_module,
    quiet_fp,
    to_numpy,
)
from .elementwise import select_grad


def is_basic_index(index) -> bool:
    """True when ``index`` only has ints, slices, None and Ellipsis (so x[index] is a view)."""
    if hasattr(index, "dtype"):  # one array
        return False
    items = index if isinstance(index, tuple) else (index,)
    return all(
        i is None or i is Ellipsis or isinstance(i, (int, slice)) and not isinstance(i, bool)
        for i in items
    )


def split_index(index, ndim: int) -> tuple:
    """PyTorch's indexing as two NumPy steps: ``x[index] == x[basic][advanced]``.

    PyTorch applies ints (and 0-d integer tensors) as plain selections first; only tensors, lists
    and bools are advanced indices. NumPy counts an int next to an array as advanced too, so
    ``x[0, :, [1, 2]]`` on shape (2, 3, 4) is (2, 3) in NumPy but (3, 2) in PyTorch. Step one,
    ``basic``, has the ints, slices and Nones (a full slice where an array goes; Ellipsis spelled
    out); step two, ``advanced`` (None when there is no array), has full slices and the arrays,
    where NumPy's rule is PyTorch's: adjacent advanced indices keep their place, separated ones
    go to the front."""
    items = index if isinstance(index, tuple) else (index,)
    consumed = 0
    for i in items:
        if hasattr(i, "ndim") and i.ndim and i.dtype.kind == "b":
            consumed += i.ndim  # a mask covers as many dims as it has
        elif i is not None and i is not Ellipsis and not _is_bool(i):
            consumed += 1
    if consumed > ndim:
        raise IndexError(f"too many indices for a tensor of dimension {ndim}")
    basic, advanced, has_array = [], [], False
    for i in items:
        if i is Ellipsis:
            basic += [slice(None)] * (ndim - consumed)
            advanced += [slice(None)] * (ndim - consumed)
            consumed = ndim  # a second Ellipsis adds nothing (NumPy raises on it below)
        elif i is None or isinstance(i, slice):
            basic.append(i)
            advanced.append(slice(None))
        elif _is_bool(i):  # True/False: a new dim of size 1/0, an advanced index
            advanced.append(i)
            has_array = True
        elif hasattr(i, "ndim") and i.ndim:  # an index array: a mask covers i.ndim dims
            basic += [slice(None)] * (i.ndim if i.dtype.kind == "b" else 1)
            advanced.append(i)
            has_array = True
        else:  # an int, a NumPy integer or a 0-d integer array: a plain selection
            basic.append(i if isinstance(i, int) else int(i))
    basic.append(Ellipsis)  # keeps x[0] on a 1-D array a 0-d view (NumPy would copy a scalar)
    return tuple(basic), (tuple(advanced) if has_array else None)


def _rows_index(index, ndim: int) -> bool:
    """``index`` is one integer array on an array of ``ndim`` >= 1 dims (a batch drawn by
    ``X[ix]``, an embedding's ``C[X]``): whole rows picked, where NumPy's rule is PyTorch's and
    split_index has nothing to split."""
    return ndim > 0 and getattr(index, "ndim", 0) > 0 and index.dtype.kind in "iu"


def _is_bool(i) -> bool:
    return isinstance(i, bool) or (getattr(i, "ndim", None) == 0 and i.dtype.kind == "b")


def take(x, index):
    """x[index] with PyTorch's rules (see ``split_index``)."""
    if _rows_index(index, x.ndim):
        check_index_arrays((index,), x)
        y = x[index]
        return y if y.flags.c_contiguous else get_array_module(y).ascontiguousarray(y)
    basic, advanced = split_index(index, x.ndim)
    y = x[basic]
    if advanced is not None:
        check_index_arrays(advanced, y)
        # a fresh row-major tensor, as PyTorch's (NumPy lays an index on a later dim out
        # first, and x[:, idx].view(-1) would then fail)
        y = y[advanced]
        return y if y.flags.c_contiguous else get_array_module(y).ascontiguousarray(y)
    return y if is_basic_index(index) else y.copy()  # a tensor index gives a copy, as in PyTorch


def put(x, index, v) -> None:
    """x[index] = v with PyTorch's rules, in place."""
    if getattr(v, "dtype", x.dtype) != x.dtype:  # a float64 v into float16: through float32
        v = cast_array(v, x.dtype)
    try:
        _put(x, index, v)
    except ValueError as err:  # a value that does not broadcast: PyTorch's RuntimeError
        if "broadcast" not in str(err):
            raise
        raise RuntimeError(str(err)) from None


def _put(x, index, v) -> None:
    basic, advanced = split_index(index, x.ndim)
    if advanced is None:
        x[basic] = v
    else:
        # PyTorch drops a value's leading size-1 dims first (x[mask] = ones(1, k) fills k
        # places); NumPy refuses a 2-D value under a boolean mask
        while getattr(v, "ndim", 0) > 1 and v.shape[0] == 1:
            v = v[0]
        target = x[basic]  # a view of x: the write lands in x
        check_index_arrays(advanced, target)
        target[advanced] = v


class GetItem(Op):
    """y = x[index];   dL/dx = zeros with dL/dy scatter-added at ``index``."""

    @staticmethod
    def forward(ctx, x, index):
        ctx.in_shape, ctx.index = x.shape, index
        return take(x, index)

    @staticmethod
    def backward(ctx, gy):
        if not state.grad_enabled:  # nothing records: the scatter on arrays, not as an op
            return type(gy)._make(_scatter_add(gy._data, ctx.index, ctx.in_shape)), None
        return IndexAddGrad.apply(gy, ctx.index, ctx.in_shape), None


_ALL = (slice(None), Ellipsis)  # split_index's basic step when the index is one array


# Rows added at repeated indices. add.at adds one element at a time; sorting the M indices and
# summing each run of equal ones with one add.reduceat is ~3x faster from a few thousand numbers
# on (1024 rows of 128 into 65: 0.44 ms against 1.35; 16 x 32 rows of 64: 0.23 against 0.98),
# but its fixed cost (argsort, gather) loses on fewer (32 x 3 rows of 10: 40 us against 28).
# Below that, add.at runs over the flat positions of the elements: NumPy's loop for a 1-D index
# into a 1-D array is ~2x faster than its row-wise one (32 x 3 rows of 10: 13 us against 25),
# and makes the same additions in the same order, so the sums are the same to the bit.
def add_rows_at(out, flat, rows) -> None:
    """out[flat[k]] += rows[k] for each k, repeated indices adding up (out (num, D), flat (M,),
    rows (M, D)); negative indices count from the end, as in indexing."""
    xp = get_array_module(out)
    if xp.__name__ != "numpy":  # cupyx.scatter_add is CuPy's unbuffered add.at
        cupyx_module().scatter_add(out, flat, rows)
    elif rows.size < 2048 and out.flags.c_contiguous:  # (out.reshape(-1) is then a view)
        num, width = out.shape
        at = (flat.astype(xp.intp, copy=False) % max(num, 1))[:, None] * width + xp.arange(width)
        xp.add.at(out.reshape(-1), at.reshape(-1), rows.reshape(-1))
    elif rows.size < 2048:
        xp.add.at(out, flat, rows)
    elif flat.size:
        flat = flat % out.shape[0]  # (-1 and num - 1 are one row: one run after sorting)
        order = xp.argsort(flat, kind="stable")
        ordered = flat[order]
        starts = xp.flatnonzero(xp.concatenate(([True], ordered[1:] != ordered[:-1])))
        out[ordered[starts]] += xp.add.reduceat(rows[order], starts, axis=0)


def _scatter_add(g, index, shape):
    """zeros(shape) with g added at ``index`` (repeated indices accumulate), on arrays."""
    xp = get_array_module(g)
    out = xp.zeros(shape, dtype=g.dtype)
    if _rows_index(index, len(shape)):  # x[idx]: rows added at idx
        flat, width = index.reshape(-1), math.prod(shape[1:])
        add_rows_at(out.reshape(shape[0], width), flat, g.reshape(flat.size, width))
        return out
    basic, advanced = split_index(index, len(shape))
    if advanced is None:
        out[basic] = g
    elif basic == _ALL and len(advanced) == 1 and advanced[0].dtype.kind in "iu":  # x[(idx,)]
        flat, width = advanced[0].reshape(-1), math.prod(shape[1:])
        add_rows_at(out.reshape(shape[0], width), flat, g.reshape(flat.size, width))
    elif xp.__name__ == "numpy":
        xp.add.at(out[basic], advanced, g)  # out[basic] is a view: the sums land in out
    else:  # cupyx.scatter_add is CuPy's unbuffered add.at
        cupyx_module().scatter_add(out[basic], advanced, g)
    return out


class IndexAddGrad(Op):
    """x = zeros(shape); x[index] += g (repeated indices accumulate);
    its own gradient is g' = dL/dx[index]."""

    @staticmethod
    @quiet_fp
    def forward(ctx, g, index, shape):
        ctx.index = index
        return _scatter_add(g, index, shape)

    @staticmethod
    def backward(ctx, gx):
        return GetItem.apply(gx, ctx.index), None, None


class MaskedFill(Op):
    """y = where(mask, value, x);   dL/dx = dL/dy where the mask is False, else 0."""

    @staticmethod
    def forward(ctx, x, mask, value):
        xp = get_array_module(x)
        ctx.save_for_backward(xp.logical_not(mask))
        # the astype: CuPy's where widens two bfloat16 operands to float32
        return xp.where(mask, xp.asarray(value, dtype=x.dtype), x).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (keep,) = ctx.saved_tensors  # a selection, not gy * keep: see SelectGrad
        return select_grad(gy, keep._data), None, None


class IndexPut(Op):
    """y = x with y[index] = v (out of place; ``x[index] = v`` is built on it);
    dL/dx = dL/dy with zeros at ``index``;   dL/dv = dL/dy[index] (summed back to v's shape)."""

    @staticmethod
    def forward(ctx, x, index, v):
        ctx.index, ctx.v_ndim = index, getattr(v, "ndim", 0)
        out = x.copy()
        put(out, index, v)
        return out

    @staticmethod
    def backward(ctx, gy):
        need_x = ctx.needs_input_grad[0]
        need_v = ctx.needs_input_grad[2]
        gx = IndexPut.apply(gy, ctx.index, 0.0) if need_x else None
        gv = GetItem.apply(gy, ctx.index) if need_v else None
        if gv is not None and gv.ndim < ctx.v_ndim:  # v had leading 1s (a [[5.]] put in one slot)
            gv = gv.reshape((1,) * (ctx.v_ndim - gv.ndim) + tuple(gv.shape))
        return gx, None, gv


def check_index_range(
    index, size: int, name: str, what: str = "index", hint: str = "", error: type = IndexError
) -> None:
    """Refuse indices outside [0, ``size``) with ``error`` (PyTorch's type), naming the op, value
    and range. One max of the indices read as unsigned (a negative one is huge); on a GPU the
    verdict waits on the device for the next host read (``backend.defer_device_assert``)."""
    if index.size == 0:
        return
    if type(index) is not np.ndarray and index.dtype.kind in "iu":
        return _defer_range_check(index, size, name, what, hint, error)
    kind = index.dtype.kind
    unsigned = index.view(f"uint{index.dtype.itemsize * 8}") if kind == "i" else index
    if kind not in "iub" or int(to_numpy(unsigned.max())) >= size:
        _refuse_out_of_range(index, size, name, what, hint, error)


def _refuse_out_of_range(index, size: int, name: str, what: str, hint: str, error: type) -> None:
    """The second look: the smallest and largest index, and the error naming the bad one."""
    xp = get_array_module(index)
    lo, hi = to_numpy(xp.stack([index.min(), index.max()])).tolist()
    _judge_range([lo, hi], size, name, what, hint, error)


def _judge_range(lo_hi: list, size: int, name: str, what: str, hint: str, error: type) -> None:
    lo, hi = lo_hi
    if lo < 0 or hi >= size:
        bad = lo if lo < 0 else hi
        raise error(f"{name}: {what} {bad} is out of bounds: expected values in [0, {size}){hint}")


def _defer_range_check(index, size: int, name: str, what: str, hint: str, error: type) -> None:
    """check_index_range on a GPU: the smallest and largest index, judged at the next host read."""
    xp = get_array_module(index)
    lo_hi = xp.stack([index.min(), index.max()]).astype(np.int64)
    judge = functools.partial(_judge_range, size=size, name=name, what=what, hint=hint, error=error)
    defer_device_assert(lo_hi, judge)


def check_index_arrays(advanced, x) -> None:
    """On a GPU, refuse integer index arrays outside [-n, n) for the dims of ``x`` they index
    (n each dim's size), with PyTorch's IndexError naming the first bad value. NumPy raises this
    itself (the CPU path costs nothing), but CuPy wraps an out-of-range index around (i % n)
    unchecked: x[idx] would read, and x[idx] = v write, another element. As PyTorch CUDA's
    device-side assert, the error comes at the next host read (``backend.defer_device_assert``):
    per array, whether any value is bad and the first bad one, computed on the device.
    ``advanced`` is a tuple of index items (slices, masks, bools and integer arrays)."""
    if isinstance(x, np.ndarray):
        return
    arrays = [i for i in advanced if getattr(i, "ndim", 0) and i.dtype.kind in "iu" and i.size]
    if not arrays:
        return
    shape, dim = x.shape, 0
    for i in advanced:
        if any(i is a for a in arrays):
            xp, flat, n = (
                get_array_module(i),
                i.reshape(-1).astype(np.int64, copy=False),
                shape[dim],
            )
            bad = (flat < -n) | (flat >= n)
            first = xp.take(flat, bad.argmax())  # the first bad value (any value if none is)
            verdict = xp.stack([bad.any().astype(np.int64), first])
            judge = functools.partial(_judge_array, dim=dim, size=n)
            if xp is np:  # a host index (a list) on a GPU array: judged now, nothing to wait for
                judge(verdict.tolist())
            else:
                defer_device_assert(verdict, judge)
        dim += 0 if _is_bool(i) else i.ndim if hasattr(i, "dtype") and i.dtype.kind == "b" else 1


def _judge_array(any_bad_first: list, dim: int, size: int) -> None:
    any_bad, first = any_bad_first
    if any_bad:
        raise IndexError(f"index {first} is out of bounds for dimension {dim} with size {size}")


def check_index_dtype(index, allowed: tuple[str, ...], name: str, what: str = "indices") -> None:
    """Refuse an index tensor whose dtype is not one of ``allowed`` (NumPy dtype names), with
    PyTorch's exception type (RuntimeError)."""
    if index._data.dtype.name not in allowed:
        names = " or ".join(allowed)
        raise RuntimeError(
            f"{name}: {what} must be a tensor of dtype {names}, got {index.dtype.name}"
        )


def index_array(a):
    """A tensor used as an index, by PyTorch's rules: int64 and int32 tensors pick positions,
    bool tensors are masks, a uint8 tensor is an (old-style, deprecated) mask, and any integer
    0-d tensor is a plain int. A floating-point tensor is refused, even when it holds whole
    numbers: x[mg.tensor(1.1)] must not quietly mean x[1]."""
    kind = a.dtype.kind
    if a.dtype == np.uint8:
        warnings.warn(
            "indexing with dtype minigenesis.uint8 is now deprecated, please use a dtype "
            "minigenesis.bool instead.",
            UserWarning,
            stacklevel=4,
        )
        return a.astype(bool)
    if kind == "b" or a.dtype in (np.int64, np.int32) or (kind == "i" and a.ndim == 0):
        return a
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
