"""Making tensors: from data (``tensor``, ``from_numpy``), filled (``zeros``, ``full`` ...), ranges
(``arange``, ``linspace``, ``eye``) and random draws (``rand``, ``randn``, ``randint``,
``randperm``).

Every function takes ``dtype=``, ``device=`` and ``requires_grad=`` where PyTorch does.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from . import dtypes as _dt
from ._tensor import Tensor
from .backend import cast_array, creation_device, get_array_module, module_for
from .conversions import _from_python, as_array
from .memory_format import check_format, contiguous_format, copy_like_as, preserve_format
from .meta_array import MetaArray
from .ops import sampling
from .random import _draw, generator_for
from .size import Size, as_shape, broadcast_error


def _shape(size: tuple, name: str, size_kw: Any = None) -> tuple:
    """Accept ``zeros(2, 3)``, ``zeros((2, 3))`` and ``zeros(size=(2, 3))`` alike (see
    ``size.as_shape``)."""
    if size_kw is not None:
        if size:
            raise TypeError(f"{name}() got the size both as arguments and as size=")
        size = (size_kw,)
    return as_shape(size, name)


def _size_kw(kw: dict, name: str) -> Any:
    """The ``size=`` keyword (the name PyTorch gives the shape), the only extra keyword taken."""
    size = kw.pop("size", None)
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument {next(iter(kw))!r}")
    return size


def _int_arg(value: Any, name: str, what: str) -> int:
    """``value`` as an int: Python and NumPy integers and integer 0-d tensors pass; bools,
    floats and strings are refused (PyTorch's TypeError)."""
    if not isinstance(value, (bool, np.bool_)):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{name}: {what} must be an int, got {type(value).__name__} {value!r}")


def _number_arg(value: Any, name: str, what: str) -> Any:
    """A Python number for ``value`` (a bool, int or float, a NumPy scalar or a 0-d tensor)."""
    if isinstance(value, Tensor) and value.ndim == 0:
        return value.item()
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    if isinstance(value, (bool, int, float)):
        return value
    raise TypeError(f"{name}: {what} must be a number, got {type(value).__name__} {value!r}")


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, numbers, arrays or tensors).

    Python floats give the default dtype (float32), ints int64, bools bool; a NumPy array keeps its
    dtype (float64 stays float64, as in PyTorch).
    """
    arr = as_array(data, dtype, creation_device(device))
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
    xp = module_for(creation_device(device))
    if fill is None:
        arr = xp.empty(shape, dtype=dt.numpy_dtype)
    elif fill == 0:
        arr = xp.zeros(shape, dtype=dt.numpy_dtype)
    else:
        arr = xp.full(shape, fill, dtype=dt.numpy_dtype)
    t = Tensor._make(arr, False)
    return t.requires_grad_(True) if requires_grad else t


def zeros(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any
) -> Tensor:
    return _new(0, _shape(size, "zeros", _size_kw(kw, "zeros")), dtype, device, requires_grad)


def ones(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any
) -> Tensor:
    return _new(1, _shape(size, "ones", _size_kw(kw, "ones")), dtype, device, requires_grad)


def empty(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **kw: Any
) -> Tensor:
    """Uninitialised memory of ``size``; ``memory_format=`` lays it out (mg.channels_last)."""
    fmt = check_format(kw.pop("memory_format", contiguous_format), "empty")
    out = _new(None, _shape(size, "empty", _size_kw(kw, "empty")), dtype, device, requires_grad)
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return out if fmt is contiguous_format else _laid_out(out, out, fmt)


def full(
    size: Any, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    fill_value = _number_arg(fill_value, "full", "fill_value")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.infer_dtype(fill_value)
    # through tensor()'s conversion: an integer dtype refuses a value it cannot hold
    fill = _from_python(fill_value, dt).astype(dt.numpy_dtype)[()]
    return _new(fill, _shape((size,), "full"), dt, device, requires_grad)


def _like(fn, t: Tensor, dtype: Any, device: Any, requires_grad: bool, *args: Any,
          memory_format: Any = preserve_format) -> Tensor:  # fmt: skip
    _check_tensor(t, f"{fn.__name__}_like")
    out = fn(*args, t.shape, dtype=dtype or t.dtype, device=device or t.device)
    return _laid_out(out, t, memory_format).requires_grad_(requires_grad)


def _laid_out(out: Tensor, t: Tensor, memory_format: Any) -> Tensor:
    """``out`` (new, row-major, shaped like ``t``) laid out as ``memory_format`` asks: in that
    format, or for ``preserve_format`` with ``t``'s strides (PyTorch's ``*_like`` default)."""
    fmt = check_format(memory_format, "*_like")
    if fmt is contiguous_format or (fmt is preserve_format and t._data.flags.c_contiguous):
        return out
    if type(out._data) is MetaArray:  # a meta tensor has no memory to lay out
        return out
    out._data = copy_like_as(get_array_module(out._data), out._data, t._data, fmt)
    return out


def _check_tensor(t: Any, name: str) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(t).__name__}")


def zeros_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               *, memory_format: Any = preserve_format) -> Tensor:  # fmt: skip
    return _like(zeros, t, dtype, device, requires_grad, memory_format=memory_format)


def ones_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               *, memory_format: Any = preserve_format) -> Tensor:  # fmt: skip
    return _like(ones, t, dtype, device, requires_grad, memory_format=memory_format)


def empty_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               *, memory_format: Any = preserve_format) -> Tensor:  # fmt: skip
    return _like(empty, t, dtype, device, requires_grad, memory_format=memory_format)


def full_like(
    t: Tensor, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
    *, memory_format: Any = preserve_format,
) -> Tensor:  # fmt: skip
    _check_tensor(t, "full_like")
    out = full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device)
    return _laid_out(out, t, memory_format).requires_grad_(requires_grad)


_ARANGE = ("start", "end", "step")


def _check_not_bool(dt: Any, name: str, device: Any) -> None:
    """A range of values has no bool form: PyTorch's arange, linspace and logspace kernels
    exist for numbers only (NotImplementedError, as PyTorch raises)."""
    if dt is _dt.bool_:
        where = "cpu" if device is None else device.type  # (None: the default, the CPU)
        raise NotImplementedError(f"\"{name}_{where}\" not implemented for 'Bool'")


def arange(
    start: Any = None,
    end: Any = None,
    step: Any = 1,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """[start, end) in steps of ``step``; int64 for integer arguments, else the default float.
    ``arange(end)``, ``arange(end=end)`` and ``arange(start, end)`` start at 0 or ``start``."""
    if start is None and end is None:
        raise TypeError("arange() missing required argument 'end'")
    if end is None:
        start, end = 0, start
    elif start is None:
        start = 0
    start, end, step = (_number_arg(v, "arange", w) for v, w in zip((start, end, step), _ARANGE))
    if dtype is None:
        is_int = all(isinstance(v, int) for v in (start, end, step))
        dtype = _dt.int64 if is_int else _dt.get_default_dtype()
    dt = _dt.to_dtype(dtype)
    _check_not_bool(dt, "arange", creation_device(device))
    xp = module_for(creation_device(device))
    if not all(math.isfinite(v) for v in (start, end, step)):
        raise RuntimeError(f"arange: unsupported range: {start} -> {end} in steps of {step}")
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange: upper bound and lower bound are inconsistent with the step sign "
            f"(start={start}, end={end}, step={step})"
        )
    if (end - start) / step > np.iinfo(np.int64).max:
        raise RuntimeError(
            f"arange: invalid size: ({end} - {start}) / {step} elements overflow int64"
        )
    if dt.is_floating_point:
        # PyTorch's kernel: value i = start + i * step in the accumulation type (double for
        # float32/float64, float for float16/bfloat16), then rounded once to the dtype. (NumPy's
        # arange steps by (start + step) - start instead, which is off by an ulp at times.)
        acc = np.float32 if dt.itemsize == 2 else np.float64
        n = max(math.ceil((end - start) / step), 0)
        arr = xp.asarray(acc(start)) + xp.asarray(acc(step)) * xp.arange(n, dtype=acc)
    else:
        arr = _integer_range(start, end, step, dt is _dt.int64, xp)
    t = Tensor._make(arr.astype(dt.numpy_dtype), False)
    return t.requires_grad_(True) if requires_grad else t


def _integer_range(start: float, end: float, step: float, is_int64: bool, xp: Any) -> Any:
    """PyTorch's integer arange: value i = trunc(start) + i * trunc(step). int64 truncates end
    too and counts from the integers (arange(0, 3, 1.5) has 3 values, a truncated step of 0 is
    refused); the narrower types count ceil((end - start) / step) from the numbers given
    (arange(0, 3, 1.5, dtype=int32) is [0, 1])."""
    first, stride = int(start), int(step)
    if is_int64:
        if stride == 0:
            raise ValueError(f"arange: step must be nonzero (step {step} truncates to 0 in int64)")
        n = max(-((int(end) - first) // -stride), 0)  # ceil of the integer quotient
    else:
        n = max(math.ceil((end - start) / step), 0)
    return first + stride * xp.arange(n, dtype=np.int64)


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
    start, end = _number_arg(start, "linspace", "start"), _number_arg(end, "linspace", "end")
    steps = _int_arg(steps, "linspace", "steps")
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    _check_not_bool(dt, "linspace", creation_device(device))
    xp = module_for(creation_device(device))
    nd = dt.numpy_dtype
    lo, hi = (cast_array(np.asarray(v), nd) for v in (start, end))
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
    n = _int_arg(n, "eye", "n")
    m = n if m is None else _int_arg(m, "eye", "m")
    for what, v in (("n", n), ("m", m)):
        if v < 0:
            raise RuntimeError(f"eye: {what} must be greater or equal to 0, got {v}")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    xp = module_for(creation_device(device))
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
    name = "rand" if kind == "uniform" else "randn"
    shape = _shape(size, name)
    if not dt.is_floating_point:  # PyTorch: "not implemented for 'Long'"
        raise NotImplementedError(f"{name}: draws need a floating dtype, got {dt.name}")
    xp = module_for(creation_device(device))
    t = Tensor._make(_draw(kind, shape, dt, xp, generator, *params), False)
    return t.requires_grad_(True) if requires_grad else t


def rand(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
    **kw: Any,
) -> Tensor:
    """Samples of U[0, 1)."""
    size = _shape(size, "rand", _size_kw(kw, "rand"))
    return _random("uniform", size, dtype, device, requires_grad, generator, 0.0, 1.0)


def randn(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
    **kw: Any,
) -> Tensor:
    """Samples of N(0, 1)."""
    size = _shape(size, "randn", _size_kw(kw, "randn"))
    return _random("normal", size, dtype, device, requires_grad, generator, 0.0, 1.0)


def rand_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False,
              *, memory_format: Any = preserve_format) -> Tensor:  # fmt: skip
    return _like(rand, t, dtype, device, requires_grad, memory_format=memory_format)


def randn_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               *, memory_format: Any = preserve_format) -> Tensor:  # fmt: skip
    return _like(randn, t, dtype, device, requires_grad, memory_format=memory_format)


def randint(
    low: int | None = None,
    high: int | None = None,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    generator: Any = None,
) -> Tensor:
    """Integers drawn uniformly from [low, high); ``randint(high, size)`` and
    ``randint(high=high, size=size)`` mean low = 0."""
    if low is None:
        if high is None:
            raise TypeError("randint() missing required argument 'high'")
        low = 0
    if size is None:
        if high is None or not isinstance(high, (tuple, list, Size)):
            raise TypeError("randint needs a size, e.g. randint(0, 10, (3,))")
        low, high, size = 0, low, high
    if high is None:  # randint(high, size=...)
        low, high = 0, low
    low, high = _int_arg(low, "randint", "low"), _int_arg(high, "randint", "high")
    if not (-(2**63) <= low < 2**63 and -(2**63) <= high < 2**63):
        raise ValueError(f"randint: low ({low}) and high ({high}) must fit in int64")
    if high <= low:
        raise RuntimeError(f"randint: high ({high}) must be greater than low ({low})")
    shape = _shape((size,), "randint")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    if dt is not _dt.int64 and not dt.is_floating_point:
        # the draws must fit, not wrap around (bool holds 0 and 1)
        info = np.iinfo(dt.numpy_dtype) if dt is not _dt.bool_ else None
        lo, hi = (0, 1) if info is None else (int(info.min), int(info.max))
        if low < lo or high - 1 > hi:
            raise RuntimeError(f"randint: [{low}, {high}) does not fit in {dt.name} ([{lo}, {hi}])")
    xp = module_for(creation_device(device))
    gen = generator_for(xp, generator)
    arr = gen.integers(low, high, size=shape)
    return Tensor._make(xp.asarray(arr).astype(dt.numpy_dtype, copy=False), False)


def randint_like(t: Tensor, low: int | None = None, high: int | None = None, *, dtype: Any = None,
                 device: Any = None, requires_grad: bool = False,
                 memory_format: Any = preserve_format) -> Tensor:  # fmt: skip
    """``randint_like(t, high)`` or ``randint_like(t, low, high)``, shaped (and laid out) like
    ``t``."""
    if high is None:
        low, high = 0, low
    elif low is None:  # randint_like(t, high=high)
        low = 0
    return _like(randint, t, dtype, device, requires_grad, low, high, memory_format=memory_format)


def randperm(n: int, dtype: Any = None, device: Any = None, generator: Any = None) -> Tensor:
    """A random permutation of 0 .. n-1."""
    n = _int_arg(n, "randperm", "n")
    if n < 0:
        raise RuntimeError(f"randperm: n must be >= 0, got {n}")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    if dt is _dt.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if not dt.is_floating_point and n - 1 > np.iinfo(dt.numpy_dtype).max:  # would wrap around
        raise RuntimeError(
            f"randperm: n ({n}) is too large for {dt.name}: the values 0 .. n-1 must fit"
        )
    xp = module_for(creation_device(device))
    gen = generator_for(xp, generator)
    if hasattr(gen, "permutation"):
        arr = gen.permutation(n)
    else:  # CuPy's Generator has no permutation: sort n uniform draws (float64: ties ~n^2/2^53)
        arr = xp.argsort(gen.random(n))
    return Tensor._make(xp.asarray(arr).astype(dt.numpy_dtype), False)


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples of N(mean, std^2). mean and std are tensors (broadcast together; the result has
    their shape and dtype) or numbers; with two numbers, ``size`` gives the shape. As in
    PyTorch the draw passes a zero gradient to tensor parameters (see ``ops/sampling.py``)."""
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not tensors:
        if size is None:
            raise TypeError(
                "normal(mean, std) with two numbers needs a size, e.g. normal(0, 1, (3,))"
            )
        m, s = _number_arg(mean, "normal", "mean"), _number_arg(std, "normal", "std")
        if not s >= 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {s}")
        return _random("normal", (size,), dtype, device, requires_grad, generator, m, s)
    for name, t in (("mean", mean), ("std", std)):
        if isinstance(t, Tensor) and not t.dtype.is_floating_point:
            raise NotImplementedError(  # (PyTorch has no kernel for it)
                f"normal: {name} must be a floating-point tensor, got {t.dtype.name}"
            )
        if not isinstance(t, Tensor):
            _number_arg(t, "normal", name)
    s_data = std._data if isinstance(std, Tensor) else std
    xp = get_array_module(tensors[0]._data)
    if not bool(xp.all(xp.asarray(s_data) >= 0)):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    try:
        shape = tuple(xp.broadcast_shapes(*(t.shape for t in tensors)))
    except ValueError:
        raise broadcast_error(*(t.shape for t in tensors)) from None
    dt = (
        tensors[0]._data.dtype if len(tensors) == 1 else xp.result_type(*(t._data for t in tensors))
    )
    return sampling.normal(mean, std, shape, xp.dtype(dt), generator)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:  # noqa: A002
    """0/1 draws shaped like ``input``: 1 with probability input (elementwise, in [0, 1]), or with
    probability ``p`` when given. The result has input's dtype."""
    _check_tensor(input, "bernoulli")
    if p is not None:
        return input.bernoulli(p, generator=generator)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(  # (PyTorch has no kernel for it)
            f"bernoulli: input must be probabilities (floating point), got {input.dtype.name}"
        )
    data = input._data
    if data.size and not bool(((data >= 0) & (data <= 1)).all()):
        raise RuntimeError("bernoulli: input must hold probabilities in [0, 1]")
    return sampling.bernoulli(input, generator)


