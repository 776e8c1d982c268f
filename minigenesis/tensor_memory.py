"""Tensor methods about memory: layouts (``contiguous``, ``clone`` and ``is_contiguous`` with a
``memory_format``), addresses (``data_ptr``, ``untyped_storage``, ``storage``), the NumPy
array behind a tensor (``numpy``) and the element-by-element Python maps ``apply_`` and
``map_``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd.grad_mode import state
from .autograd.tensor_base import TensorBase
from .autograd.vmap_samples import refuse_data
from .backend import device_of, get_array_module, to_numpy
from .memory_format import (
    check_format,
    contiguous_format,
    is_contiguous_as,
    memory_format,
    preserve_format,
    suggest_format,
)
from .meta_array import no_numpy_message
from .ops import shape as S
from .ops.as_strided import storage_owner
from .ops.layout import ToMemoryFormat


def _address(arr: Any) -> int:
    """The address of an array's first element (NumPy's data pointer, CuPy's device pointer)."""
    if isinstance(arr, np.ndarray):
        return int(arr.__array_interface__["data"][0])
    return int(arr.__cuda_array_interface__["data"][0])


class UntypedStorage:
    """The block of memory behind a tensor, in bytes (PyTorch's ``torch.UntypedStorage``):
    every view of a tensor has the same storage, starting at the same address."""

    def __init__(self, owner: Any) -> None:
        self._owner = owner  # the array that owns the memory

    def data_ptr(self) -> int:
        """The address of the first byte (0 for an empty storage, as PyTorch)."""
        return _address(self._owner) if self._owner.nbytes else 0

    def nbytes(self) -> int:
        return int(self._owner.nbytes)

    def size(self) -> int:
        """The number of bytes (an untyped storage's elements are bytes)."""
        return self.nbytes()

    __len__ = size

    def element_size(self) -> int:
        return 1

    @property
    def device(self):
        return device_of(self._owner)

    def __repr__(self) -> str:
        return f"UntypedStorage(nbytes={self.nbytes()}, device={self.device})"


class TypedStorage(UntypedStorage):
    """The storage seen as elements of the tensor's dtype (``x.storage()``, deprecated in
    PyTorch in favour of ``untyped_storage()``)."""

    def __init__(self, owner: Any, dtype: _dt.DType) -> None:
        super().__init__(owner)
        self.dtype = dtype

    def element_size(self) -> int:
        return self.dtype.itemsize

    def size(self) -> int:
        """The number of elements of ``dtype`` the memory holds."""
        return self.nbytes() // self.element_size()

    __len__ = size

    def __repr__(self) -> str:
        return f"TypedStorage(size={self.size()}, dtype={self.dtype}, device={self.device})"


