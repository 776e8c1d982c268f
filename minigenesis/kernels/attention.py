"""Attention's softmax over the scores on a GPU: 3 launches forward instead of 6, 2 backward
instead of 4, each written over the scores in place (the plain code is in ``ops/attention.py``).
"""

from __future__ import annotations

from .activation import ROW_DOTS, ROW_SUM_EXP
from .cuda import ElementwiseKernel, kernel_fits

# Softmax along the last axis: the row max, the row sums of e^(s - max) (ROW_SUM_EXP), and
# e^(s - max) / sum written over the scores. The exponentials are computed twice (in the sum and
# in the last kernel) rather than written and read back: less memory traffic, and the same
# numbers, as exp rounds the same way both times. The plain path's arithmetic per element, in
# its order (reciprocal, then product); the sums add in another order than NumPy's.
_NORMALIZE_EXP = ElementwiseKernel(
    "softmax_normalize_exp", "T m, T total", "T s", "s = exp(s - m) * ((T)1 / total);"
)
# Softmax's backward dS = P * (dP - rowsum(dP * P)): the row dot products (ROW_DOTS: without the
# (..., L, S) product as a temporary), then (dP - dot) * P over dP.
_SOFTMAX_GRAD = ElementwiseKernel(
    "softmax_rows_grad_in_place", "T dot, T p", "T ds", "ds = (ds - dot) * p;"
)


def softmax_rows(s) -> bool:
    """softmax(s) along the last axis, in place, on a GPU; False where the kernels do not apply."""
    if not kernel_fits(s, contiguous=True):
        return False
    m = s.max(axis=-1, keepdims=True)
    _NORMALIZE_EXP(m, ROW_SUM_EXP(s, m, axis=s.ndim - 1, keepdims=True), s)
    return True


def softmax_rows_backward(dp, p) -> bool:
    """dp <- p * (dp - rowsum(dp * p)), in place, on a GPU; False where it does not apply."""
    if not kernel_fits(dp, p, contiguous=True):
        return False
    _SOFTMAX_GRAD(ROW_DOTS(dp, p, axis=dp.ndim - 1, keepdims=True), p, dp)
    return True
