"""The callables a ``weights_only=True`` load lets REDUCE call, each behind a check of its
arguments' exact types, and the refusal that names what else a file asked for.

The interpreter (``restricted.py``) finds a global here by ``(module, name)``; nothing else is
ever called while loading, except the classes and functions a user allowed with
``add_safe_globals`` (``user_globals.py``), which REDUCE calls as the user trusts them.
Arrays come only from raw bytes with a numeric dtype token, tensors only from such arrays,
and every copy a call makes is charged against the file's size (``_Interpreter.charge``).
"""

from __future__ import annotations

import codecs
import collections
import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._tensor import Tensor, _rebuild_tensor
from ..backend import device
from ..dtypes import DType, from_numpy_dtype, get_dtype
from ..meta_array import MetaArray
from ..nn.parameter import _rebuild_parameter
from ..size import Size
from ..sparse_coo import _rebuild_sparse_coo
from . import user_globals as _user
from .pickling import (
    _HOME,
    UnsafeCheckpointError,
    _rebuild_array,
    _rebuild_located,
    _rebuild_meta,
    _rebuild_scalar,
    _rebuild_view,
    call_placer,
)

if TYPE_CHECKING:
    from .restricted import _Interpreter

_MAX_NDIM = 32
_LOCATION = re.compile(r"meta|(cpu|cuda)(:(0|[1-9][0-9]{0,2}))?")  # cuda:N, N < 1000


class _Global:
    """An allow-listed global on the stack. REDUCE calls it through ``call``, which checks the
    arguments first. A built-in entry never reaches the result; one the user allowed
    (``user=True``, from add_safe_globals) is stored as the object itself where it is a value,
    as PyTorch's loader does (a module's ``activation = F.relu`` attribute)."""

    __slots__ = ("qualname", "obj", "call", "user")

    def __init__(
        self,
        qualname: str,
        obj: Any,
        call: Callable[[_Interpreter, tuple], Any],
        user: bool = False,
    ) -> None:
        self.qualname, self.obj, self.call, self.user = qualname, obj, call, user

    def __repr__(self) -> str:
        return self.qualname


def as_value(value: Any) -> Any:
    """``value`` as stored in a container or an object's state: a global the user allowed
    becomes the object itself; anything else is unchanged."""
    if type(value) is _Global and value.user:
        return value.obj
    return value


def _trusted_call(obj: Callable) -> Callable[[_Interpreter, tuple], Any]:
    """REDUCE on a global the user allowed: ``obj(*args)`` (the user trusts the call)."""

    def call(u: _Interpreter, args: tuple) -> Any:
        if _user.made_not_called(obj):
            raise UnsafeCheckpointError(
                f"{_user.name_of(obj)} may be made from its saved state here, not called"
            )
        return obj(*args)

    return call


def _args(u: _Interpreter, qualname: str, args: tuple, *types: tuple) -> None:
    """Refuse ``args`` unless it has one value of the listed exact types per position."""
    if len(args) == len(types):
        for arg, ok in zip(args, types):
            if type(arg) not in ok:
                break
        else:
            return
    got = ", ".join(type(a).__name__ for a in args)
    want = ", ".join("|".join(t.__name__ for t in ok) for ok in types)
    u.fail(f"{qualname} called with ({got}); it takes ({want})")


def _array_from_file(u: _Interpreter, args: tuple) -> np.ndarray:
    q = "_rebuild_array"
    _args(u, q, args, (bytes, bytearray, np.ndarray, memoryview), (str,), (tuple,), (bool,))
    buf, token, shape, _ = args
    if type(buf) is memoryview:
        if type(buf.obj) not in (np.ndarray, bytes, bytearray):
            u.fail(f"{q}: a buffer view of a {type(buf.obj).__name__}")
        buf = buf.obj  # private to this load: a read-only view need not stay read-only
    if type(buf) is np.ndarray and (buf.dtype != np.uint8 or buf.ndim != 1):
        u.fail(f"{q}: the buffer must be raw bytes, not an array of {buf.dtype}")
    if len(token) > 32 or not _is_numeric_token(token):  # (a long one never enters the cache)
        raise UnsafeCheckpointError(
            f"{q}: dtype {token[:40]!r} is not a plain numeric dtype (bool, int, uint, float, "
            "complex, or an ml_dtypes type): a weights_only=True load builds nothing else from "
            "raw bytes. If you trust this file, load it with weights_only=False"
        )
    if len(shape) > _MAX_NDIM or any(type(n) is not int or not 0 <= n < 2**62 for n in shape):
        u.fail(f"{q}: a shape must be up to {_MAX_NDIM} non-negative ints")
    return _rebuild_array(buf, *args[1:])


@functools.lru_cache(maxsize=256)
def _is_numeric_token(token: str) -> bool:
    if token.startswith("ml_dtypes:"):
        return True  # _dtype_from_token checks the name against ml_dtypes' own types
    return re.fullmatch(r"[<>|=][biufc][0-9]{1,2}", token) is not None


