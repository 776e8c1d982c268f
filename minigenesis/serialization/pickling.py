"""How objects become pickle opcodes, and how a trusted (weights_only=False) load reads them.

Saving: ``CheckpointPickler`` (protocol 5) changes how a few kinds of objects reduce.
- NumPy arrays of plain numeric dtypes (bool, int, uint, float, complex, and ml_dtypes' bfloat16,
  float8 ...) reduce to ``_rebuild_array(PickleBuffer(raw bytes), dtype_token, shape, fortran)``.
  The buffer is a view, so the bytes go out of band, straight to the file, never copied into the
  pickle stream. The dtype is a short string ('<f4', 'ml_dtypes:bfloat16'), never a pickled
  ``numpy.dtype``: the safe loader must not let a file build a dtype (see ``restricted.py``).
  Arrays of other dtypes (strings, dates, records, objects) keep NumPy's own reduce: they load
  only with ``weights_only=False``.
- A NumPy array that views part of another (a tensor made by slicing, transposing, viewing
  another tensor) reduces to ``_rebuild_view(root, dtype_token, shape, strides, byte_offset)``,
  where ``root`` is the array that owns the memory, pickled once (pickle's memo) however many
  views name it. Loading rebuilds every view on the one loaded root: tensors that shared memory
  when saved share it when loaded, with the same strides, as PyTorch saves a storage once.
- A meta tensor's data-less array reduces to ``_rebuild_meta(dtype_token, shape)``: no bytes, as
  PyTorch saves a meta tensor (it loads on meta, whatever ``map_location`` says).
- NumPy scalars of those dtypes reduce to ``_rebuild_scalar(raw bytes, dtype_token)``, and an
  ``mg.device`` to ``device("cuda:0")``, for the same reason.
- Tensors reduce as they always do (``Tensor.__reduce_ex__``: the host array and requires_grad;
  a Parameter through ``_rebuild_parameter``), wrapped in ``_rebuild_located(rebuild, args,
  location)``, which records where the tensor lived ("cpu", "cuda:0") so ``map_location`` can send
  it somewhere else, and by default sends it back.

Loading: ``weights_only=True`` (the default) never reaches ``pickle.Unpickler``: ``restricted.py``
interprets the stream itself, opcode by opcode, and calls nothing but the rebuild functions here
(with checked arguments) and a few builtin containers. ``CheckpointUnpickler`` below is the
trusted path: the normal unpickler, which can run any code the file names.
"""

from __future__ import annotations

import functools
import math
import pickle
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from .._tensor import Tensor
from ..backend import device, device_of, get_array_module, to_device, to_numpy
from ..meta_array import MetaArray, meta_like
from .device_storage import DeviceStorages, HostRoots
from .format import CheckpointError

# The public home of the rebuild functions: pickles name them through it, so moving code between
# files in this package never breaks old checkpoints.
_HOME = "minigenesis.serialization"

# Globals that moved since files were written with them: (module, name) in an old file -> today's.
# Both loaders (the trusted one below, the weights-only one in restricted.py) read through it.
RENAMED = {
    ("minigenesis.tensor", "_rebuild_tensor"): ("minigenesis._tensor", "_rebuild_tensor"),
}


class UnsafeCheckpointError(CheckpointError, pickle.UnpicklingError):
    """A ``weights_only=True`` load met something it does not allow: a global outside the
    allow-list, a forbidden opcode, a non-numeric array dtype."""


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
    """A string that names ``dt`` safely, or None for dtypes this path does not store (strings,
    dates, records and objects go through NumPy's own pickling, refused by a weights-only load)."""
    if dt.hasobject or dt.fields is not None or dt.subdtype is not None:
        return None
    if dt.type.__module__ == "numpy" and dt.kind in "biufc":
        return dt.str  # '<f4', '|b1', '>i8', '<c16' ...: byte order and size included
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
    """Unpickle an array: view the buffer's bytes as ``dtype`` with ``shape`` (no copy).

    Refuses object and structured dtypes here, on any load. (A ``weights_only=True`` load checks
    more before it calls this: a numeric token, raw-byte buffers, a shape of small ints.)
    Older files may hold '<U3' or datetime tokens: those still load with weights_only=False.
    """
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


