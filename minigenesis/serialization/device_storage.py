"""GPU tensors that view one storage stay views of one storage through ``save`` and ``load``.

PyTorch saves a *storage* once however many tensors view it, and loads every view on the one
restored storage, on the device ``map_location`` names. Here a CuPy array plays the storage's
part when it owns its memory (the end of its ``.base`` chain, the *root*); a tensor made by
slicing, transposing or viewing another is an array whose ``.base`` leads to that root.

Saving (``HostRoots``): the root of a GPU tensor is copied to the host once per ``save`` (one
transfer per storage, not per view), and each tensor is pickled as a NumPy view of that host copy
with the same byte offset and strides; the pickler then stores the root once and every tensor as
``_rebuild_view`` of it (``pickling.py``), exactly as for CPU views.

Loading (``DeviceStorages``): the loaded arrays of views of one storage view one host buffer.
Moving each tensor to the GPU on its own would give every view a private copy; instead the
buffer is copied to the device once per load and target (typed as the first tensor that views
it), and each tensor becomes the device view at its byte offset ``o`` with its strides ``s``:
elements at bytes ``o + sum_k i_k * s_k``, all inside the buffer (checked again here, as
``_rebuild_view`` checks them on the host).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import device, get_array_module, to_device, to_numpy
from .format import CheckpointError


def _device_address(arr: Any) -> int:
    return arr.__cuda_array_interface__["data"][0]


def _host_address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


class HostRoots:
    """One ``save``'s host copies of GPU storages, keyed by the root's device address."""

    def __init__(self) -> None:
        self._copies: dict[int, tuple[Any, np.ndarray]] = {}  # address -> (device root, host copy)

    def host_view(self, arr: Any) -> np.ndarray:
        """``arr`` (a CuPy array) as a NumPy view of its root's host copy: same dtype, shape,
        strides and byte offset. A root that is not contiguous is not a plain storage: such an
        array is copied on its own."""
        xp = get_array_module(arr)
        root = arr
        while isinstance(root.base, xp.ndarray):
            root = root.base
        if not root.flags.c_contiguous:
            return to_numpy(arr)
        key = _device_address(root)
        if key not in self._copies:  # keeping the root alive keeps its address unique
            self._copies[key] = (root, to_numpy(root).reshape(-1))
        host = self._copies[key][1]
        if root is arr:
            return host.reshape(arr.shape)
        offset = _device_address(arr) - key
        return np.ndarray(arr.shape, arr.dtype, buffer=host, offset=offset, strides=arr.strides)


class DeviceStorages:
    """One ``load``'s device copies of the loaded host buffers, one per (buffer, device)."""

    def __init__(self) -> None:
        self.buffer_ids: frozenset[int] = frozenset()  # the file's out-of-band buffers
        self._copies: dict[tuple[int, str], tuple[np.ndarray, Any]] = {}

    def _storage(self, arr: np.ndarray) -> np.ndarray:
        """The host array that holds ``arr``'s memory: the file buffer it lies in, or else the
        end of its ``.base`` chain."""
        s = arr
        while id(s) not in self.buffer_ids and isinstance(s.base, np.ndarray):
            s = s.base
        return s

    def to_device(self, arr: np.ndarray, target: device) -> Any:
        """``arr`` moved to the GPU ``target`` as a view of its storage's one device copy."""
        itemsize = arr.dtype.itemsize
        storage = self._storage(arr)
        if (
            arr.size == 0
            or storage is arr
            or not storage.flags.c_contiguous
            or any(s % itemsize for s in arr.strides)
        ):
            return to_device(arr, target)  # a storage of its own (or nothing to share)
        offset = _host_address(arr) - _host_address(storage)
        low = offset + sum(s * (n - 1) for s, n in zip(arr.strides, arr.shape) if s < 0)
        high = offset + sum(s * (n - 1) for s, n in zip(arr.strides, arr.shape) if s > 0)
        high += itemsize
        if low < 0 or high > storage.nbytes or offset % itemsize:
            raise CheckpointError(
                f"a tensor's bytes {low}..{high} lie outside its {storage.nbytes}-byte storage"
            )
        key = (id(storage), str(target))
        if key not in self._copies:  # keeping the storage alive keeps its id unique
            flat = storage.reshape(-1).view(np.uint8)
            if flat.size % itemsize == 0:  # typed as its first tensor, as deepcopy expects
                flat = flat.view(arr.dtype)
            self._copies[key] = (storage, to_device(flat, target))
        copy = self._copies[key][1]
        if copy.dtype == arr.dtype:
            typed, start = copy, offset // itemsize
        else:  # a dtype view: its own dtype over the bytes it spans
            typed = copy.view(np.uint8)[low:high].view(arr.dtype)  # (high - low) % itemsize == 0
            start = (offset - low) // itemsize
        xp = get_array_module(copy)
        return xp.lib.stride_tricks.as_strided(typed[start:], arr.shape, arr.strides)
