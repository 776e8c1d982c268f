"""Checkpoints: pickle-based ``save``/``load`` that is safe, atomic, checksummed and resumable.

::

    mg.save_checkpoint({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "rng": mg.get_rng_state(), "step": step}, "ckpt.pth")
    ckpt = mg.load_checkpoint("ckpt.pth", map_location="cpu")

- Any picklable object: nested dicts, lists, numbers, strings, tensors, NumPy arrays. Tensors keep
  their dtype (float16/bfloat16 bit-exact), requires_grad and class (Parameter); GPU tensors are
  copied to the host and come back to their GPU unless ``map_location`` says otherwise
  (``location.py``).
- The file: header, raw array bytes, pickle, index, CRC32 (``format.py``); a damaged file raises
  ``CheckpointError`` naming the file and the damage, before anything is unpickled.
- Safe by default: ``weights_only=True`` reads the pickle with a small interpreter that allows only
  the opcodes and callables plain data needs and bounds what a file can make it allocate
  (``restricted.py``); ``weights_only=False`` is the normal unpickler, for trusted files.
- Atomic: written to a temporary file, fsynced, then renamed over the target (``atomic.py``).
- Large state dicts stream: array bytes go from the tensors to the file without an intermediate
  copy, and on load each array is read straight into its final memory.

Shared tensors (the same tensor or array object twice, e.g. tied weights) are stored once and come
back shared; so do tensors that view one storage (``t`` and ``t[1:]``), on the CPU or a GPU, as
views of one storage wherever ``map_location`` sends them (``device_storage.py``). NumPy arrays
come back as NumPy arrays (``map_location`` moves tensors only; a CuPy array outside a tensor
comes back as a NumPy array).
"""

from __future__ import annotations

import io
import os
import pickle
from typing import Any, BinaryIO

from .atomic import atomic_write, sweep_stale_temps
from .format import (
    FORMAT_VERSION,
    CheckpointError,
    open_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from .device_storage import DeviceStorages
from .location import make_placer
from .pickling import (
    CheckpointPickler,
    CheckpointUnpickler,
    PlacementError,
    UnsafeCheckpointError,
    _rebuild_array,
    _rebuild_located,
    _rebuild_meta,
    _rebuild_scalar,
    _rebuild_view,
)
from .restricted import allowed_globals, restricted_load
from .user_globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals

__all__ = [
    "save",
    "load",
    "save_checkpoint",
    "load_checkpoint",
    "CheckpointError",
    "UnsafeCheckpointError",
    "FORMAT_VERSION",
    "allowed_globals",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "safe_globals",
    "sweep_stale_temps",
]


def save(obj: Any, f: str | os.PathLike | BinaryIO) -> None:
    """Write ``obj`` to ``f`` (a path, or a binary file opened for writing).

    A path is written atomically: the old file (if any) stays intact until the new one is complete
    on disk. A file object is written in place, from its current position (``load`` then reads
    from that position to the end of the file).
    """
    if hasattr(f, "write"):
        write_checkpoint(f, obj, CheckpointPickler)
        return
    with atomic_write(f) as out:
        write_checkpoint(out, obj, CheckpointPickler)


def load(
    f: str | os.PathLike | BinaryIO,
    map_location: Any = None,
    weights_only: bool | None = None,
    *,
    mmap: bool | None = None,
) -> Any:
    """Read an object written by ``save``.

    ``map_location``: where tensors land (None: where they were saved; "cpu", "cuda", an
    ``mg.device``, a dict ``{"cuda:0": "cpu"}`` or ``fn(tensor, location)``).
    ``weights_only=True`` (default) loads plain data only (tensors, numeric arrays and scalars,
    builtin containers and scalars, OrderedDict) and refuses anything else with
    ``UnsafeCheckpointError``; pass False only for files you trust, since unpickling them can run
    arbitrary code. ``weights_only=None`` means True, as in PyTorch 2.6 and later.
    ``mmap=True`` maps the file instead of reading it (a path, or a file with a fileno): the
    arrays are private copy-on-write views of its pages, which the OS reads as they are touched.
    A damaged or malformed file raises ``CheckpointError`` naming it, and so does a path that is
    not a regular file (a FIFO, a device); a missing one FileNotFoundError. Errors of
    ``map_location`` itself come through unchanged.
    """
    if weights_only is None:  # PyTorch's default since 2.6: the safe loader, never the other
        weights_only = True
    name = getattr(f, "name", None) if hasattr(f, "read") else os.fspath(f)
    name = str(name) if name is not None else f"<{type(f).__name__}>"
    if isinstance(f, io.TextIOBase):
        raise TypeError(f"{name}: the file is open in text mode; open it with 'rb'")
    if hasattr(f, "read") and hasattr(f, "readable") and not f.readable():  # 'wb', 'ab'
        raise io.UnsupportedOperation(
            f"{name}: the file is not open for reading; open it with 'rb'"
        )
    storages = DeviceStorages()  # GPU copies of the buffers: views of one stay views of one
    place = make_placer(map_location, name, storages)  # a bad map_location fails before reading
    if hasattr(f, "read"):
        payload, buffers = read_checkpoint(f, name, mmap=bool(mmap))
    else:
        with open_checkpoint(f, name) as fh:
            payload, buffers = read_checkpoint(fh, name, mmap=bool(mmap))
    storages.buffer_ids = frozenset(map(id, buffers))
    try:
        if weights_only:
            return restricted_load(payload, buffers, name, place)
        return CheckpointUnpickler(io.BytesIO(payload), buffers, place).load()
    except PlacementError as err:
        raise err.original from None
    except CheckpointError as err:  # a rebuild function's refusal: say which file
        if str(err).startswith(f"{name}: "):
            raise
        raise type(err)(f"{name}: {err}") from err
    except Exception as err:  # any failure of a checksum-valid payload; MemoryError included
        raise CheckpointError(
            f"{name}: the payload passed its checksum but cannot be unpickled "
            f"({type(err).__name__}: {err}); the file was not written by save()"
        ) from err


# Genesis's names for the same two functions; identical behaviour.
save_checkpoint = save
load_checkpoint = load

# Stable names for the pickle stream (see pickling._HOME).
_rebuild_array = _rebuild_array
_rebuild_located = _rebuild_located
_rebuild_meta = _rebuild_meta
_rebuild_scalar = _rebuild_scalar
_rebuild_view = _rebuild_view
