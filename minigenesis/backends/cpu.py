"""``mg.backends.cpu``: the CPU backend (NumPy)."""

from __future__ import annotations


def get_cpu_capability() -> str:
    """PyTorch names the SIMD level its kernels were compiled for; here NumPy picks its own
    kernels at run time, so the answer is always "DEFAULT"."""
    return "DEFAULT"