def _rebuild_view(
    root: np.ndarray, token: str, shape: tuple, strides: tuple, offset: int
) -> np.ndarray:
    """Unpickle a view: ``shape`` elements of ``dtype`` at byte ``offset + sum(i_k * strides_k)``
    of ``root``'s memory (no copy, so views of one root share their elements again).

    Every element must lie inside the root: the lowest address is ``offset`` plus the negative
    strides times ``(n - 1)``, the highest the positive ones plus one item."""
    dt = _dtype_from_token(token)
    ints = (shape, strides)
    if (
        type(root) is not np.ndarray
        or not root.flags.c_contiguous
        or not all(isinstance(t, tuple) and all(type(n) is int for n in t) for t in ints)
        or len(shape) != len(strides)
        or type(offset) is not int
        or any(n < 0 for n in shape)
    ):
        raise CheckpointError("_rebuild_view: a view needs a contiguous root, int shape/strides")
    if math.prod(shape) == 0:
        return np.empty(shape, dtype=dt)
    low = offset + sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0)
    high = offset + sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0) + dt.itemsize
    if low < 0 or high > root.nbytes:
        raise CheckpointError(
            f"_rebuild_view: bytes {low}..{high} of a view outside its {root.nbytes}-byte root"
        )
    return np.ndarray(shape, dtype=dt, buffer=root, offset=offset, strides=strides)


def _view_reduce(arr: np.ndarray) -> tuple | None:
    """``(_rebuild_view, args)`` for a writeable view of a plain contiguous NumPy root, else
    None (the array is saved on its own, as a contiguous copy of its elements)."""
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is arr or type(root) is not np.ndarray or not root.flags.c_contiguous:
        return None
    token = _dtype_token(arr.dtype)
    # Read-only views (broadcasts) are saved as copies: a loaded one must be writable.
    if token is None or _dtype_token(root.dtype) is None or not arr.flags.writeable:
        return None
    offset = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return (_rebuild_view, (root, token, arr.shape, arr.strides, offset))


def _rebuild_meta(token: str, shape: tuple) -> MetaArray:
    """Unpickle a meta tensor's array: its dtype and shape, no data (as PyTorch saves one)."""
    if not isinstance(shape, tuple) or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise CheckpointError(f"_rebuild_meta: bad shape {shape!r}")
    return meta_like(_dtype_from_token(token), shape)


def _rebuild_scalar(raw: bytes, token: str) -> np.generic:
    """Unpickle a NumPy scalar (``np.float32(1.5)``, a bfloat16 ...) from its bytes."""
    dt = _dtype_from_token(token)
    if len(raw) != dt.itemsize:
        raise CheckpointError(f"_rebuild_scalar: {len(raw)} bytes for one {dt} ({dt.itemsize})")
    return np.frombuffer(raw, dtype=dt)[0]


def _place(t: Tensor, location: str, storages: DeviceStorages | None = None) -> Tensor:
    """Move a freshly rebuilt tensor to ``location`` in place (its class and identity stay).
    A meta tensor stays on meta (it has no data to move), as PyTorch's load keeps it.
    With ``storages`` (one per load), tensors that view one loaded buffer land on a GPU as views
    of one device copy of it (``device_storage.py``); without, each is copied on its own."""
    target = device(location)
    if device_of(t._data) != target and type(t._data) is not MetaArray:
        if storages is not None and target.type == "cuda" and type(t._data) is np.ndarray:
            t._data = storages.to_device(t._data, target)
        else:
            t._data = to_device(t._data, target)
    return t


def _rebuild_located(rebuild: Callable, args: tuple, location: str) -> Tensor:
    """Unpickle a tensor and put it back where it was saved (``map_location=None``).

    A plain ``pickle.load`` calls this; ``CheckpointUnpickler`` substitutes a version that applies
    its ``map_location`` instead.
    """
    return _place(rebuild(*args), location)


class PlacementError(Exception):
    """Carries an error raised by ``map_location`` (the user's callable, a missing GPU) out of
    the unpickler, so that ``load`` re-raises it unchanged instead of calling the file broken."""

    def __init__(self, original: Exception) -> None:
        super().__init__(str(original))
        self.original = original


