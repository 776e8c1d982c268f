"""How objects become pickle opcodes, and the restricted unpickler that turns them back.

Saving: ``CheckpointPickler`` (protocol 5) changes how two kinds of objects reduce.
- NumPy arrays of plain numeric dtypes (ml_dtypes' bfloat16 included) reduce to
  ``_rebuild_array(PickleBuffer(raw bytes), dtype_token, shape, fortran)``. The buffer is a
  view, so the bytes go out of band, straight to the file, never copied into the pickle stream.
  (NumPy's own protocol-5 reduce does the same for builtin dtypes but copies bfloat16 arrays in
  band, and names ``numpy._core`` functions that NumPy 1.x lacks.)
- Tensors reduce as they always do (``Tensor.__reduce_ex__``: the host array and requires_grad;
  a Parameter through ``_rebuild_parameter``), wrapped in ``_rebuild_located(rebuild, args,
  location)``, which records where the tensor lived ("cpu", "cuda:0") so ``map_location`` can send
  it somewhere else, and by default sends it back.

Loading: ``CheckpointUnpickler.find_class`` resolves every global the stream names. With
``weights_only=True`` only the names in ``allowed_globals()`` resolve; anything else (``os.system``,
``builtins.eval``, any user class) raises ``UnsafeCheckpointError`` before it is called, so a
malicious file cannot run code. Arrays are never built from raw bytes with an object dtype (that
would let a file forge pointers): ``_rebuild_array`` refuses such dtypes, and NumPy's own
``_frombuffer``/``ndarray.__setstate__`` refuse object arrays from bytes too.
"""

from __future__ import annotations

import collections
import functools
import importlib
import math
import pickle
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from ..backend import device, device_of, get_array_module, to_device, to_numpy
from ..tensor import Tensor
from .format import CheckpointError

# The public home of the rebuild functions: pickles name them through it, so moving code between
# files in this package never breaks old checkpoints.
_HOME = "minigenesis.serialization"


class UnsafeCheckpointError(CheckpointError, pickle.UnpicklingError):
    """A ``weights_only=True`` load met a global that is not on the allow-list."""


def _ml_dtype_names() -> frozenset[str]:
    """ml_dtypes' scalar types (bfloat16, float8_*, int4 ...): the extra dtypes we may store."""
    return frozenset(
        n
        for n in dir(ml_dtypes)
        if isinstance(getattr(ml_dtypes, n), type) and issubclass(getattr(ml_dtypes, n), np.generic)
    )


_ML_DTYPES = _ml_dtype_names()


# ----------------------------------------------------------------------------------------------
# Rebuild functions (named in the pickle stream)
# ----------------------------------------------------------------------------------------------
def _dtype_token(dt: np.dtype) -> str | None:
    """A string that names ``dt`` safely, or None for dtypes this path does not store
    (object, structured and subarray dtypes go through NumPy's own pickling)."""
    if dt.hasobject or dt.fields is not None or dt.subdtype is not None:
        return None
    if dt.type.__module__ == "numpy":
        return dt.str  # '<f4', '|b1', '>i8', '<U3' ...: byte order and size included
    if dt.type.__module__ == "ml_dtypes" and dt.type.__name__ in _ML_DTYPES:
        return "ml_dtypes:" + dt.type.__name__
    return None


def _dtype_from_token(token: str) -> np.dtype:
    if not isinstance(token, str):
        raise CheckpointError(f"_rebuild_array: dtype token must be a string, got {token!r}")
    if token.startswith("ml_dtypes:"):
        name = token[len("ml_dtypes:") :]
        if name not in _ML_DTYPES:
            raise CheckpointError(f"_rebuild_array: unknown ml_dtypes type {name!r}")
        return np.dtype(getattr(ml_dtypes, name))
    try:
        dt = np.dtype(token)
    except TypeError as err:
        raise CheckpointError(f"_rebuild_array: bad dtype {token!r} ({err})") from None
    if _dtype_token(dt) is None:  # never view raw bytes as object pointers
        raise CheckpointError(f"_rebuild_array: refused dtype {token!r} (object or structured)")
    return dt


def _rebuild_array(buf: Any, token: str, shape: tuple, fortran: bool) -> np.ndarray:
    """Unpickle an array: view the buffer's bytes as ``dtype`` with ``shape`` (no copy)."""
    dt = _dtype_from_token(token)
    if not isinstance(shape, tuple) or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise CheckpointError(f"_rebuild_array: bad shape {shape!r}")
    if isinstance(buf, memoryview) and isinstance(buf.obj, np.ndarray):
        # The loader's buffers are private allocations; a read-only source array does not make
        # the rebuilt one read-only.
        buf = buf.obj
    flat = np.frombuffer(buf, dtype=np.uint8)
    count = math.prod(shape)
    if flat.size != count * dt.itemsize:
        raise CheckpointError(
            f"_rebuild_array: {flat.size} bytes cannot hold shape {shape} of {dt} "
            f"({count * dt.itemsize} bytes)"
        )
    if count == 0 or dt.itemsize == 0:
        return np.empty(shape, dtype=dt)
    return flat.view(dt).reshape(shape, order="F" if fortran else "C")


def _place(t: Tensor, location: str) -> Tensor:
    """Move a freshly rebuilt tensor to ``location`` in place (its class and identity stay)."""
    target = device(location)
    if device_of(t._data) != target:
        t._data = to_device(t._data, target)
    return t