def poisson(input: Tensor, generator: Any = None) -> Tensor:  # noqa: A002
    """One Poisson draw per element, with rate input (>= 0): P(k) = rate^k e^-rate / k!. The
    result has input's (floating-point) dtype."""
    _check_tensor(input, "poisson")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"poisson: the rates must be floating point, got {input.dtype.name}"
        )
    data = input._data
    if data.size and not bool((data >= 0).all()):
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    return sampling.poisson(input, generator)


def logspace(
    start: float,
    end: float,
    steps: int,
    base: float = 10.0,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` values base^e for e evenly spaced from start to end (both included). An
    integer dtype truncates start and end to integers first, as PyTorch (and linspace) do:
    logspace(2, 3.5, 3, dtype=int64) is [100, 316, 1000] (one step is base^start untruncated,
    as in PyTorch's kernel)."""
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    _check_not_bool(dt, "logspace", creation_device(device))
    if not dt.is_floating_point and steps != 1:
        start = int(_number_arg(start, "logspace", "start"))
        end = int(_number_arg(end, "logspace", "end"))
    exps = linspace(start, end, steps, dtype=_dt.float64, device=device)._data
    base = _number_arg(base, "logspace", "base")
    arr = float(base) ** exps
    if not dt.is_floating_point:
        arr = module_for(creation_device(device)).trunc(arr)
    t = Tensor._make(arr.astype(dt.numpy_dtype), False)
    return t.requires_grad_(True) if requires_grad else t


def empty_strided(
    size: Any, stride: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """An uninitialised tensor of ``size`` laid out with ``stride`` (in elements): element
    (i_0, ..., i_k) lies at sum_j i_j * stride_j of a fresh block of
    1 + sum_j (size_j - 1) * stride_j elements (empty_strided((2, 3), (1, 2)) is column-major)."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"empty_strided: mismatch in length of strides and shape: size {size}, stride {stride}"
        )
    if any(_int_arg(s, "empty_strided", "stride") < 0 for s in stride):
        raise RuntimeError(f"empty_strided: strides must be non-negative, got {stride}")
    out = empty(size, dtype=dtype, device=device)
    laid_out = out._data.strides == tuple(s * out._data.itemsize for s in stride)
    if not laid_out and out.device.type != "meta":  # (meta: no memory)
        xp = get_array_module(out._data)
        # (an empty tensor keeps its strides too, over one element: PyTorch reports them)
        length = max(1, 1 + sum((n - 1) * s for n, s in zip(size, stride)))
        block = xp.empty(length, out._data.dtype)
        strides = tuple(s * block.itemsize for s in stride)
        out = Tensor._make(xp.lib.stride_tricks.as_strided(block, out.shape, strides), False)
    return out.requires_grad_(True) if requires_grad else out


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
    "logspace",
    "empty_strided",
    "eye",
    "rand",
    "randn",
    "rand_like",
    "randn_like",
    "randint",
    "randint_like",
    "randperm",
    "normal",
    "bernoulli",
    "poisson",
    "as_array",
]
