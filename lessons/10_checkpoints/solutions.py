"""Chapter 10 solutions: a restricted unpickler, atomic writes, checksums, exact resume."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

import minigenesis as mg

# (module, name) pairs a checkpoint of plain containers and NumPy arrays may reference.
ALLOWED_GLOBALS = {
    ("builtins", "dict"),
    ("builtins", "list"),
    ("builtins", "tuple"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "complex"),
    ("collections", "OrderedDict"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),  # NumPy 1.x
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"),  # NumPy 2.x
    ("numpy._core.multiarray", "scalar"),
}


class RestrictedUnpickler(pickle.Unpickler):
    """Exercise 10.1 (part 1): an Unpickler that only resolves globals in ``ALLOWED_GLOBALS``.

    Every class or function a pickle names goes through ``find_class(module, name)``; refuse
    anything else by raising ``pickle.UnpicklingError`` with a message naming ``module.name``.
    """

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(f"refusing to load global {module}.{name}")
        return super().find_class(module, name)


def safe_loads(data: bytes) -> Any:
    """Exercise 10.1 (part 2): unpickle ``data`` with ``RestrictedUnpickler``."""
    return RestrictedUnpickler(io.BytesIO(data)).load()


def atomic_save(obj: Any, path: str | os.PathLike) -> None:
    """Exercise 10.2: pickle ``obj`` to ``path`` so that a crash never leaves a broken file there.

    Write to a temporary file in the same directory as ``path`` (``os.replace`` is only atomic
    within one file system), flush and ``os.fsync`` it, then ``os.replace`` it onto ``path``. If
    anything fails, remove the temporary file and re-raise: ``path`` keeps its old content.
    """
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(obj, f)
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the name points at them
        os.replace(tmp_name, path)
    except BaseException:
        os.unlink(tmp_name)
        raise


MAGIC = b"CKPT"


def add_checksum(payload: bytes) -> bytes:
    """Exercise 10.3 (part 1): frame ``payload`` as MAGIC + 8-byte length + SHA-256 + payload.

    The length is little-endian unsigned; the digest is ``hashlib.sha256(payload).digest()``.
    """
    digest = hashlib.sha256(payload).digest()
    return MAGIC + len(payload).to_bytes(8, "little") + digest + payload


def check_checksum(blob: bytes) -> bytes:
    """Exercise 10.3 (part 2): return the payload of ``add_checksum``'s output, or raise.

    Raise ``ValueError`` (with a message saying what is wrong) when the magic bytes are wrong, the
    blob is shorter or longer than its header says, or the digest does not match.
    """
    header = len(MAGIC) + 8 + 32
    if len(blob) < header or blob[: len(MAGIC)] != MAGIC:
        raise ValueError("not a checkpoint: bad or missing magic bytes")
    length = int.from_bytes(blob[len(MAGIC) : len(MAGIC) + 8], "little")
    digest = blob[len(MAGIC) + 8 : header]
    payload = blob[header:]
    if len(payload) != length:
        raise ValueError(f"truncated or padded: header says {length} bytes, found {len(payload)}")
    if hashlib.sha256(payload).digest() != digest:
        raise ValueError("checksum mismatch: the payload was corrupted")
    return payload


def save_training_state(path: str | os.PathLike, model, optimizer, scheduler, step: int) -> None:
    """Exercise 10.4 (part 1): everything an exact resume needs, saved with ``mg.save``.

    Save one dict with the model's, optimizer's and scheduler's ``state_dict()``, the step counter
    and the random-number state ``mg.get_rng_state()`` (dropout masks and data shuffling draw from
    it), under the keys ``"model"``, ``"optimizer"``, ``"scheduler"``, ``"step"`` and ``"rng"``.
    (PyTorch's tutorials often say ``"model_state_dict"``: any names work as long as
    ``load_training_state`` reads what this wrote; these are the ones the notebook prints.)
    """
    mg.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "step": step,
            "rng": mg.get_rng_state(),
        },
        path,
    )


def load_training_state(path: str | os.PathLike, model, optimizer, scheduler) -> int:
    """Exercise 10.4 (part 2): restore what ``save_training_state`` wrote; return the step.

    Load with ``mg.load`` (safe by default), load each ``state_dict`` into the freshly built
    objects, restore the RNG state with ``mg.set_rng_state``.
    """
    state = mg.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    mg.set_rng_state(state["rng"])
    return state["step"]


def quiz() -> dict[str, str]:
    """Exercise 10.5: the answers to the self-check questions, each with the reason."""
    return {
        # Unpickling runs the reduce instructions: an attacker's file calls whatever it names. A
        # restricted Unpickler allows only a list of known globals.
        "q1": "b",
        # A rename inside one filesystem swaps a directory entry in one step; across filesystems it
        # fails (or becomes a copy, which a crash can cut).
        "q2": "a",
        # Shuffling and dropout draw from the generators; restarting them from the seed replays
        # other draws than the ones the stopped run would have made.
        "q3": "b",
        # Anyone who changes the payload can recompute the hash; a checksum detects damage, a
        # signature or a restricted loader guards against attackers.
        "q4": "c",
    }