def _view_from_file(u: _Interpreter, args: tuple) -> np.ndarray:
    q = "_rebuild_view"
    _args(u, q, args, (np.ndarray,), (str,), (tuple,), (tuple,), (int,))
    if len(args[1]) > 32 or not _is_numeric_token(args[1]):
        u.fail(f"{q}: dtype {args[1][:40]!r} is not a plain numeric dtype")
    shape, strides = args[2], args[3]
    if len(shape) > _MAX_NDIM or any(type(n) is not int or not 0 <= n < 2**62 for n in shape):
        u.fail(f"{q}: a shape must be up to {_MAX_NDIM} non-negative ints")
    if any(type(s) is not int or abs(s) >= 2**62 for s in strides):
        u.fail(f"{q}: strides must be ints")
    return _rebuild_view(*args)  # (it checks that every element lies inside the root)


def _meta_from_file(u: _Interpreter, args: tuple) -> np.ndarray:
    q = "_rebuild_meta"
    _args(u, q, args, (str,), (tuple,))
    if len(args[0]) > 32 or not _is_numeric_token(args[0]):
        u.fail(f"{q}: dtype {args[0][:40]!r} is not a plain numeric dtype")
    if len(args[1]) > _MAX_NDIM or any(type(n) is not int or not 0 <= n < 2**62 for n in args[1]):
        u.fail(f"{q}: a shape must be up to {_MAX_NDIM} non-negative ints")
    return _rebuild_meta(*args)  # (data-less: nothing of the shape's size is allocated)


def _scalar_from_file(u: _Interpreter, args: tuple) -> np.generic:
    _args(u, "_rebuild_scalar", args, (bytes,), (str,))
    if len(args[1]) > 32 or not _is_numeric_token(args[1]):
        u.fail(f"_rebuild_scalar: dtype {args[1][:40]!r} is not a plain numeric dtype")
    return _rebuild_scalar(*args)


def _tensor_from_file(rebuild: Callable) -> Callable[[_Interpreter, tuple], Tensor]:
    def call(u: _Interpreter, args: tuple) -> Tensor:
        _args(u, rebuild.__name__, args, (np.ndarray, MetaArray), (bool,))
        array = args[0]
        from_numpy_dtype(array.dtype)  # TypeError (-> CheckpointError) for a non-tensor dtype
        if not array.flags.writeable:
            u.charge(array.nbytes)  # the rebuild copies it
        return rebuild(array, args[1])

    return call


def _located_from_file(u: _Interpreter, args: tuple) -> Tensor:
    _args(u, "_rebuild_located", args, (_Global,), (tuple,), (str,))
    rebuild, inner, location = args
    if rebuild not in (_CALLABLES[_TENSOR], _CALLABLES[_PARAMETER]):
        u.fail(f"_rebuild_located: {rebuild.qualname} does not rebuild a tensor")
    if not _LOCATION.fullmatch(location):
        u.fail(f"_rebuild_located: bad location {location[:40]!r}")
    t = rebuild.call(u, inner)
    if type(t._data) is not MetaArray:  # (a meta tensor stays data-less)
        u.charge(t._data.nbytes)  # placing may copy it to a device: once per tensor object
    return call_placer(u.place, t, location)


def _device_from_file(u: _Interpreter, args: tuple) -> device:
    _args(u, "device", args, (str,))
    if not _LOCATION.fullmatch(args[0]):
        u.fail(f"device {args[0][:40]!r} (expected 'cpu' or 'cuda:N', N < 1000)")
    return device(args[0])


def _dtype_by_name(u: _Interpreter, args: tuple) -> DType:
    _args(u, "get_dtype", args, (str,))
    return get_dtype(args[0])


def _ordered_dict(u: _Interpreter, args: tuple) -> collections.OrderedDict:
    _args(u, "OrderedDict", args)  # items follow as SETITEMS
    return collections.OrderedDict()


def _copying(kind: type) -> Callable[[_Interpreter, tuple], Any]:
    """``set(list)``, ``frozenset(list)``, ``list(list)`` (protocols 2-3, LRList): charged."""

    def call(u: _Interpreter, args: tuple) -> Any:
        if args == ():
            return kind()
        _args(u, kind.__name__, args, (list,))
        u.charge(len(args[0]))
        if kind is not list:
            for item in args[0]:
                u.check_key(item)
        return kind(args[0])

    return call


def _complex(u: _Interpreter, args: tuple) -> complex:
    _args(u, "complex", args, (float, int), (float, int))
    if any(type(a) is int and a.bit_length() > 1024 for a in args):
        u.fail("complex() with an int too large for a float")
    return complex(*args)


def _size(u: _Interpreter, args: tuple) -> Size:
    """``Size((2, 3))``: a tensor's shape (``x.shape``), from a tuple of ints."""
    _args(u, "Size", args, (tuple,))
    u.charge(len(args[0]))
    if any(type(n) is not int or not 0 <= n < 2**63 for n in args[0]):
        u.fail("Size() with a dimension that is not an int in [0, 2**63)")
    return Size(args[0])