def call_placer(place: Callable[[Tensor, str], Tensor], t: Tensor, location: str) -> Tensor:
    """``place(t, location)``, with its errors wrapped in ``PlacementError``."""
    try:
        return place(t, location)
    except Exception as err:
        raise PlacementError(err) from err


for _f in (_rebuild_array, _rebuild_located, _rebuild_meta, _rebuild_scalar, _rebuild_view):
    _f.__module__ = _HOME


# ----------------------------------------------------------------------------------------------
# Saving
# ----------------------------------------------------------------------------------------------
class CheckpointPickler(pickle.Pickler):
    """Protocol-5 pickler that sends array bytes out of band and records tensor locations."""

    def __init__(self, file: Any, buffer_callback: Callable) -> None:
        super().__init__(file, protocol=5, buffer_callback=buffer_callback)
        self._host_roots = HostRoots()  # GPU storages copied to the host, once each

    def _tensor_reduce(self, obj: Tensor) -> tuple:
        """``obj.__reduce_ex__(5)``; a GPU tensor's array is first replaced by a NumPy view of
        its storage's one host copy (a shallow stand-in of the same class carries it), so views
        of one GPU storage are saved as views of one root, as CPU views are."""
        if type(obj._data) is np.ndarray or type(obj._data) is MetaArray:
            return obj.__reduce_ex__(5)
        if get_array_module(obj._data) is np:
            return obj.__reduce_ex__(5)
        host = object.__new__(type(obj))
        host.__dict__.update(obj.__dict__)  # (the tensor itself is never changed)
        host._data = self._host_roots.host_view(obj._data)
        return type(obj).__reduce_ex__(host, 5)

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is device:  # by its name, not by slot state (which would need BUILD)
            return (device, (str(obj),))
        if isinstance(obj, np.generic):
            token = _dtype_token(obj.dtype)
            return NotImplemented if token is None else (_rebuild_scalar, (obj.tobytes(), token))
        if type(obj) is MetaArray and (token := _dtype_token(obj.dtype)) is not None:
            return (_rebuild_meta, (token, obj.shape))  # (no data: a meta tensor's array)
        if isinstance(obj, Tensor):
            rebuild, args, *rest = self._tensor_reduce(obj)
            if rest and isinstance(rest[0], dict):
                # Attributes the user set on a tensor are not saved: a weights_only load could
                # not rebuild them (it runs no BUILD on a tensor).
                rest = [None, *rest[1:]]
            location = str(device_of(obj._data))
            return (_rebuild_located, (rebuild, args, location), *rest)
        # Plain arrays only: a subclass such as a masked array carries more than its data, so it
        # keeps its own reduce (refused by weights_only=True, exact with weights_only=False).
        if type(obj) is np.ndarray and (view := _view_reduce(obj)) is not None:
            return view  # its root is pickled once, so views of one root stay views of one
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
# Loading a trusted file (weights_only=False); the safe path is restricted.py
# ----------------------------------------------------------------------------------------------
def _located_and_placed(
    place: Callable[[Tensor, str], Tensor], rebuild: Callable, args: tuple, location: str
) -> Tensor:
    """``_rebuild_located`` with the load's ``map_location`` applied instead of the default."""
    t = rebuild(*args)
    if not isinstance(t, Tensor):
        raise CheckpointError(f"a tensor record rebuilt a {type(t).__name__}, not a Tensor")
    return call_placer(place, t, location)


class CheckpointUnpickler(pickle.Unpickler):
    """The normal unpickler (it resolves any global: only for trusted files) that sends every
    tensor where ``place(tensor, saved_location)`` says."""

    def __init__(self, file: Any, buffers: list, place: Callable[[Tensor, str], Tensor]) -> None:
        super().__init__(file, buffers=buffers)
        # A partial of a module function, not a bound method: a bound method would tie the
        # unpickler and its memo into a reference cycle.
        self._located = functools.partial(_located_and_placed, place)

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (_HOME, "_rebuild_located"):
            return self._located
        module, name = RENAMED.get((module, name), (module, name))
        return super().find_class(module, name)
