"""BLAS on the CPU where NumPy's matmul leaves work on the table: C = A B + C, and column sums.

NumPy's matmul computes A B into a fresh array; it cannot add into one. BLAS's gemm can
(``C = alpha A B + beta C``), so a layer's bias is added while the product is written instead of
in a second pass over the output: fill C with the bias (a write-only pass, about half the cost
of an add, which reads and writes), then gemm with beta = 1. Measured on a 2-core Xeon, one
thread, float32: x (1024, 128) W^T (128, 512) + b 1.07-1.11 ms as matmul + add, 0.99-1.01 ms as
fill + gemm; (1024, 128) -> 384 0.79 -> 0.74 ms. PyTorch's addmm does the same.

The saving is one pass over the output; the price is a fixed ~8 us of ctypes (three pointers read
off the arrays, fourteen arguments converted), which NumPy's own product does in C. Below
``LINEAR_MIN_OUTPUT`` output elements the pass saved is worth less than that, and ``linear``
takes NumPy's product and an add instead: on (16, 51) -> 204 float64, an LSTM cell's step, 27 us
against 20; (32, 128) -> 128 float32 26 against 19; break-even near 32,768 outputs (64 x 512,
256 x 128), float32 and float64 alike.

NumPy's wheels ship OpenBLAS with a CBLAS interface (64-bit integers); it is called here through
ctypes, on the same library NumPy itself uses (same threads, same kernels). Where it is not found
(another NumPy build), a function here that needs it returns None and the op computes as it always
does.

Column sums (a bias's gradient, the sum of dL/dy over rows) as ``ones @ G``, a matrix-vector
product: NumPy's sum over axis 0 is a loop of strided adds, 3-5x slower on (1024, 65-512)
float32 (29-77 us against 6-42). The sums are the same numbers added in another order (float
rounding, as any reordering). On few rows the strided adds are short and the vector of ones
costs more: break-even near ``COLUMN_SUM_MIN_ROWS`` = 64 rows, float32 and float64 alike (one
thread, the same 2-core Xeon: 8 x 3 0.96 us against 1.76, 32 x 16 1.65 against 1.68, 64 x 16
2.2 against 2.0, 128 x 16 3.8 against 2.0), below which ops/linear.py sums with NumPy itself.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os

import numpy as np

from ..backend import quiet_fp

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112  # <cblas.h>
LINEAR_MIN_OUTPUT = 32768  # outputs (rows x features) from which fill + gemm beats matmul + add
COLUMN_SUM_MIN_ROWS = 64  # rows from which ones @ g beats NumPy's sum over axis 0
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _cblas(routine: str, dtype):
    """CBLAS's ``routine`` ("gemm", "axpy") for float32 ("s") or float64 ("d") from NumPy's own
    OpenBLAS (64-bit ints), or None; and the ctypes type of its scalars."""
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "*openblas*"))
    letter, real = ("s", ctypes.c_float) if dtype == np.float32 else ("d", ctypes.c_double)
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in (f"scipy_cblas_{letter}{routine}64_", f"cblas_{letter}{routine}64_"):
            f = getattr(lib, name, None)
            if f is not None:
                return f, real
    return None, real


@functools.cache
def cblas_gemm(dtype):
    """cblas_sgemm / cblas_dgemm of NumPy's own OpenBLAS (64-bit ints), or None."""
    f, real = _cblas("gemm", dtype)
    if f is not None:
        i64, ptr, enum = ctypes.c_int64, ctypes.c_void_p, ctypes.c_int
        f.argtypes = [enum, enum, enum, i64, i64, i64, real, ptr, i64, ptr, i64, real, ptr, i64]
        f.restype = None
    return f


def _operand(a) -> tuple:
    """(a, transpose flag, leading dimension): how gemm reads the 2-D array ``a`` in row-major
    order; a C-contiguous copy of it where its strides fit neither layout."""
    item, (s0, s1), (rows, cols) = a.itemsize, a.strides, a.shape
    if s1 == item and s0 % item == 0 and s0 >= cols * item:
        return a, NO_TRANS, s0 // item
    if s0 == item and s1 % item == 0 and s1 >= rows * item:  # a transpose (as weight.T is)
        return a, TRANS, s1 // item
    return np.ascontiguousarray(a), NO_TRANS, cols


