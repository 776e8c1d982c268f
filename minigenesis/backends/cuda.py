"""``mg.backends.cuda``: CUDA's switches.

- ``matmul.allow_tf32`` (False, as in PyTorch): would let float32 matrix products use TF32 tensor
  cores (10 mantissa bits) on Ampere and later GPUs. Here CuPy decides, from the ``CUPY_TF32``
  environment variable read when CuPy is imported, so setting the flag changes nothing.
- ``matmul.allow_fp16_reduced_precision_reduction`` / ``allow_bf16_reduced_precision_reduction``
  (True): would allow reduced-precision accumulation in half-precision products; the half
  products here accumulate in float32 (see ``ops/matmul.py``), so these change nothing either.
"""

from __future__ import annotations

from ..backend import cupy_module


class _MatmulFlags:
    """``mg.backends.cuda.matmul``: settable flags, kept for PyTorch scripts (no effect here)."""

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    def __repr__(self) -> str:
        return (
            f"mg.backends.cuda.matmul(allow_tf32={self.allow_tf32}, "
            f"allow_fp16_reduced_precision_reduction="
            f"{self.allow_fp16_reduced_precision_reduction}, "
            f"allow_bf16_reduced_precision_reduction="
            f"{self.allow_bf16_reduced_precision_reduction})"
        )


matmul = _MatmulFlags()


def is_built() -> bool:
    """True when minigenesis can reach CUDA at all: CuPy is installed (a GPU may still be
    missing; ``mg.cuda.is_available()`` says whether one is usable)."""
    return cupy_module() is not None
