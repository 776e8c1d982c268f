"""``mg.backends.mkldnn``: the switches of oneDNN (formerly MKL-DNN), PyTorch's library of fast CPU
convolutions. minigenesis does not use oneDNN (its CPU kernels are NumPy's), so the flags are
accepted and recorded, and change no result.

- ``enabled`` (True): would let PyTorch route CPU convolutions and matmuls through oneDNN.
- ``deterministic`` (False): would restrict oneDNN to deterministic algorithms.
- ``flags(enabled=..., deterministic=...)``: a context manager that sets them and puts the old
  values back on exit, as PyTorch's does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["deterministic", "enabled", "flags", "is_available"]

enabled: bool = True
deterministic: bool = False


def is_available() -> bool:
    """False: minigenesis is not built with oneDNN."""
    return False


@contextmanager
def flags(enabled: bool = False, deterministic: bool = False) -> Iterator[None]:
    """Set ``enabled`` and ``deterministic`` inside the ``with`` block, restoring them after."""
    module = globals()
    saved = (module["enabled"], module["deterministic"])
    module["enabled"], module["deterministic"] = enabled, deterministic
    try:
        yield
    finally:
        module["enabled"], module["deterministic"] = saved
