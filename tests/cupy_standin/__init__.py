"""A strict stand-in for CuPy, so the engine's GPU path runs (and fails where CuPy would) on a CPU.

Tests only, never part of minigenesis. Select it with ``MINIGENESIS_CUPY=tests.cupy_standin``: the
backend then uses this module wherever it would use ``cupy`` (and ``.cupyx`` for ``cupyx``), and
``device="cuda"`` allocates here. What it copies from CuPy is what can hide a bug on a CPU:

- its ``ndarray`` is its own type wrapping a NumPy array; ``np.asarray(x)``, ``np.array(x)`` and
  ``x.__array__()`` raise CuPy's ``TypeError``: only ``asnumpy(x)`` and ``x.get()`` reach the host;
- an operation that mixes a NumPy array with a device array raises ``TypeError`` (as CuPy's
  kernels do); Python and NumPy scalars mix freely, as in CuPy;
- the namespace has exactly the public names of real CuPy 14 (``cupy14_names.json``, recorded from
  the ``cupy-cuda12x`` wheel by ``record_names.py``): ``errstate`` is missing, ``add.at`` is there,
  a ufunc without a bfloat16 loop in CuPy refuses bfloat16 here;
- ``cuda`` has CuPy's signatures (one device); index arrays wrap around (``_indexing.py``);
- random numbers come from Philox streams, never from the CPU generator's PCG64;
- ``ElementwiseKernel``/``ReductionKernel`` run a kernel's C body with NumPy, keeping C's types
  (``_kernels.py``), so minigenesis's own CUDA kernels are checked against its CPU path;
- every read from the device to the host (``get``, ``asnumpy``, ``item``, ``tolist``, ``bool``,
  ``float``, ``int``) is counted in ``host_reads``: where real CuPy would synchronise.
"""

from __future__ import annotations

import contextlib
import functools
import json
import types
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from . import _indexing, _kernels

_NAMES = json.loads((Path(__file__).with_name("cupy14_names.json")).read_text())
_PUBLIC = frozenset(_NAMES["cupy"])
_NDARRAY_ATTRS = frozenset(_NAMES["ndarray"])
_UFUNC_METHODS = frozenset(_NAMES["ufunc_methods"])
_UFUNCS = frozenset(_NAMES["ufuncs"])
_BF16_UFUNCS = frozenset(_NAMES["ufuncs_with_bfloat16"])
_IMPLICIT = (
    "Implicit conversion to a NumPy array is not allowed. "
    "Please use `.get()` to construct a NumPy array explicitly."
)
try:
    import ml_dtypes

    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a dependency of minigenesis
    _BF16 = None

__version__ = _NAMES["version"]


# ----------------------------------------------------------------------------------------------
# Host reads (the synchronisations a real GPU would make)
# ----------------------------------------------------------------------------------------------
class _HostReads:
    """How many times device data was read by the host, and by which route."""

    def __init__(self) -> None:
        self.count = 0
        self.by_kind: dict[str, int] = {}

    def add(self, kind: str) -> None:
        self.count += 1
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1

    def reset(self) -> None:
        self.count = 0
        self.by_kind = {}


host_reads = _HostReads()


@contextlib.contextmanager
def counting_host_reads():
    """``with counting_host_reads() as reads: ...``: ``reads.count`` afterwards is the number of
    device-to-host reads made inside the block."""
    saved = (host_reads.count, dict(host_reads.by_kind))
    host_reads.reset()
    try:
        yield host_reads
    finally:
        inner = (host_reads.count, dict(host_reads.by_kind))
        host_reads.count = saved[0] + inner[0]
        host_reads.by_kind = saved[1]
        for k, v in inner[1].items():
            host_reads.by_kind[k] = host_reads.by_kind.get(k, 0) + v
        counting_host_reads.last = types.SimpleNamespace(count=inner[0], by_kind=inner[1])


# ----------------------------------------------------------------------------------------------
# The array type
# ----------------------------------------------------------------------------------------------
_live: dict[int, weakref.ref] = {}  # id -> weak reference, for the memory pool's byte counts
# id of a NumPy array that owns its memory -> the device array wrapping it: a view's device array
# holds its base's (CuPy's view.base), so the base's reference count sees its views, as in CuPy
_owners: dict[int, weakref.ref] = {}


