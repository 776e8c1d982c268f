"""``mg.backends.cudnn``: cuDNN's switches. minigenesis does not use cuDNN (its convolutions are an
im2col and a matrix product, on NumPy or CuPy), so these flags are accepted and change nothing.

- ``enabled`` (True): would switch cuDNN on or off; nothing here uses it.
- ``benchmark`` (False): would let cuDNN time several convolution algorithms and keep the fastest;
  there is one algorithm here.
- ``deterministic`` (False): would restrict cuDNN to deterministic algorithms; minigenesis's
  convolutions on the CPU are deterministic already (seed with ``mg.manual_seed`` for repeatable
  runs).
- ``allow_tf32`` (True): would let cuDNN convolutions use TF32 tensor cores; the matrix products
  here follow CuPy's own setting (full float32 unless the ``CUPY_TF32`` environment variable is
  set).
"""

from __future__ import annotations

enabled: bool = True
benchmark: bool = False
deterministic: bool = False
allow_tf32: bool = True


def is_available() -> bool:
    """False: minigenesis does not use cuDNN."""
    return False


def version() -> None:
    """None: no cuDNN is loaded (PyTorch's answer when cuDNN is unavailable)."""
    return None
