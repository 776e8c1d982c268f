"""``mg.backends``: PyTorch's switches for its compute libraries, as settable flags.

Scripts written for PyTorch set these (``torch.backends.cudnn.benchmark = True``,
``torch.backends.cuda.matmul.allow_tf32 = True``) so they run here unchanged. minigenesis has no
cuDNN, no TF32 switch and no MPS: NumPy computes on the CPU and CuPy on the GPU, with their own
defaults. Each flag's documentation says what setting it does here; none changes a result.

    import minigenesis.backends.cudnn as cudnn
    cudnn.benchmark = True          # accepted; nothing to tune here
"""

from __future__ import annotations

import warnings

from . import cpu, cuda, cudnn, mkldnn, mps, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "opt_einsum"]

_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """``mg.set_float32_matmul_precision("high")``: PyTorch's switch for TF32 in float32 matrix
    products ("high" and "medium" set ``backends.cuda.matmul.allow_tf32``). Recorded here; as that
    flag, it changes no result (CuPy's own setting decides). An unknown name warns and is ignored,
    as in PyTorch."""
    global _matmul_precision
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "set_float32_matmul_precision call has no effect.",
            stacklevel=2,
        )
        return
    _matmul_precision = precision
    cuda.matmul.allow_tf32 = precision != "highest"


def get_float32_matmul_precision() -> str:
    """The value last set by ``set_float32_matmul_precision`` ("highest" by default)."""
    return _matmul_precision