def _sparse_from_file(u: _Interpreter, args: tuple) -> Any:
    """A sparse COO tensor from its parts: tensors already rebuilt from this file's arrays, a
    size of ints; ``sparse_coo_tensor`` checks every index against the size."""
    _args(u, "_rebuild_sparse_coo", args, (Tensor,), (Tensor,), (tuple,), (bool,))
    if len(args[2]) > _MAX_NDIM or any(type(n) is not int or not 0 <= n < 2**63 for n in args[2]):
        u.fail("_rebuild_sparse_coo with a size that is not a tuple of ints in [0, 2**63)")
    try:
        return _rebuild_sparse_coo(*args)
    except RuntimeError as err:  # (an index out of bounds, parts that do not fit together)
        u.fail(f"_rebuild_sparse_coo: {err}")


def _slice(u: _Interpreter, args: tuple) -> slice:
    _args(u, "slice", args, *[(int, type(None))] * 3)
    return slice(*args)


def _encode(u: _Interpreter, args: tuple) -> bytes:
    # Protocol 2 has no bytes opcode: it writes bytes as _codecs.encode(text, "latin1").
    _args(u, "_codecs.encode", args, (str,), (str,))
    if args[1] not in ("latin1", "latin-1"):
        u.fail(f"_codecs.encode with encoding {args[1][:20]!r} (only latin1)")
    u.charge(len(args[0]))
    return args[0].encode("latin-1")


_TENSOR = ("minigenesis._tensor", "_rebuild_tensor")
_PARAMETER = ("minigenesis.nn.parameter", "_rebuild_parameter")


def _callables() -> dict[tuple[str, str], _Global]:
    table = {  # (module, name): (the object, the checked call that REDUCE makes)
        (_HOME, "_rebuild_array"): (_rebuild_array, _array_from_file),
        (_HOME, "_rebuild_scalar"): (_rebuild_scalar, _scalar_from_file),
        (_HOME, "_rebuild_meta"): (_rebuild_meta, _meta_from_file),
        (_HOME, "_rebuild_view"): (_rebuild_view, _view_from_file),
        (_HOME, "_rebuild_located"): (_rebuild_located, _located_from_file),
        _TENSOR: (_rebuild_tensor, _tensor_from_file(_rebuild_tensor)),
        _PARAMETER: (_rebuild_parameter, _tensor_from_file(_rebuild_parameter)),
        ("minigenesis.dtypes", "get_dtype"): (get_dtype, _dtype_by_name),
        ("minigenesis.backend", "device"): (device, _device_from_file),
        ("collections", "OrderedDict"): (collections.OrderedDict, _ordered_dict),
        ("builtins", "set"): (set, _copying(set)),
        ("builtins", "frozenset"): (frozenset, _copying(frozenset)),
        ("builtins", "list"): (list, _copying(list)),
        ("builtins", "complex"): (complex, _complex),
        ("builtins", "slice"): (slice, _slice),
        ("minigenesis.size", "Size"): (Size, _size),
        ("minigenesis.sparse_coo", "_rebuild_sparse_coo"): (_rebuild_sparse_coo, _sparse_from_file),
        ("_codecs", "encode"): (codecs.encode, _encode),
    }
    return {key: _Global(".".join(key), obj, call) for key, (obj, call) in table.items()}


_CALLABLES = _callables()
_MODULE_ALIASES = {"__builtin__": "builtins"}  # protocol 2 spells builtins the Python 2 way

# What NumPy's own pickling names (dtypes, scalars, arrays of strings/dates/records/objects).
_NUMPY_OWN = {
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),
}


def allowed_globals() -> dict[tuple[str, str], Any]:
    """Every global a ``weights_only=True`` load may call, as {(module, name): object}; each
    call's arguments are checked first (see the module docstring)."""
    return {key: g.obj for key, g in _CALLABLES.items()}


def _refusal(module: str, name: str, as_written: str) -> str:
    if (module, name) in _NUMPY_OWN or module == "ml_dtypes":
        why = (
            "it is how NumPy pickles a dtype, a scalar or an array of a non-numeric dtype "
            "(strings, dates, records, objects). Those records can make NumPy read bytes of the "
            "file as memory addresses, so a weights-only load refuses them; save() writes "
            "numeric arrays and scalars without them. "
        )
    else:
        why = (
            "a weights-only load calls only the rebuild functions of tensors, numeric arrays "
            "and a few builtin containers, so that a malicious file cannot run code. If you "
            f"trust this class or function, allow it: mg.serialization.add_safe_globals([{name}])"
            f" (or the context manager mg.serialization.safe_globals([{name}])). "
        )
    return (
        f"weights_only=True refused to load the global '{as_written}.{name}': {why}If this "
        "file comes from a source you trust, load it with weights_only=False (unpickling it "
        "can then execute arbitrary code)."
    )