def _rebuild_located(rebuild: Callable, args: tuple, location: str) -> Tensor:
    """Unpickle a tensor and put it back where it was saved (``map_location=None``).

    A plain ``pickle.load`` calls this; ``CheckpointUnpickler`` substitutes a version that applies
    its ``map_location`` instead.
    """
    return _place(rebuild(*args), location)


_rebuild_array.__module__ = _rebuild_located.__module__ = _HOME


# ----------------------------------------------------------------------------------------------
# Saving
# ----------------------------------------------------------------------------------------------
class CheckpointPickler(pickle.Pickler):
    """Protocol-5 pickler that sends array bytes out of band and records tensor locations."""

    def __init__(self, file: Any, buffer_callback: Callable) -> None:
        super().__init__(file, protocol=5, buffer_callback=buffer_callback)

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            rebuild, args, *rest = obj.__reduce_ex__(5)
            location = str(device_of(obj._data))
            return (_rebuild_located, (rebuild, args, location), *rest)
        # Plain arrays only: a subclass such as a masked array carries more than its data, so it
        # keeps its own reduce (refused by weights_only=True, exact with weights_only=False).
        if type(obj) in (np.ndarray, np.memmap) or get_array_module(obj) is not np:
            arr = to_numpy(obj)  # CuPy arrays (outside tensors) are stored as NumPy arrays
            token = _dtype_token(arr.dtype)
            if token is None:
                return NotImplemented  # NumPy's own reduce (allow-listed on load)
            fortran = arr.flags.f_contiguous and not arr.flags.c_contiguous
            if not (arr.flags.c_contiguous or fortran):
                arr = np.ascontiguousarray(arr)  # the one copy: a strided view has no flat bytes
            flat = arr.ravel(order="F" if fortran else "C")  # a view of contiguous memory
            raw = pickle.PickleBuffer(flat.view(np.uint8))
            return (_rebuild_array, (raw, token, arr.shape, fortran))
        return NotImplemented


# ----------------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------------
@functools.cache
def allowed_globals() -> dict[tuple[str, str], Any]:
    """Every global a ``weights_only=True`` load may resolve, as {(module, name): object}.

    NumPy names are keyed under ``numpy.core`` (1.x); ``numpy._core`` (2.x) is mapped onto them, so
    files from either NumPy load under either.
    """
    try:  # NumPy 2
        from numpy._core.multiarray import _reconstruct, scalar
        from numpy._core.numeric import _frombuffer
    except ImportError:  # NumPy 1.x
        from numpy.core.multiarray import _reconstruct, scalar
        from numpy.core.numeric import _frombuffer
    table: dict[tuple[str, str], Any] = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("builtins", "complex"): complex,
        ("builtins", "set"): set,
        ("builtins", "frozenset"): frozenset,
        ("builtins", "bytearray"): bytearray,
        ("builtins", "slice"): slice,
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
        ("numpy.core.multiarray", "scalar"): scalar,
        ("numpy.core.numeric", "_frombuffer"): _frombuffer,
        (_HOME, "_rebuild_array"): _rebuild_array,
        (_HOME, "_rebuild_located"): _rebuild_located,
    }
    table.update({("ml_dtypes", n): getattr(ml_dtypes, n) for n in _ML_DTYPES})
    for module, name in (
        ("minigenesis.tensor", "_rebuild_tensor"),
        ("minigenesis.nn.parameter", "_rebuild_parameter"),
        ("minigenesis.dtypes", "get_dtype"),
        ("minigenesis.backend", "device"),
    ):
        try:
            table[module, name] = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):  # a layer this build does not have yet
            pass
    return table


def _normalize(module: str) -> str:
    """NumPy 2 names (``numpy._core.multiarray``) -> the NumPy 1 names the allow-list uses."""
    if module.startswith("numpy._core"):
        return "numpy.core" + module[len("numpy._core") :]
    return module


class CheckpointUnpickler(pickle.Unpickler):
    """Unpickler that resolves only allow-listed globals (``weights_only=True``) and sends every
    tensor where ``place(tensor, saved_location)`` says."""

    def __init__(
        self,
        file: Any,
        buffers: list,
        name: str,
        weights_only: bool,
        place: Callable[[Tensor, str], Tensor],
    ) -> None:
        super().__init__(file, buffers=buffers)
        self._name = name
        self._weights_only = weights_only
        self._place_fn = place

    def _rebuild_located(self, rebuild: Callable, args: tuple, location: str) -> Tensor:
        if not isinstance(args, tuple) or not isinstance(location, str):
            raise CheckpointError(f"{self._name}: malformed tensor record in the pickle")
        t = rebuild(*args)
        if not isinstance(t, Tensor):
            raise CheckpointError(
                f"{self._name}: a tensor record rebuilt a {type(t).__name__}, not a Tensor"
            )
        return self._place_fn(t, location)

    def find_class(self, module: str, name: str) -> Any:
        key = (_normalize(module), name)
        if key == (_HOME, "_rebuild_located"):
            return self._rebuild_located
        found = allowed_globals().get(key)
        if found is not None:
            return found
        if not self._weights_only:
            return super().find_class(module, name)
        raise UnsafeCheckpointError(
            f"{self._name}: weights_only=True refused to load the global '{module}.{name}'. "
            "A weights-only load resolves only tensors, NumPy arrays and dtypes (ml_dtypes "
            "included), builtin scalars and containers and OrderedDict, so that a malicious file "
            "cannot run code. If this file comes from a source you trust, load it with "
            "weights_only=False (unpickling it can then execute arbitrary code)."
        )
