"""Making tensors: from data (``tensor``, ``from_numpy``), filled (``zeros``, ``full`` ...), ranges
(``arange``, ``linspace``, ``eye``) and random draws (``rand``, ``randn``, ``randint``,
``randperm``).

Every function takes ``dtype=``, ``device=`` and ``requires_grad=`` where PyTorch does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as _dt
from .backend import as_device, module_for
from .conversions import as_array
from .random import _draw, generator_for
from .tensor import Tensor


def _shape(size: tuple) -> tuple:
    """Accept ``zeros(2, 3)`` and ``zeros((2, 3))`` alike."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, numbers, arrays or tensors).

    Python floats give the default dtype (float32), ints int64, bools bool; a NumPy array keeps its
    dtype (float64 stays float64, as in PyTorch).
    """
    arr = as_array(data, dtype, device)
    if isinstance(data, (Tensor, np.ndarray)) or arr is data:
        arr = arr.copy()
    t = Tensor._make(arr, False)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (changes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    _dt.from_numpy_dtype(array.dtype)
    return Tensor._make(array, False)


def _new(fill: Any, shape: tuple, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    xp = module_for(as_device(device))
    if fill is None:
        arr = xp.empty(shape, dtype=dt.numpy_dtype)
    elif fill == 0:
        arr = xp.zeros(shape, dtype=dt.numpy_dtype)
    else:
        arr = xp.full(shape, fill, dtype=dt.numpy_dtype)
    t = Tensor._make(arr, False)
    return t.requires_grad_(True) if requires_grad else t


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(0, _shape(size), dtype, device, requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(1, _shape(size), dtype, device, requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(None, _shape(size), dtype, device, requires_grad)


def full(
    size: Any, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    if dtype is None:
        dtype = _dt.infer_dtype(fill_value)
    return _new(fill_value, _shape((size,)), dtype, device, requires_grad)


def _like(fn, t: Tensor, dtype: Any, device: Any, requires_grad: bool, *args: Any) -> Tensor:
    return fn(
        *args,
        t.shape,
        dtype=dtype or t.dtype,
        device=device or t.device,
        requires_grad=requires_grad,
    )


def zeros_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False):
    return _like(zeros, t, dtype, device, requires_grad)


def ones_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False):
    return _like(ones, t, dtype, device, requires_grad)


def empty_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False):
    return _like(empty, t, dtype, device, requires_grad)


def full_like(
    t: Tensor, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    return full(
        t.shape,
        fill_value,
        dtype=dtype or t.dtype,
        device=device or t.device,
        requires_grad=requires_grad,
    )


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """[start, end) in steps of ``step``; int64 for integer arguments, else the default float."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_int = all(isinstance(v, int) for v in (start, end, step))
        dtype = _dt.int64 if is_int else _dt.get_default_dtype()
    dt = _dt.to_dtype(dtype)
    xp = module_for(as_device(device))
    if step == 0:
        raise ValueError("arange: step must be nonzero")
    if (end - start) * step < 0:
        raise ValueError(
            f"arange: upper bound and lower bound are inconsistent with the step sign "
            f"(start={start}, end={end}, step={step})"
        )
    if dt.is_floating_point:
        # PyTorch's kernel: value i = start + i * step in the accumulation type (double for
        # float32/float64, float for float16/bfloat16), then rounded once to the dtype. (NumPy's
        # arange steps by (start + step) - start instead, which is off by an ulp at times.)
        acc = np.float32 if dt.itemsize == 2 else np.float64
        n = max(math.ceil((end - start) / step), 0)
        arr = xp.asarray(acc(start)) + xp.asarray(acc(step)) * xp.arange(n, dtype=acc)
    else:
        arr = xp.arange(start, end, step)
    t = Tensor._make(arr.astype(dt.numpy_dtype), False)
    return t.requires_grad_(True) if requires_grad else t


