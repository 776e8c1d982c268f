"""Fast paths of the elementwise ops (``ops/elementwise.py``): a select as bit arithmetic (or one
GPU kernel), and bfloat16 arithmetic through float32 array passes.

The select as bit arithmetic (``where_or_zero``) pays a fixed cost (a view as unsigned integers,
a multiply with a dtype) that NumPy's ``where`` does not; what it saves is ``where``'s branches
on an unpredictable mask, which grow with the array. Break-even near ``SELECT_BITS_MIN`` = 4,096
elements (one thread, a 2-core Xeon, a random mask, float32: 256 elements 1.0 us with where
against 1.6, 1,024 1.8 against 2.0, 4,096 5.0 against 2.9, 16,384 55 against 6.6); below it the
ops select with ``where`` themselves.
"""

from __future__ import annotations

import numpy as np

from ..backend import get_array_module
from . import casts
from .cuda import FLOAT16_32_64, ElementwiseKernel, kernel_fits

SELECT_BITS_MIN = 4096  # elements from which the bit select beats np.where
_WHERE_OR_ZERO = ElementwiseKernel("where_or_zero", "bool keep, T a", "T y", "y = keep ? a : (T)0;")


def where_or_zero(keep, a):
    """``where(keep, a, 0)`` for a float array ``a`` and a bool ``keep`` of its shape, computed on
    a's bits as unsigned integers: keep (0 or 1) times the bits is the bits or 0, exact for every
    value, inf and NaN included (a float product by 0 would give NaN), and branch-free, where
    NumPy's where on an unpredictable mask (ReLU's, max pooling's) ran 10-15x slower. One pass
    (an all-ones mask ANDed with the bits took three: 0.8 -> 0.45 ms on 1M float32). On a GPU,
    one kernel does the select (3 launches -> 1). None where neither applies."""
    if type(a) is not np.ndarray and kernel_fits(a, dtypes=FLOAT16_32_64):  # (exact in float16)
        return _WHERE_OR_ZERO(keep, a)
    if keep.shape != a.shape or not a.ndim:
        return None
    xp = get_array_module(a)
    u = xp.dtype(f"uint{a.dtype.itemsize * 8}")
    return xp.multiply(keep, a.view(u), dtype=u).view(a.dtype)


@np.errstate(all="ignore")  # overflow to inf, 0/0: silent, as ml_dtypes' loops (and PyTorch)
def bfloat16_binary(op, x, y):
    """op(x, y) for two bfloat16 arrays: widened to float32, computed, rounded once.

    The same numbers as ml_dtypes' own bfloat16 loops, which also convert each pair to float32
    and round the result (as PyTorch's CPU kernels do); but those go element by element, 3-4x
    slower than these four float32 array passes. (A bfloat16 activation times a bfloat16
    gradient is common under autocast. NumPy's float16 loops are as fast as this: left alone.)
    Other operands (a GPU array, a scalar) are computed as they are."""
    if type(x) is not np.ndarray or type(y) is not np.ndarray:
        return op(x, y)
    return _converted(op(_converted(x, np.float32), _converted(y, np.float32)), x.dtype)


def _converted(a: np.ndarray, dtype) -> np.ndarray:
    """a.astype(dtype), by a compiled loop where one pays (casts.py)."""
    if a.size >= casts.CAST_MIN and (fast := casts.astype(a, dtype)) is not None:
        return fast
    return a.astype(dtype)
