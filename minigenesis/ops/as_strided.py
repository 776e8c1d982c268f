"""``as_strided``: a view of a tensor's storage with any sizes and strides,

    y[i_0, ..., i_{m-1}] = storage[offset + sum_k i_k * stride_k],

where ``storage`` is the memory block behind the tensor and all its views (PyTorch's storage:
offsets count from its start, so ``x[1:].as_strided(s, t, 0)`` reads from x's first element;
the offset defaults to the tensor's own). Elements may be read more than once (a stride of 0,
or overlapping windows), so the gradient adds: dL/dstorage[j] = the sum of dL/dy over every
position of y that reads j (an index_add of dL/dy at those positions); the input's gradient
then reads that buffer at the input's own positions, divided by how many of them share a
place (an expanded input), as PyTorch's as_strided backward does.
"""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module


def strided_positions(xp, size: tuple, stride: tuple, offset: int):
    """The flat index each element of the view reads: offset + sum_k i_k stride_k (int64)."""
    positions = xp.full(size, offset, dtype="int64")
    for k, (n, s) in enumerate(zip(size, stride)):
        along = [n if j == k else 1 for j in range(len(size))]
        positions = positions + xp.arange(n, dtype="int64").reshape(along) * s
    return positions


def check_geometry(numel: int, itemsize: int, size: tuple, stride: tuple, offset: int) -> None:
    """PyTorch's checks: one stride per size, none negative, and every element inside memory."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if any(n < 0 for n in size) or offset < 0:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides="
            f"{list(stride)}"
        )
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > numel:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of "
            f"bounds for storage of size {numel * itemsize}"
        )


def _extent(offset: int, size: tuple, stride: tuple) -> tuple:
    """[first, last + 1] of the storage places a view (size, stride, offset) reads."""
    if 0 in size:
        return offset, offset
    return offset, offset + 1 + sum((n - 1) * abs(s) for n, s in zip(size, stride))


def check_inside_sample(own: tuple, size: tuple, stride: tuple, offset: int) -> None:
    """Inside vmap, PyTorch's check that ``tensor.as_strided(size, stride, offset)`` reads only
    memory of the sample ``tensor`` (``own``: its offset, shape and strides, all counted from
    the sample's start): each sample's view would otherwise read its neighbours' numbers."""
    lo, hi = _extent(offset, size, stride)
    own_lo, own_hi = _extent(*own)
    if lo < hi and not own_lo <= lo <= hi <= own_hi:
        raise RuntimeError(
            f"result = tensor.as_strided({list(size)}, {list(stride)}, {offset}) can access "
            f"memory outside of `tensor`. `result` can access some memory in range [{lo}, {hi}], "
            f"but `tensor` can only access some memory in range [{own_lo}, {own_hi}]. This is "
            "not supported inside of vmap, please try to rewrite the `as_strided` call as a "
            "sequence of PyTorch view operations"
        )


def storage_owner(arr):
    """The array that owns ``arr``'s memory: its views' ``.base`` chain, followed to its end.
    NumPy's stride tricks (as_strided, unfold, diagonal) put a holder object between a view and
    its base; the holder's own ``.base`` is the array, so the chain goes on through it."""
    while True:
        base = getattr(arr, "base", None)
        if not isinstance(base, type(arr)):  # a stride-tricks holder, or the end of the chain
            base = getattr(base, "base", None)
        if not isinstance(base, type(arr)):
            return arr
        arr = base


def _address(arr) -> int:
    if hasattr(arr, "__array_interface__"):
        return int(arr.__array_interface__["data"][0])
    return int(arr.__cuda_array_interface__["data"][0])


def storage_geometry(x):
    """(storage, offset, strides) of the array ``x``: the flat owner of its memory, where x's
    first element lies in it and x's strides, both counted in elements; None when the owner is
    not one row-major block that x's elements tile (then there is no storage of them to index).
    An owner of another dtype (x made by ``Tensor.view(dtype)``) is read as x's dtype."""
    owner = storage_owner(x)
    if not owner.flags.c_contiguous:
        return None
    item = x.itemsize
    start = _address(x) - _address(owner) if x.size else 0  # in bytes
    if owner.nbytes % item or start % item:
        return None
    storage = owner.reshape(-1)
    if storage.dtype != x.dtype:
        storage = storage.view(x.dtype)
    return storage, start // item, tuple(s // item for s in x.strides)


def elements_read(x, size: tuple, stride: tuple, offset: int):
    """For each element of the view (size, stride, offset) over x's storage, the row-major
    index in x of the element it reads (an int64 array shaped ``size``); None when the view
    reads a place of the storage that is not one of x's elements."""
    xp = get_array_module(x)
    storage, x_offset, x_strides = storage_geometry(x)
    own = strided_positions(xp, x.shape, x_strides, x_offset).reshape(-1)
    index_of = xp.full(storage.size, -1, dtype="int64")
    index_of[own] = xp.arange(own.size, dtype="int64")
    read = index_of[strided_positions(xp, size, stride, offset)]
    return None if (read < 0).any() else read


class AsStrided(Op):
    """y = the storage seen with ``size`` and ``stride`` from ``offset`` (a view); dL/dx: dL/dy
    added into a storage-sized buffer at the positions y reads, read back at x's positions."""

    @staticmethod
    def forward(ctx, x, size, stride, offset):
        xp = get_array_module(x)
        storage, x_offset, x_strides = storage_geometry(x)
        ctx.args = (x.shape, x_strides, x_offset, storage.size, size, stride, offset)
        item = x.itemsize
        return xp.lib.stride_tricks.as_strided(
            storage[offset:], size, tuple(s * item for s in stride)
        )

    @staticmethod
    def backward(ctx, gy):
        shape, x_strides, x_offset, numel, size, stride, offset = ctx.args
        xp = get_array_module(gy._data)
        make = gy._make
        read = make(strided_positions(xp, size, stride, offset).reshape(-1), False)
        buffer = make(xp.zeros(numel, gy._data.dtype), False).index_add(0, read, gy.reshape(-1))
        own = strided_positions(xp, shape, x_strides, x_offset).reshape(-1)
        gx = buffer.take(make(own, False))
        sharing = xp.bincount(own, minlength=numel)[own]  # > 1 where x itself overlaps
        if (sharing > 1).any():
            gx = gx / make(sharing.astype(gy._data.dtype), False)
        return gx.reshape(shape), None, None, None