def linspace(
    start: float,
    end: float,
    steps: int,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from start to end, both included.

    PyTorch's formula, symmetric so both ends are exact: with step = (end - start) / (steps - 1),
    value i = start + i * step for the first half and end - (steps - 1 - i) * step for the rest.
    As in its kernel, start and end are first converted to the dtype (an integer dtype truncates
    them) and a floating dtype computes in its own precision: float32/float64 with one rounding
    per value (a fused multiply-add), float16/bfloat16 rounding the product and the sum."""
    if steps < 0:
        raise ValueError(f"linspace: number of steps must be non-negative, got {steps}")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    xp = module_for(as_device(device))
    nd = dt.numpy_dtype
    lo, hi = (np.asarray(v).astype(nd) for v in (start, end))
    if dt.is_floating_point:  # step in the dtype: (hi - lo) and the division each round
        step = float(((hi - lo).astype(nd) / nd.type(max(steps - 1, 1))).astype(nd))
    else:  # a double step for integer dtypes
        step = (float(hi) - float(lo)) / max(steps - 1, 1)
    lo, hi = float(lo), float(hi)
    i = xp.arange(steps, dtype=np.float64)
    k = xp.where(i < steps // 2, i, i - (steps - 1))  # hi + k * step for the second half
    base = xp.where(i < steps // 2, lo, hi)
    if dt.itemsize == 2 and dt.is_floating_point:
        arr = base + (step * k).astype(nd).astype(np.float64)
    else:
        arr = base + step * k  # exact product and one rounding below: float32's fma
    if steps == 1:  # step is (hi - lo) / 0 in PyTorch's kernel; it returns start
        arr = xp.full(1, lo)
    t = Tensor._make(arr.astype(nd), False)
    return t.requires_grad_(True) if requires_grad else t


def eye(
    n: int, m: int | None = None, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    xp = module_for(as_device(device))
    t = Tensor._make(xp.eye(n, m, dtype=dt.numpy_dtype), False)
    return t.requires_grad_(True) if requires_grad else t


# ---------------------------------------------------------------------------------------------
# Random draws (from the generator of the device, see random.py)
# ---------------------------------------------------------------------------------------------
def _random(
    kind: str,
    size: tuple,
    dtype: Any,
    device: Any,
    requires_grad: bool,
    generator: Any,
    *params: Any,
) -> Tensor:
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not dt.is_floating_point:
        raise TypeError(f"{kind} draws need a floating dtype, got {dt.name}")
    xp = module_for(as_device(device))
    t = Tensor._make(_draw(kind, _shape(size), dt, xp, generator, *params), False)
    return t.requires_grad_(True) if requires_grad else t


def rand(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    """Samples of U[0, 1)."""
    return _random("uniform", size, dtype, device, requires_grad, generator, 0.0, 1.0)


def randn(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    """Samples of N(0, 1)."""
    return _random("normal", size, dtype, device, requires_grad, generator, 0.0, 1.0)


def rand_like(t: Tensor, dtype: Any = None, device: Any = None) -> Tensor:
    return rand(t.shape, dtype=dtype or t.dtype, device=device or t.device)


def randn_like(t: Tensor, dtype: Any = None, device: Any = None) -> Tensor:
    return randn(t.shape, dtype=dtype or t.dtype, device=device or t.device)


def randint(
    low: int,
    high: int | None = None,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    generator: Any = None,
) -> Tensor:
    """Integers drawn uniformly from [low, high); ``randint(high, size)`` means low = 0."""
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint needs a size, e.g. randint(0, 10, (3,))")
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint needs high")
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    xp = module_for(as_device(device))
    gen = generator_for(xp, generator)
    arr = gen.integers(low, high, size=_shape((size,)))
    return Tensor._make(xp.asarray(arr).astype(dt.numpy_dtype), False)


def randint_like(t: Tensor, low: int, high: int | None = None) -> Tensor:
    return randint(low, high, t.shape, dtype=t.dtype, device=t.device)


def randperm(n: int, dtype: Any = None, device: Any = None, generator: Any = None) -> Tensor:
    """A random permutation of 0 .. n-1."""
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    xp = module_for(as_device(device))
    arr = generator_for(xp, generator).permutation(n)
    return Tensor._make(xp.asarray(arr).astype(dt.numpy_dtype), False)


__all__ = [
    "tensor",
    "from_numpy",
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "arange",
    "linspace",
    "eye",
    "rand",
    "randn",
    "rand_like",
    "randn_like",
    "randint",
    "randint_like",
    "randperm",
    "as_array",
]
