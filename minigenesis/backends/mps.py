"""``mg.backends.mps``: Apple's Metal backend, which minigenesis does not have."""

from __future__ import annotations


def is_available() -> bool:
    """False: minigenesis runs on NumPy (CPU) or CuPy (CUDA GPUs), never on Metal."""
    return False


def is_built() -> bool:
    """False: there is no Metal backend to build."""
    return False
