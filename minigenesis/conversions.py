"""Data -> arrays, below the Tensor class so that Tensor, its methods and the ops can all use it.

- ``as_array``: Python data, NumPy/CuPy arrays and tensors -> an array, with PyTorch's dtype
  inference and checks (rectangular, numbers only, integers in range).
- What Tensor and Module share about ``.to()``: how its arguments are read (``parse_to_args``)
  and the shortcuts ``cuda() cpu() half() float() double() bfloat16()``, each ``self.to(...)``
  with one argument filled in; the class that mixes ``ToShortcuts`` in provides ``to``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes as _dt
from . import kernels
from .autograd.tensor_base import TensorBase
from .backend import as_device, cast_array, to_device, to_numpy


def as_array(data: Any, dtype: Any = None, device: Any = None) -> Any:
    """An array (NumPy or CuPy) for ``data`` with PyTorch's dtype inference for Python data."""
    dev = as_device(device)
    target = None if dtype is None else _dt.to_dtype(dtype)
    if isinstance(data, TensorBase):
        arr = data._data
    elif hasattr(data, "__cuda_array_interface__") or isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
    else:
        arr = _from_python(data, target)
    if target is not None and arr.dtype != target.numpy_dtype:
        arr = cast_array(arr, target.numpy_dtype)
    else:
        _dt.from_numpy_dtype(arr.dtype)  # refuse dtypes minigenesis has no name for
    if dev is not None:
        arr = to_device(arr, dev)
    return arr


def convert(arr: Any, np_dtype: Any) -> Any:
    """``arr`` in ``np_dtype`` as ``cast_array`` converts it (arr itself where it has that dtype
    already). A large NumPy array between float32 and bfloat16 / float16, autocast's casts, is
    converted by one compiled loop where Numba is installed (``kernels/casts.py``: the same bits,
    2.5x faster than ml_dtypes' rounding)."""
    if type(arr) is np.ndarray and arr.size >= kernels.casts.CAST_MIN:
        if (fast := kernels.casts.astype(arr, np_dtype)) is not None:
            return fast
    return arr if arr.dtype == np_dtype else cast_array(arr, np_dtype)


def _from_python(data: Any, target: _dt.DType | None) -> np.ndarray:
    """A NumPy array for nested Python data, checked like PyTorch's ``tensor()``: rectangular,
    made of numbers only (no None, no strings), integers within their dtype's range."""
    if isinstance(data, (str, bytes)):
        raise TypeError(
            f"tensor: cannot make a tensor from {type(data).__name__} {data!r}: convert it to a "
            f"number first"
        )
    _, inferred = _describe(data, 0, True)
    natural = inferred or _dt.get_default_dtype()  # an empty list is a float tensor
    if target is None or target.is_floating_point or target is _dt.bool_:
        np_dtype = (target or natural).numpy_dtype
        with np.errstate(over="ignore"):  # 1e40 -> inf in float32, as in PyTorch
            # bfloat16 (ml_dtypes) takes no Python int past int64; float16 is rounded through
            # float32, as PyTorch's is
            if np_dtype.kind == "V" or np_dtype == np.float16:
                return cast_array(_checked_array(_plain(data), np.float64), np_dtype)
            return _checked_array(_plain(data), np_dtype)
    # integer dtype: convert exactly (int64 or float64), then check the range before narrowing
    wide = _checked_array(_plain(data), np.float64 if natural.is_floating_point else np.int64)
    info = np.iinfo(target.numpy_dtype)
    # PyTorch wraps negative values down to -255 into uint8 (-1 -> 255) but refuses any other
    # overflow (-256 too)
    lo = -info.max if target is _dt.uint8 else info.min
    if not wide.size:
        fits = True
    elif wide.dtype.kind == "i":  # compared as integers: 2**63 - 1 is 2.0**63 as a float
        fits = int(wide.min()) >= lo and int(wide.max()) <= info.max
    else:
        fits = np.isfinite(wide).all() and wide.min() >= lo and wide.max() < float(info.max) + 1
    if not fits:
        raise RuntimeError(
            f"tensor: a value cannot be converted to {target.name} without overflow "
            f"(the range is [{info.min}, {info.max}])"
        )
    return wide.astype(np.int64).astype(target.numpy_dtype)


def _checked_array(plain: Any, np_dtype: Any) -> np.ndarray:
    try:
        return np.array(plain, dtype=np_dtype)
    except OverflowError:
        raise ValueError(
            "tensor: an integer does not fit in int64 (the range is [-2**63, 2**63 - 1])"
        ) from None


MAX_DIMS = 64  # PyTorch's and NumPy's limit on a tensor's number of dims