class TensorMemory:
    """Mixin of Tensor: memory formats, addresses, storages, and apply_/map_."""

    __slots__ = ()

    _data: Any

    # ------------------------------------------------------------------ memory formats
    def is_contiguous(self, *, memory_format: memory_format = contiguous_format) -> bool:
        """True when the elements lie in memory in the order of ``memory_format``: row-major by
        default (so .view() needs no copy), NHWC for ``channels_last``. Dims of size 1 do not
        count; a tensor of another rank than the format's is not contiguous in it."""
        fmt = check_format(memory_format, "is_contiguous")
        if fmt in (contiguous_format, preserve_format):  # preserve: the row-major test, as PyTorch
            return bool(self._data.flags.c_contiguous)
        return is_contiguous_as(self._data, fmt)

    def contiguous(self, *, memory_format: memory_format = contiguous_format):
        """Self when already laid out in ``memory_format``, else a copy that is (differentiable;
        ``preserve_format`` is refused, as PyTorch refuses it)."""
        fmt = check_format(memory_format, "contiguous")
        if fmt is preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        if fmt is contiguous_format:
            return self if self._data.flags.c_contiguous else S.Contiguous.apply(self)
        return self if is_contiguous_as(self._data, fmt) else ToMemoryFormat.apply(self, fmt)

    def clone(self, *, memory_format: memory_format = preserve_format):
        """A copy with its own memory: with self's layout (``preserve_format``: a transposed or
        channels_last tensor stays so), or laid out in ``memory_format``. Differentiable."""
        fmt = check_format(memory_format, "clone")
        if fmt is preserve_format:
            return S.Clone.apply(self)
        return ToMemoryFormat.apply(self, fmt)

    def _to_memory_format(self, fmt: memory_format):
        """``to(memory_format=fmt)``: self for ``preserve_format`` or when self's strides
        already suggest ``fmt`` (PyTorch's test, not ``is_contiguous``: a transposed matrix is
        kept as it is, a (N, 1, H, W) contiguous tensor is copied to channels_last strides),
        else a copy laid out in ``fmt``."""
        fmt = check_format(fmt, "to")
        if fmt is preserve_format or suggest_format(self._data) is fmt:
            return self
        return ToMemoryFormat.apply(self, fmt)

    # ------------------------------------------------------------------ the NumPy array
    def tolist(self) -> Any:
        """The elements as (nested lists of) Python numbers, read on the host."""
        refuse_data(self, "tolist()")  # one sample of a batched tensor inside vmap
        host = to_numpy(self._data)
        if host.dtype.kind == "V":  # bfloat16: lists of Python floats
            host = host.astype(np.float32)
        return host.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array itself (shared memory) for a CPU tensor. Refused for a tensor that
        requires grad only while grad mode is on (as PyTorch: under no_grad, and so inside an
        autograd.Function's forward, the array may be read). ``force=True`` is
        ``t.detach().cpu().numpy()``: any tensor but a meta one, a GPU tensor copied to the host."""
        refuse_data(self, "numpy()")  # one sample of a batched tensor inside vmap
        if force and self.device.type != "meta":
            return to_numpy(self._data)
        if self.requires_grad and state.grad_enabled:
            raise RuntimeError(
                "can't call numpy() on a tensor that requires grad: use tensor.detach().numpy()"
            )
        if not isinstance(self._data, np.ndarray) or self.device.type == "meta":
            raise TypeError(no_numpy_message(self.device.type))
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """NumPy's conversion protocol (``np.asarray(t)``, ``np.array(t, dtype=...)``): the
        tensor's own array, as ``numpy()`` gives it (refused for a tensor that requires grad),
        copied when NumPy asks for a copy (``np.array(t)`` must not share memory with ``t``) or
        a dtype conversion needs one; ``copy=False`` with a needed copy is NumPy's ValueError."""
        if not isinstance(self._data, np.ndarray) or self.device.type == "meta":
            raise TypeError(no_numpy_message(self.device.type))
        data = self.numpy()
        converts = dtype is not None and np.dtype(dtype) != data.dtype
        if copy is False and converts:
            raise ValueError(f"Unable to avoid copy while converting {data.dtype} to {dtype}")
        if converts:
            return data.astype(dtype)
        return data.copy() if copy else data

    def __contains__(self, element: Any) -> bool:
        """``element in t``, as PyTorch: whether ``element == t`` holds anywhere, compared
        elementwise with broadcasting (``2 in t`` for a 2-d ``t``, ``row in t`` for a row of
        it); not Python's row-by-row iteration, which is ambiguous for a 2-d tensor."""
        if not isinstance(element, TensorBase | int | float | bool | np.generic):
            raise RuntimeError(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        return bool((element == self).any().item())

    # ------------------------------------------------------------------ addresses
    def data_ptr(self) -> int:
        """The address of the first element: equal for a tensor and its views that start at the
        same element, ``offset * element_size()`` apart for a slice (0 for an empty tensor)."""
        return _address(self._data) if self._data.size else 0

    def storage_offset(self) -> int:
        """How many elements past the start of its storage this tensor's first element lies
        (0 for a tensor that owns its memory, 5 for ``x[1]`` of a (4, 5) ``x``)."""
        start = _address(storage_owner(self._data))
        return (_address(self._data) - start) // self._data.itemsize

    def untyped_storage(self) -> UntypedStorage:
        """The memory behind this tensor and all its views, in bytes."""
        return UntypedStorage(storage_owner(self._data))

    def storage(self) -> TypedStorage:
        """The memory behind this tensor, as elements of its dtype (deprecated, as in PyTorch:
        use ``untyped_storage()``)."""
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage "
            "will be the only storage class. This should only matter to you if you are using "
            "storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() "
            "instead of tensor.storage()",
            UserWarning,
            stacklevel=2,
        )
        return TypedStorage(storage_owner(self._data), _dt.from_numpy_dtype(self._data.dtype))

    # ------------------------------------------------------------------ Python maps
    def _check_python_map(self, name: str) -> None:
        if self.requires_grad:  # PyTorch refuses even under no_grad: no graph could follow
            raise RuntimeError(
                f"Can't call {name}() on Variable that requires grad. Use "
                f"var.detach().{name}() instead."
            )
        if not isinstance(self._data, np.ndarray):
            raise TypeError(f"{name} is only implemented on CPU tensors")
        self._check_can_write_inplace()

    def _write_python_values(self, values: list) -> Any:
        """Write the Python numbers ``values`` (row-major) into self; a non-number is refused
        with PyTorch's TypeError."""
        for v in values:
            if not isinstance(v, int | float | complex | np.number | np.bool_):
                raise TypeError(f"must be real number, not {type(v).__name__}")
        self._data[...] = np.asarray(values).astype(self._data.dtype).reshape(self._data.shape)
        self._bump_version()
        return self

    def apply_(self, callable: Callable[[Any], Any]):  # noqa: A002  (PyTorch's name)
        """x[i] = callable(x[i]) for every element, as Python numbers (slow; CPU only)."""
        self._check_python_map("apply_")
        return self._write_python_values([callable(v) for v in self._data.ravel().tolist()])

    def map_(self, tensor: TensorBase, callable: Callable[[Any, Any], Any]):  # noqa: A002
        """x[i] = callable(x[i], tensor[i]) for every element, ``tensor`` broadcast to x's
        shape (slow; CPU only)."""
        self._check_python_map("map_")
        other = get_array_module(self._data).asarray(tensor._data)
        try:
            other = np.broadcast_to(other, self._data.shape)
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the tensor ({tuple(other.shape)}) must match the existing "
                f"size ({tuple(self._data.shape)}): map_'s tensor must broadcast to self's shape"
            ) from None
        pairs = zip(self._data.ravel().tolist(), other.ravel().tolist())
        return self._write_python_values([callable(a, b) for a, b in pairs])
