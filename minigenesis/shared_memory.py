"""Tensors in shared memory, for ``mg.multiprocessing`` (Hogwild-style training).

``x.share_memory_()`` moves x's elements into a block of operating-system shared memory
(``multiprocessing.shared_memory``). Sent to another process through a multiprocessing queue or
as a ``Process`` argument, such a tensor arrives as a view of the *same* block, so an in-place
update in one process (an optimizer step) is seen by all: several workers train one model.

Only multiprocessing's pickler sends the block's name (``ForkingPickler.register``, done when
the first tensor of a class is shared); ``pickle`` and ``mg.save`` still write the values.
"""

from __future__ import annotations

import weakref
from multiprocessing.reduction import ForkingPickler
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np

from .autograd.tensor_base import TensorBase

_registered: set[type] = set()


def share(t: TensorBase) -> None:
    """Move ``t``'s elements into a new shared-memory block (freed when t is collected)."""
    array = t._data
    if not isinstance(array, np.ndarray):
        raise RuntimeError("share_memory_: only CPU tensors can be moved to shared memory")
    shm = SharedMemory(create=True, size=max(array.nbytes, 1))
    shared = np.ndarray(array.shape, dtype=array.dtype, buffer=shm.buf)
    shared[...] = array
    t._data, t._shm = shared, shm
    weakref.finalize(t, _release, shm, True)
    cls = type(t)
    if cls not in _registered:
        ForkingPickler.register(cls, _reduce)
        _registered.add(cls)


def is_shared(t: TensorBase) -> bool:
    return t.__dict__.get("_shm") is not None


def _release(shm: SharedMemory, owner: bool) -> None:
    """The creator removes the block's name (processes that mapped it keep their mapping)."""
    if owner:
        try:
            shm.unlink()
        except FileNotFoundError:  # already gone
            pass


def _reduce(t: TensorBase) -> tuple:
    """Multiprocessing's pickling of a tensor: the block's name when it is shared, else the
    ordinary reduction (the values)."""
    shm = t.__dict__.get("_shm")
    if shm is None:
        return t.__reduce_ex__(5)
    array = t._data
    return _attach, (type(t), shm.name, array.shape, array.dtype.str, t.requires_grad)


def _attach(cls: type, name: str, shape: tuple, dtype: str, requires_grad: bool) -> Any:
    """In the receiving process: a tensor of class ``cls`` over the named block."""
    # (the block stays registered with the resource tracker the processes share, which
    # removes it if the creator could not: a name registered twice is one entry)
    shm = SharedMemory(name=name)
    t = object.__new__(cls)
    t._data = np.ndarray(shape, dtype=np.dtype(dtype), buffer=shm.buf)
    t._shm = shm
    if requires_grad:
        t.requires_grad = True
    return t