def _describe(data: Any, dim: int, leading: bool) -> tuple[tuple, _dt.DType | None]:
    """(shape, dtype) of nested Python data with PyTorch's inference: Python bools, ints and
    floats give bool, int64 and the default float; NumPy values and tensors keep their dtype;
    a list's dtype promotes its elements' (None for an empty list). Refuses ragged lists.
    ``leading`` is True along the chain of first elements (where PyTorch reads the shape off)."""
    if isinstance(data, (np.ndarray, np.generic)):  # first: np.float64 is a Python float too
        return data.shape, _dt.from_numpy_dtype(data.dtype)
    if isinstance(data, bool):
        return (), _dt.bool_
    if isinstance(data, int):
        return (), _dt.int64
    if isinstance(data, float):
        return (), _dt.get_default_dtype()
    if isinstance(data, TensorBase):
        if dim == 0:
            return tuple(data.shape), data.dtype
        # inside a list, PyTorch reads a tensor as the one number it holds (a scalar of its
        # dtype): [tensor([1.]), tensor([2.])] has shape (2,), not (2, 1)
        if data.numel() != 1:
            raise ValueError(
                f"tensor: only one element tensors can be read as numbers in a list, got one of "
                f"shape {tuple(data.shape)} (stack tensors with mg.stack)"
            )
        return (), data.dtype
    if isinstance(data, (str, bytes)):
        err = ValueError if leading else TypeError  # PyTorch's types for ['a'] and [1, 'a']
        raise err(f"tensor: cannot make a tensor from the {type(data).__name__} {data!r}")
    if isinstance(data, complex):
        raise TypeError(f"tensor: complex numbers are not supported, got {data!r}")
    if not isinstance(data, Sequence):  # list, tuple, range, deque ... (a str was refused above)
        raise RuntimeError(
            f"tensor: could not infer a dtype for {type(data).__name__} {data!r}: expected "
            f"numbers, nested lists or tuples of numbers, arrays or tensors"
        )
    if dim >= MAX_DIMS:  # before recursing deeper: a list nested 10**5 deep, or inside itself
        raise ValueError(f"too many dimensions '{type(data).__name__}' (a tensor has at most "
                         f"{MAX_DIMS}; is a list nested in itself?)")  # fmt: skip
    if len(data) == 0:
        return (0,), None
    shape, dtype = _describe(data[0], dim + 1, leading)
    for i in range(1, len(data)):
        s, d = _describe(data[i], dim + 1, False)
        if s != shape:
            _ragged(shape, s, dim + 1)
        if d is not None:
            dtype = d if dtype is None else _dt.promote_types(dtype, d)
    return (len(data),) + shape, dtype


def _ragged(expected: tuple, got: tuple, dim: int) -> None:
    """Raise PyTorch's error for a list whose elements differ in shape."""
    if len(expected) != len(got):  # a number where a list was expected, or the reverse
        what = "a sequence" if len(expected) > len(got) else "a number"
        raise TypeError(
            f"tensor: expected {what} at dim {dim + min(len(expected), len(got))}: nested lists "
            f"must be rectangular"
        )
    k = next(i for i in range(len(got)) if got[i] != expected[i])
    raise ValueError(
        f"tensor: expected sequence of length {expected[k]} at dim {dim + k} (got {got[k]}): "
        f"nested lists must be rectangular"
    )


def _plain(data: Any) -> Any:
    """Nested lists that may hold one-element tensors -> plain Python values."""
    if isinstance(data, TensorBase):  # (one element: _describe checked it)
        arr = data._data.reshape(())
        return to_numpy(arr).item() if arr.dtype.kind != "V" else float(to_numpy(arr))
    if isinstance(data, Sequence) and not isinstance(data, str | bytes):
        return [_plain(d) for d in data]
    return data


def parse_to_args(owner: str, args: tuple, kwargs: dict, allow_copy: bool = False) -> tuple:
    """Read ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)``, each followed by
    PyTorch's positional flags ``non_blocking`` (ignored) and ``copy`` (``to(dtype, False,
    True)``), and the keywords ``dtype=``, ``device=``, ``non_blocking=``, ``copy=`` (where
    allowed).

    Returns (dtype or None, device or None, copy). ``owner`` names the method in errors."""
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False) if allow_copy else False
    if kwargs:
        raise TypeError(f"{owner}() got unexpected arguments {sorted(kwargs)}")
    n = len(args)
    while n and isinstance(args[n - 1], bool):  # to(dtype, non_blocking, copy): trailing flags
        n -= 1
    args, flags = args[:n], args[n:]
    if len(flags) > (2 if allow_copy else 1):
        raise TypeError(
            f"{owner}() takes at most {len(args) + 1 + allow_copy} positional "
            f"arguments here (non_blocking{', copy' if allow_copy else ''} last)"
        )
    if len(flags) == 2:
        copy = copy or flags[1]
    for a in args:
        if isinstance(a, TensorBase):
            dtype, dev = a.dtype, a.device
        elif (
            isinstance(a, _dt.DType)
            or a in (float, int, bool)
            or (isinstance(a, str) and a in _dt._BY_NAME)
        ):
            dtype = a
        else:
            dev = a
    return dtype, dev, copy


class ToShortcuts:
    """Mixin: device and dtype shortcuts written once, on top of ``self.to``."""

    __slots__ = ()

    def to(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - provided by the class
        raise NotImplementedError

    def cuda(self, device: Any = None, *, memory_format: Any = None) -> Any:
        """``cuda()``, ``cuda(1)`` or ``cuda("cuda:1")``."""
        if device is None:
            return self.to("cuda", **_layout(memory_format))
        dev = f"cuda:{device}" if isinstance(device, int) else device
        return self.to(dev, **_layout(memory_format))

    def cpu(self, *, memory_format: Any = None) -> Any:
        return self.to("cpu", **_layout(memory_format))

    def half(self, *, memory_format: Any = None) -> Any:
        return self.to(_dt.float16, **_layout(memory_format))

    def float(self, *, memory_format: Any = None) -> Any:
        return self.to(_dt.float32, **_layout(memory_format))

    def double(self, *, memory_format: Any = None) -> Any:
        return self.to(_dt.float64, **_layout(memory_format))

    def bfloat16(self, *, memory_format: Any = None) -> Any:
        return self.to(_dt.bfloat16, **_layout(memory_format))


def _layout(memory_format: Any) -> dict:
    """The ``memory_format=`` keyword to pass on to ``to``, when one was given."""
    return {} if memory_format is None else {"memory_format": memory_format}