def _track(arr: ndarray) -> None:
    key = id(arr)
    _live[key] = weakref.ref(arr, lambda _ref, key=key: _live.pop(key, None))
    if arr._a.base is None:
        data = id(arr._a)
        _owners[data] = weakref.ref(arr, lambda r, data=data: _forget_owner(data, r))
        arr._base = None
    else:
        owner = _owners.get(id(arr._a.base))
        owner = owner() if owner is not None else None
        arr._base = owner if owner is not None and owner._a is arr._a.base else None


def _forget_owner(data: int, ref: weakref.ref) -> None:
    if _owners.get(data) is ref:
        del _owners[data]


def _unsupported(obj: Any) -> TypeError:
    return TypeError(f"Unsupported type {type(obj)}")


def _unwrap(obj: Any, host_ok: bool = False) -> Any:
    """The NumPy data behind device arrays (recursively); a host array is refused, as CuPy does."""
    if type(obj) is ndarray:
        return obj._a
    if isinstance(obj, np.ndarray):
        if host_ok:  # a host -> device transfer: new device memory, never a view of the host's
            return obj.copy(order="K")
        raise _unsupported(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_unwrap(o, host_ok) for o in obj)
    return obj


def _wrap(obj: Any) -> Any:
    """Device arrays for NumPy results (a NumPy scalar becomes a 0-d device array, as in CuPy)."""
    if isinstance(obj, np.ndarray):
        return ndarray._from(obj)
    if isinstance(obj, np.generic):
        return ndarray._from(np.asarray(obj))
    if isinstance(obj, tuple):
        return tuple(_wrap(o) for o in obj)
    if isinstance(obj, list):
        return [_wrap(o) for o in obj]
    return obj


def _matmul(a: np.ndarray, b: np.ndarray, **kwargs) -> np.ndarray:
    """a @ b in the inputs' common dtype, as cuBLAS gives it (NumPy's bfloat16 matmul from
    ml_dtypes answers in float32)."""
    out = np.matmul(a, b, **kwargs)
    dtype = np.result_type(a, b)
    return out if out.dtype == dtype else out.astype(dtype)


def _binary(op):
    def method(self, other):
        if isinstance(other, np.ndarray):
            raise _unsupported(other)
        if type(other) is not ndarray and not np.isscalar(other):
            return NotImplemented
        return _wrap(op(self._a, _unwrap(other)))

    return method


def _inplace(op):
    def method(self, other):
        if isinstance(other, np.ndarray):
            raise _unsupported(other)
        op(self._a, _unwrap(other))
        return self

    return method


