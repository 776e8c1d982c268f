"""PyTorch's error for an op whose tensors lie on two devices, told apart from CuPy's own.

CuPy refuses to mix a host (NumPy) array into a device kernel with a ``TypeError``
("Unsupported type <class 'numpy.ndarray'>"), which says nothing about the tensors; PyTorch
raises ``RuntimeError: Expected all tensors to be on the same device, but found at least two
devices, cuda:0 and cpu!``. ``Op.apply`` calls ``raise_if_devices_differ`` only when an op has
already failed with a ``TypeError``, so a correct call pays nothing for the check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import device_of, get_array_module
from .tensor_base import TensorBase


def _arrays(args: Any) -> list:
    """The arrays among an op's arguments: tensors' arrays, raw arrays, inside lists and tuples."""
    found = []
    for a in args:
        if isinstance(a, TensorBase):
            found.append(a._data)
        elif isinstance(a, (list, tuple)):
            found.extend(_arrays(a))
        elif isinstance(a, np.ndarray) or get_array_module(a) is not np:
            found.append(a)
    return found


def raise_if_devices_differ(args: tuple, error: TypeError) -> None:
    """Raise PyTorch's RuntimeError, naming both devices, when ``args`` hold arrays (0-d ones
    aside: PyTorch moves a 0-d CPU tensor to the other's device) on two devices; else re-raise
    ``error``, which has another cause."""
    devices = [device_of(x) for x in _arrays(args) if getattr(x, "ndim", 0) > 0]
    for other in devices[1:]:
        if other != devices[0]:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two devices, "
                f"{devices[0]} and {other}!"
            ) from error
    raise error
