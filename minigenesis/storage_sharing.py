"""Copying tensors the way PyTorch copies storages: views of one buffer stay views of one buffer.

A tensor's ``_data`` is a NumPy array that may be a view (a slice, a transpose, an ``expand``) of
a bigger array, its *root*: the array that owns the memory (``arr.base`` chain ends there). Two
tensors made by slicing one tensor share a root, so writing through one changes the other.

``copy.deepcopy([a, b])`` must keep that: PyTorch deep-copies the *storage* once (its ``memo``)
and rebuilds each view on the copy with the same offset, shape and strides. Copying each view on
its own would give two unrelated buffers: after ``b2[0] = 7`` the copy of ``a`` would not see it.

Here the root is copied once per ``deepcopy`` call (the copy is cached in the deepcopy ``memo``
under a key made from the root's ``id``), and every view is rebuilt on it:
``numpy.ndarray(shape, dtype, buffer=root_copy, offset=byte_offset, strides=strides)``, with
``byte_offset = address(view) - address(root)``. Strides (and so ``stride()`` and
``is_contiguous()``) come through unchanged, as in PyTorch. CuPy arrays keep their sharing the
same way, the views rebuilt with ``as_strided`` on the copied root.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .backend import get_array_module
from .meta_array import MetaArray


def _root(arr: np.ndarray) -> np.ndarray:
    """The array at the end of ``arr``'s ``.base`` chain: the one whose memory ``arr`` views."""
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root


def _address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def deepcopy_array(arr: Any, memo: dict) -> Any:
    """A copy of ``arr`` with its own memory, sharing it with every other view of the same root
    copied under the same ``memo`` (one ``copy.deepcopy`` call).

    CuPy arrays share the same way (``_deepcopy_device_array``). Other arrays (views of foreign
    buffers, or of non-contiguous roots) are copied on their own. A meta array has no data to
    copy: the copy of a meta tensor is a meta tensor (it stays on the meta device)."""
    if type(arr) is MetaArray:
        return arr
    if type(arr) is not np.ndarray:
        if get_array_module(arr) is not np:
            return _deepcopy_device_array(arr, memo)
        return get_copy(arr)
    root = _root(arr)
    if type(root) is not np.ndarray or not root.flags.c_contiguous:
        return np.array(arr, copy=True)
    key = ("minigenesis.storage", id(root))
    copied = memo.get(key)
    if copied is None:
        copied = memo[key] = root.copy()
        # Keep the root alive while memo lives, so its id is not reused by another array.
        memo.setdefault(id(memo), []).append(root)
    offset = _address(arr) - _address(root)
    out = np.ndarray(arr.shape, arr.dtype, buffer=copied, offset=offset, strides=arr.strides)
    if not arr.flags.writeable:  # a broadcast (expand) view stays read-only, as the original
        out.flags.writeable = False
    return out


def _device_address(arr: Any) -> int:
    return arr.__cuda_array_interface__["data"][0]


def _deepcopy_device_array(arr: Any, memo: dict) -> Any:
    """``deepcopy_array`` for a CuPy array: the root (end of the ``.base`` chain) copied once per
    memo, keyed by its device address (CuPy may hand out a new Python object for the same
    memory), and the view rebuilt on the copy with ``as_strided`` at the same element offset."""
    xp = get_array_module(arr)
    root = arr
    while isinstance(root.base, xp.ndarray):
        root = root.base
    if root.dtype != arr.dtype or not root.flags.c_contiguous:  # a dtype view: on its own
        return get_copy(arr)
    key = ("minigenesis.device_storage", _device_address(root))
    copied = memo.get(key)
    if copied is None:
        copied = memo[key] = root.copy()
        memo.setdefault(id(memo), []).append(root)  # its address is not reused while memo lives
    start = (_device_address(arr) - _device_address(root)) // arr.itemsize
    return xp.lib.stride_tricks.as_strided(copied.reshape(-1)[start:], arr.shape, arr.strides)


def get_copy(arr: Any) -> Any:
    """An independent copy of an array of any backend (``xp.array(arr, copy=True)``)."""
    return get_array_module(arr).array(arr, copy=True)


def user_attributes(t: Any) -> dict:
    """The attributes a user set on a tensor (``p.no_weight_decay = True``): its ``__dict__``
    without the autograd bookkeeping (``requires_grad``, ``grad_fn`` and the ``_private``
    entries). Pickling, ``copy.copy`` and ``copy.deepcopy`` of a tensor carry them, as PyTorch's."""
    return {
        k: v
        for k, v in t.__dict__.items()
        if not k.startswith("_") and k not in ("requires_grad", "grad_fn")
    }


def with_attributes(t: Any, reduction: tuple) -> tuple:
    """A tensor's pickle reduction ``(rebuild, args)`` with its user attributes added as the
    state (restored by pickle's BUILD), when it has any."""
    extra = user_attributes(t)
    return (*reduction, extra) if extra else reduction


def deepcopy_attributes(t: Any, out: Any, memo: dict) -> None:
    """Give ``out`` (the deep copy of tensor ``t``) deep copies of ``t``'s user attributes."""
    out.__dict__.update(copy.deepcopy(user_attributes(t), memo))
