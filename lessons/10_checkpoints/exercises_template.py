"""Chapter 10 exercises: a restricted unpickler, atomic writes, checksums, exact resume."""

from __future__ import annotations

import hashlib  # noqa: F401
import io  # noqa: F401
import os
import pickle
import tempfile  # noqa: F401
from pathlib import Path  # noqa: F401
from typing import Any

import minigenesis as mg  # noqa: F401

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
        raise NotImplementedError(
            "Exercise 10.1: refuse (module, name) pairs outside ALLOWED_GLOBALS"
        )


def safe_loads(data: bytes) -> Any:
    """Exercise 10.1 (part 2): unpickle ``data`` with ``RestrictedUnpickler``."""
    raise NotImplementedError("Exercise 10.1: unpickle the bytes with RestrictedUnpickler")


def atomic_save(obj: Any, path: str | os.PathLike) -> None:
    """Exercise 10.2: pickle ``obj`` to ``path`` so that a crash never leaves a broken file there.

    Write to a temporary file in the same directory as ``path`` (``os.replace`` is only atomic
    within one file system), flush and ``os.fsync`` it, then ``os.replace`` it onto ``path``. If
    anything fails, remove the temporary file and re-raise: ``path`` keeps its old content.
    """
    raise NotImplementedError(
        "Exercise 10.2: pickle into a temporary file in the same folder, fsync, os.replace"
    )


MAGIC = b"CKPT"


def add_checksum(payload: bytes) -> bytes:
    """Exercise 10.3 (part 1): frame ``payload`` as MAGIC + 8-byte length + SHA-256 + payload.

    The length is little-endian unsigned; the digest is ``hashlib.sha256(payload).digest()``.
    """
    raise NotImplementedError(
        "Exercise 10.3: MAGIC + 8-byte little-endian length + SHA-256 digest + payload"
    )


def check_checksum(blob: bytes) -> bytes:
    """Exercise 10.3 (part 2): return the payload of ``add_checksum``'s output, or raise.

    Raise ``ValueError`` (with a message saying what is wrong) when the magic bytes are wrong, the
    blob is shorter or longer than its header says, or the digest does not match.
    """
    raise NotImplementedError(
        "Exercise 10.3: check the magic, the length and the digest; return the payload"
    )


def save_training_state(path: str | os.PathLike, model, optimizer, scheduler, step: int) -> None:
    """Exercise 10.4 (part 1): everything an exact resume needs, saved with ``mg.save``.

    Save one dict with the model's, optimizer's and scheduler's ``state_dict()``, the step counter
    and the random-number state ``mg.get_rng_state()`` (dropout masks and data shuffling draw from
    it), under the keys ``"model"``, ``"optimizer"``, ``"scheduler"``, ``"step"`` and ``"rng"``.
    (PyTorch's tutorials often say ``"model_state_dict"``: any names work as long as
    ``load_training_state`` reads what this wrote; these are the ones the notebook prints.)
    """
    raise NotImplementedError(
        "Exercise 10.4: mg.save the model, optimizer, scheduler state_dicts, step and RNG state"
    )


def load_training_state(path: str | os.PathLike, model, optimizer, scheduler) -> int:
    """Exercise 10.4 (part 2): restore what ``save_training_state`` wrote; return the step.

    Load with ``mg.load`` (safe by default), load each ``state_dict`` into the freshly built
    objects, restore the RNG state with ``mg.set_rng_state``.
    """
    raise NotImplementedError(
        "Exercise 10.4: mg.load, load every state_dict, restore the RNG state, return the step"
    )


def quiz() -> dict[str, str]:
    """Exercise 10.5: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 4 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 10.5: return {'q1': letter, ...}, your answers to the self-check questions"
    )