@quiet_fp  # NumPy's product and add: overflow to inf quietly, as in PyTorch (gemm never warns)
def linear(x, w, b):
    """y = x w^T + b for 2-D float32/float64 NumPy arrays x (M, K), w (N, K) and b (N,): below
    ``LINEAR_MIN_OUTPUT`` outputs NumPy's product and an add, from there the bias written first
    and gemm adding the product into it; None where this does not apply (another array type or
    dtype, no bias, no CBLAS found or no K for a large product)."""
    if b is None or type(x) is not np.ndarray or type(w) is not np.ndarray:
        return None
    if x.ndim != 2 or b.ndim != 1:
        return None
    dtype, (m, k), n = x.dtype, x.shape, b.shape[0]
    if dtype not in _FLOATS or w.dtype != dtype or b.dtype != dtype or w.shape != (n, k):
        return None
    if m * n < LINEAR_MIN_OUTPUT:  # the ctypes call would cost more than the pass it saves
        y = np.dot(x, w.T)
        y += b
        return y
    gemm = cblas_gemm(dtype) if k else None
    if gemm is None:
        return None
    (x, tx, ldx), (wt, tw, ldw) = _operand(x), _operand(w.T)  # B = w^T: w read transposed
    y = np.empty((m, n), dtype)
    y[...] = b
    gemm(ROW_MAJOR, tx, tw, m, n, k, 1.0, x.ctypes.data, ldx, wt.ctypes.data, ldw, 1.0,
         y.ctypes.data, n)  # fmt: skip
    return y


def column_sum(a):
    """The sum of each column of a 2-D float32/float64 NumPy array, as ``ones @ a`` (BLAS's
    matrix-vector product); None for other arrays (the caller sums them its own way)."""
    if type(a) is not np.ndarray or a.ndim != 2 or a.dtype not in _FLOATS or not a.shape[0]:
        return None
    return np.ones(a.shape[0], a.dtype) @ a


# g b^T for a g of few rows (the input's gradient of x @ W, W^T read transposed): OpenBLAS runs
# it with its "NT" kernel, which on such shapes is ~1.4x the plain kernel that computes the same
# product the other way round, (b g^T)^T; the result, column-major, is then copied into rows
# (cheap at this size). Measured on a 2-core Xeon, one thread, float32: g (32, 200) times
# (200, 200)^T 41 -> 29 us, (16, 128) x (128, 128)^T 12 -> 9, (32, 512) x (512, 512)^T 251 -> 172;
# from 64 rows the two are even, from 256 the plain product loses (162 against 233), and with
# fewer than 64 columns either way (a 27-class output layer) it loses too. The same sums in
# another order (float rounding, as any reordering).
SMALL_ROWS, MIN_SIDE = 32, 64


def times_transposed(g, b):
    """g @ b^T for 2-D float32/float64 NumPy arrays g (N, M), b (K, M) of one dtype, computed as
    (b @ g^T)^T where that is faster (N <= SMALL_ROWS, K and M >= MIN_SIDE); None elsewhere."""
    if type(g) is not np.ndarray or type(b) is not np.ndarray or g.ndim != 2 or b.ndim != 2:
        return None
    if g.shape[0] > SMALL_ROWS or min(b.shape) < MIN_SIDE or g.dtype not in _FLOATS:
        return None
    if b.dtype != g.dtype or b.shape[1] != g.shape[1]:
        return None
    return np.ascontiguousarray(np.dot(b, g.T).T)


# y += a x (axpy): NumPy's ``y += a * x`` makes a * x in a temporary first, two passes over
# memory where BLAS makes one. On float64 vectors of 32,500 (an LSTM's parameters, LBFGS's
# two-loop recursion over its history) 53-70 us against 40-45 us (PyTorch's add_ with alpha: 32).
@functools.cache
def cblas_axpy(dtype):
    """cblas_saxpy / cblas_daxpy of NumPy's own OpenBLAS (64-bit ints), or None."""
    f, real = _cblas("axpy", dtype)
    if f is not None:
        i64, ptr = ctypes.c_int64, ctypes.c_void_p
        f.argtypes, f.restype = [i64, real, ptr, i64, ptr, i64], None
    return f


def axpy(a: float, x, y) -> bool:
    """y += a x in place for C-contiguous float32/float64 NumPy arrays of one dtype and shape
    that do not overlap; False (nothing done) where this does not apply."""
    if type(x) is not np.ndarray or type(y) is not np.ndarray or x.dtype != y.dtype:
        return False
    if x.shape != y.shape or x.dtype not in _FLOATS or not x.size:
        return False
    if not (x.flags.c_contiguous and y.flags.c_contiguous and y.flags.writeable):
        return False
    if np.may_share_memory(x, y):
        return False
    f = cblas_axpy(x.dtype)
    if f is None:
        return False
    f(x.size, float(a), x.ctypes.data, 1, y.ctypes.data, 1)
    return True