class ndarray:  # noqa: N801  (CuPy's name)
    """A device array: a NumPy array the host may only read through ``get()``/``asnumpy``."""

    __slots__ = ("_a", "_base", "__weakref__")
    __array_priority__ = 100.0

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C") -> None:
        self._a = np.empty(shape, dtype, order=order)
        _track(self)

    @classmethod
    def _from(cls, a: np.ndarray) -> ndarray:
        out = object.__new__(cls)
        out._a = a
        _track(out)
        return out

    # --- the host boundary -------------------------------------------------------------------
    def __array__(self, *args, **kwargs):
        raise TypeError(_IMPLICIT)

    def get(self, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
        host_reads.add("get")
        data = np.array(self._a, order=order)
        if out is not None:
            out[...] = data
            return out
        return data

    def set(self, arr: np.ndarray, stream=None) -> None:
        self._a[...] = arr

    def item(self, *args):
        host_reads.add("item")
        return self._a.item(*args)

    def tolist(self):
        host_reads.add("tolist")
        return self._a.tolist()

    def __bool__(self) -> bool:
        host_reads.add("bool")
        return bool(self._a)

    def __float__(self) -> float:
        host_reads.add("float")
        return float(self._a)

    def __int__(self) -> int:
        host_reads.add("int")
        return int(self._a)

    def __complex__(self) -> complex:
        host_reads.add("complex")
        return complex(self._a)

    def __repr__(self) -> str:
        return repr(self._a)

    def __str__(self) -> str:
        return str(self._a)

    def __format__(self, spec: str) -> str:
        return format(self._a, spec)

    def __reduce__(self):
        return (_from_host, (np.array(self._a),))

    def __copy__(self) -> ndarray:
        return ndarray._from(self._a.copy())

    def __deepcopy__(self, memo) -> ndarray:
        return ndarray._from(self._a.copy())

    # --- NumPy's protocols: device arrays stay on the device, host arrays are refused ------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__
        if name not in _PUBLIC:
            return NotImplemented
        target = getattr(_this, name)
        if method != "__call__":
            target = getattr(target, method)
        return target(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        name = func.__name__
        if name not in _PUBLIC:
            return NotImplemented
        return getattr(_this, name)(*args, **kwargs)

    # --- attributes ---------------------------------------------------------------------------
    @property
    def device(self) -> cuda.Device:
        return cuda.Device(0)

    @property
    def shape(self) -> tuple:
        return self._a.shape

    @shape.setter
    def shape(self, value) -> None:
        self._a.shape = value

    @property
    def dtype(self) -> np.dtype:
        return self._a.dtype

    @property
    def ndim(self) -> int:
        return self._a.ndim

    @property
    def size(self) -> int:
        return self._a.size

    @property
    def strides(self) -> tuple:
        return self._a.strides

    @property
    def itemsize(self) -> int:
        return self._a.itemsize

    @property
    def nbytes(self) -> int:
        return self._a.nbytes

    @property
    def flags(self):
        return self._a.flags

    @property
    def __cuda_array_interface__(self) -> dict:
        """CuPy's export of the device pointer (version 3); here the backing array's address."""
        a = self._a
        strides = None if a.flags.c_contiguous else a.strides
        data = (a.__array_interface__["data"][0], False)
        return {
            "shape": a.shape,
            "typestr": a.dtype.str,
            "data": data,
            "strides": strides,
            "version": 3,
        }

    @property
    def base(self):
        if self._base is not None:  # the device array this one is a view of
            return self._base
        return None if self._a.base is None else ndarray._from(self._a.base)

    def __getattr__(self, name: str):
        if name not in _NDARRAY_ATTRS or name.startswith("__"):
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        value = _indexing.method(self._a, name)  # take/put wrap indices, as CuPy's
        if callable(value):

            @functools.wraps(value)
            def method(*args, **kwargs):
                return _wrap(value(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

            return method
        return _wrap(value)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (_wrap(row) for row in self._a)

    def __getitem__(self, key):
        return _wrap(self._a[_indexing.wrap_key(_unwrap(key, host_ok=True), self._a.shape)])

    def __setitem__(self, key, value) -> None:
        self._a[_indexing.wrap_key(_unwrap(key, True), self._a.shape)] = _unwrap(value, True)

    __hash__ = None  # type: ignore[assignment]

    # --- operators ----------------------------------------------------------------------------
    __add__ = _binary(lambda a, b: a + b)
    __radd__ = _binary(lambda a, b: b + a)
    __sub__ = _binary(lambda a, b: a - b)
    __rsub__ = _binary(lambda a, b: b - a)
    __mul__ = _binary(lambda a, b: a * b)
    __rmul__ = _binary(lambda a, b: b * a)
    __truediv__ = _binary(lambda a, b: a / b)
    __rtruediv__ = _binary(lambda a, b: b / a)
    __floordiv__ = _binary(lambda a, b: a // b)
    __rfloordiv__ = _binary(lambda a, b: b // a)
    __mod__ = _binary(lambda a, b: a % b)
    __rmod__ = _binary(lambda a, b: b % a)
    __pow__ = _binary(lambda a, b: a**b)
    __rpow__ = _binary(lambda a, b: b**a)
    __matmul__ = _binary(lambda a, b: _matmul(a, b))
    __rmatmul__ = _binary(lambda a, b: _matmul(b, a))
    __and__ = _binary(lambda a, b: a & b)
    __rand__ = _binary(lambda a, b: b & a)
    __or__ = _binary(lambda a, b: a | b)
    __ror__ = _binary(lambda a, b: b | a)
    __xor__ = _binary(lambda a, b: a ^ b)
    __rxor__ = _binary(lambda a, b: b ^ a)
    __lshift__ = _binary(lambda a, b: a << b)
    __rshift__ = _binary(lambda a, b: a >> b)
    __eq__ = _binary(lambda a, b: a == b)  # type: ignore[assignment]
    __ne__ = _binary(lambda a, b: a != b)  # type: ignore[assignment]
    __lt__ = _binary(lambda a, b: a < b)
    __le__ = _binary(lambda a, b: a <= b)
    __gt__ = _binary(lambda a, b: a > b)
    __ge__ = _binary(lambda a, b: a >= b)
    __iadd__ = _inplace(np.ndarray.__iadd__)
    __isub__ = _inplace(np.ndarray.__isub__)
    __imul__ = _inplace(np.ndarray.__imul__)
    __itruediv__ = _inplace(np.ndarray.__itruediv__)
    __ifloordiv__ = _inplace(np.ndarray.__ifloordiv__)
    __imod__ = _inplace(np.ndarray.__imod__)
    __ipow__ = _inplace(np.ndarray.__ipow__)
    __iand__ = _inplace(np.ndarray.__iand__)
    __ior__ = _inplace(np.ndarray.__ior__)
    __ixor__ = _inplace(np.ndarray.__ixor__)

    def __neg__(self) -> ndarray:
        return _wrap(-self._a)

    def __pos__(self) -> ndarray:
        return _wrap(+self._a)

    def __abs__(self) -> ndarray:
        return _wrap(abs(self._a))

    def __invert__(self) -> ndarray:
        return _wrap(~self._a)


def _from_host(a: np.ndarray) -> ndarray:
    return ndarray._from(a)


# ----------------------------------------------------------------------------------------------
# The namespace
# ----------------------------------------------------------------------------------------------
_HOST_OK = frozenset({"asarray", "array", "asanyarray", "ascontiguousarray", "asfortranarray"})


def _check_bf16(name: str, args) -> None:
    if _BF16 is None or name not in _UFUNCS or name in _BF16_UFUNCS:
        return
    for a in args:
        if getattr(a, "dtype", None) == _BF16:
            raise TypeError(
                f"Wrong type ({a.dtype}) of arguments for cupy_{name}: "
                "CuPy has no bfloat16 loop for this ufunc"
            )


class ufunc:  # noqa: N801
    """A CuPy ufunc: NumPy's, restricted to device arrays and to CuPy's loops and methods."""

    def __init__(self, np_ufunc: np.ufunc) -> None:
        self._u = np_ufunc
        self.__name__ = self.name = np_ufunc.__name__
        self.nin, self.nout, self.nargs = np_ufunc.nin, np_ufunc.nout, np_ufunc.nargs

    def __repr__(self) -> str:
        return f"<ufunc '{self.name}'>"

    def _run(self, fn, args, kwargs):
        args = _unwrap(args)
        kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        _check_bf16(self.name, args)
        return _wrap(fn(*args, **kwargs))

    def __call__(self, *args, **kwargs):
        return self._run(_matmul if self.name == "matmul" else self._u, args, kwargs)

    def __getattr__(self, name: str):
        if name not in _UFUNC_METHODS or name.startswith("_"):
            raise AttributeError(f"'cupy.ufunc' object has no attribute '{name}'")
        method = getattr(self._u, name)
        if name == "accumulate" and self.name in ("maximum", "minimum"):

            def refused(*args, **kwargs):  # CuPy 14's message, seen on a GPU
                raise NotImplementedError(f"`cupy_{self.name}.accumulate` is not supported yet")

            return refused
        if name == "at":  # in place on the device array: NumPy mutates the wrapped data

            def at(a, indices, b=None):
                args = (a, indices) if b is None else (a, indices, b)
                args = _indexing.wrap_at(_unwrap(args))  # out-of-range indices wrap
                _check_bf16(self.name, args[:1])
                method(*args)

            return at
        return lambda *args, **kwargs: self._run(method, args, kwargs)


def _function(name: str, np_func):
    host_ok = name in _HOST_OK

    @functools.wraps(np_func)
    def call(*args, **kwargs):
        args = _unwrap(args, host_ok)
        kwargs = {k: _unwrap(v, host_ok) for k, v in kwargs.items()}
        return _wrap(np_func(*args, **kwargs))

    return call


def asnumpy(a, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
    """A host copy (NumPy arrays and scalars are converted as they are)."""
    if type(a) is ndarray:
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def get_array_module(*args):
    return _this if any(type(a) is ndarray for a in args) else np


class _MemoryPool:
    """``cupy.get_default_memory_pool()``: byte counts over the live device arrays."""

    def used_bytes(self) -> int:
        seen, total = set(), 0
        for ref in list(_live.values()):
            arr = ref()
            if arr is None:
                continue
            owner = arr._a if arr._a.base is None else None
            if owner is not None and id(owner) not in seen:
                seen.add(id(owner))
                total += owner.nbytes
        return total

    def total_bytes(self) -> int:
        return self.used_bytes()

    def free_bytes(self) -> int:
        return 0

    def free_all_blocks(self, stream=None) -> None:
        pass

    def n_free_blocks(self) -> int:
        return 0

    def get_limit(self) -> int:
        return 0

    def set_limit(self, size=None, fraction=None) -> None:
        pass


_pool = _MemoryPool()


def get_default_memory_pool() -> _MemoryPool:
    return _pool


def get_default_pinned_memory_pool() -> _MemoryPool:
    return _MemoryPool()


_OWN = {
    "ndarray": ndarray,
    "ufunc": ufunc,
    "asnumpy": asnumpy,
    "get_array_module": get_array_module,
    "get_default_memory_pool": get_default_memory_pool,
    "get_default_pinned_memory_pool": get_default_pinned_memory_pool,
    "ElementwiseKernel": _kernels.ElementwiseKernel,
    "ReductionKernel": _kernels.ReductionKernel,
}


def _wrap_module(np_module, name: str, allowed=None) -> types.ModuleType:
    """A namespace over a NumPy submodule whose functions take and give device arrays."""
    mod = types.ModuleType(name)

    def getattr_(attr: str):
        if attr.startswith("_") or (allowed is not None and attr not in allowed):
            raise AttributeError(f"module '{name}' has no attribute '{attr}'")
        value = getattr(np_module, attr)
        return _function(attr, value) if callable(value) else value

    mod.__getattr__ = getattr_  # type: ignore[method-assign]
    return mod


_cache: dict[str, Any] = {}


def __getattr__(name: str):
    if name in _cache:
        return _cache[name]
    if name not in _PUBLIC:
        raise AttributeError(f"module 'cupy' has no attribute '{name}'")
    if name in _OWN:
        value = _OWN[name]
    elif name == "lib":
        value = types.SimpleNamespace(
            stride_tricks=_wrap_module(
                np.lib.stride_tricks,
                "cupy.lib.stride_tricks",
                {"as_strided", "sliding_window_view"},
            )
        )
    elif name in ("linalg", "fft"):
        value = _wrap_module(getattr(np, name), f"cupy.{name}")
    else:
        np_value = getattr(np, name, None)
        if np_value is None or isinstance(np_value, types.ModuleType):
            raise AttributeError(f"cupy.{name} exists in CuPy but the stand-in does not provide it")
        if isinstance(np_value, np.ufunc):
            value = ufunc(np_value)
        elif isinstance(np_value, type) or not callable(np_value):
            value = np_value  # dtypes (cupy.float32 is numpy.float32), constants, finfo...
        else:
            value = _function(name, _indexing.FUNCTIONS.get(name, np_value))
    _cache[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(_PUBLIC)


import importlib  # noqa: E402
import sys  # noqa: E402

_this = sys.modules[__name__]
# import_module, not ``from . import``: that would ask this module's __getattr__ first.
cuda = importlib.import_module(f"{__name__}._cuda")
cupyx = importlib.import_module(f"{__name__}._cupyx")
random = importlib.import_module(f"{__name__}._rng")
