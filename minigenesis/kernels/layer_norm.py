"""LayerNorm (and RMSNorm) over rows on the CPU: the per-row broadcasts as BLAS rank-1 products.

``ops/normalization.py``'s Normalize sees x as a matrix of rows (m, n), one row per normalised
group, and spends most of its time on passes that broadcast a per-row number (mu, r) or a
per-column one (w, b) across the matrix: NumPy runs those as one short loop per row, 1.5-2x the
cost of a pass over two whole arrays (on (1024, 128) float32: x - mu[:, None] 54 us, x * w 47 us,
x * A 32 us, on a 2-core Xeon). BLAS's gemm with an inner dimension of 1 writes or adds an outer
product u v^T in one pass at about the cost of a plain copy:

    x - mu 1^T      a copy of x, then gemm adds (-mu) 1^T into it           54 -> 34 us
    (x - mu) r w^T  gemm writes the outer product r w^T, one flat product   101 -> 59 us
    ... + 1 b^T     gemm adds 1 b^T into y                                  47 -> 21 us

(on rows of more than 256 or 512 elements, x - mu and + b stay broadcasts: see _SHORT_ROWS).

Forward: mu (a matrix-vector product), d = x - mu as above, var = sum(d * d) / n per row (an
einsum, no temporary), mu corrected by mean(d) where its rounding shows (see _centered: a
constant row gives d = 0 exactly), y = d * (r w^T) + 1 b^T. Backward, with the module docstring of
ops/normalization.py's closed form written per row:

    dL/dx = g_y * (r w^T) - d * (r c1) 1^T - (r c2) 1^T,   c1 = r^2 mean(g d),  c2 = mean(g)

(g = g_y w), c1, c2 and dL/dw, dL/db as matrix-vector products, the outer products by gemm.
The same closed form in another order of operations: float rounding apart, the same numbers
(x - mu and the bias's add are the same bits; r w is rounded before it multiplies d, where the
op rounds d r first). Measured on (16, 64, 128) float32 (the char GPT's LayerNorm), one thread,
the op's own code against this path: forward 196 -> 154 us (the arithmetic alone), the module's
forward 0.217 -> 0.198 ms and forward + backward 0.77 -> 0.66 ms (PyTorch: 0.09 and 0.29).
"""

from __future__ import annotations

import math

import numpy as np

from . import layer_norm_loop
from .blas import NO_TRANS, ROW_MAJOR, cblas_gemm

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _outer(c: np.ndarray, u: np.ndarray, v: np.ndarray, alpha: float, beta: float) -> None:
    """c = alpha u v^T + beta c for a C-contiguous (m, n) matrix c and contiguous vectors u (m,)
    and v (n,) of c's dtype: gemm with an inner dimension of 1 (beta = 0: c is only written)."""
    m, n = c.shape
    cblas_gemm(c.dtype)(ROW_MAJOR, NO_TRANS, NO_TRANS, m, n, 1, alpha, u.ctypes.data, 1,
                        v.ctypes.data, n, beta, c.ctypes.data, n)  # fmt: skip


# The rank-1 products pay where NumPy's loop per row is short: x - mu 1^T up to 256 columns and
# + 1 b^T up to 512 (measured on 1024 rows: 512 columns 274 us broadcast against 288 as copy +
# gemm, 1,024 columns 245 against 371 for the bias); beyond, the broadcast is one pass fewer.
# The same bits either way (one subtraction or one addition per element).
_SHORT_ROWS, _BIAS_ROWS = 256, 512


def _minus_row_means(x, mu, n: int):
    """A new C-contiguous (m, n) array x - mu 1^T (x any layout of m * n elements)."""
    if n > _SHORT_ROWS:
        return np.subtract(x.reshape(-1, n), mu[:, None], order="C")
    d = np.array(x, order="C").reshape(-1, n)
    _outer(d, mu, np.ones(n, d.dtype), -1.0, 1.0)
    return d


def _centered(x, n: int, ones_n, eps: float):
    """(d, mu, var): d = x - mu 1^T as a new C-contiguous (m, n) array, mu the row means and
    var = mean(d^2) per row.

    A first mean mu0 = x (1/n) (one matrix-vector product) carries the rounding of a float sum
    and of 1/n: on a row of one repeated value c, mu0 is a few ulps off c, and x - mu0 is those
    few ulps where it should be 0 (then multiplied by r ~ 1/sqrt(eps)). The row's own error
    s = sum(x - mu0) / n (one more product, over d, whose elements are small when the row is
    near-constant, so their sum is nearly exact) corrects it: d - s 1^T and mu = mu0 + s. On a
    constant row x - mu0 and n (x - mu0) are exact, so s = c - mu0 and d = 0 exactly.

    s moves xhat = d r by s r: only rows where that exceeds an ulp of 1 (near-constant rows,
    rows with a large mean) are corrected, as a pass over those rows alone; on others (zero-mean
    activations) s r is below the float's own rounding and the pass would cost 20-35 %
    of the forward."""
    mu = x.reshape(-1, n) @ np.full(n, 1.0 / n, x.dtype)
    d = _minus_row_means(x, mu, n)
    var = np.einsum("ij,ij->i", d, d) / n  # (no d * d temporary)
    s = d @ ones_n
    s /= n  # a division: n s / n is s where s * (1/n) may not be
    rows = np.flatnonzero(np.abs(s) > np.finfo(d.dtype).eps * np.sqrt(var + eps))
    if rows.size:
        dr = d[rows]
        dr -= s[rows, None]
        d[rows] = dr
        mu[rows] += s[rows]
        var[rows] = np.einsum("ij,ij->i", dr, dr) / n
    return d, mu, var


def _add_columns(y, b) -> None:
    """y += 1 b^T in place for a C-contiguous (m, n) y."""
    if y.shape[1] > _BIAS_ROWS:
        y += b
    else:
        _outer(y, np.ones(len(y), y.dtype), b, 1.0, 1.0)


def _vector(p, shape: tuple, dtype):
    """A weight or bias of exactly x's normalised shape and dtype as a vector of the columns;
    None for None, False for anything else (the op's own code computes then)."""
    if p is None:
        return None
    if type(p) is not np.ndarray or p.shape != shape or p.dtype != dtype:
        return False
    return np.ascontiguousarray(p).reshape(-1)


def _applies(x) -> bool:
    """A non-empty float32/float64 NumPy array, and BLAS found."""
    found = type(x) is np.ndarray and x.dtype in _FLOATS and x.size > 0
    return found and cblas_gemm(x.dtype) is not None


def forward(x, w, b, axes: tuple, eps: float, center: bool) -> tuple | None:
    """(y of x's shape, mu per row or 0.0, r per row) for x (already float32/float64) normalised
    over its last dims ``axes``; None where this path does not apply (the op computes)."""
    if not _applies(x):
        return None
    shape = x.shape[x.ndim - len(axes) :]
    wv, bv = _vector(w, shape, x.dtype), _vector(b, shape, x.dtype)
    if wv is False or bv is False:
        return None
    n = math.prod(shape)
    if (fast := layer_norm_loop.forward(x, wv, bv, n, eps, center)) is not None:
        return fast  # one compiled loop per row, where Numba is installed
    ones_n = np.ones(n, x.dtype)
    mu = 0.0
    if center:
        d, mu, var = _centered(x, n, ones_n, eps)
    else:
        d = np.array(x, order="C").reshape(-1, n)
        var = np.einsum("ij,ij->i", d, d) / n  # (no d * d temporary)
    r = 1.0 / np.sqrt(var + eps)
    y = np.empty(d.shape, d.dtype)
    _outer(y, r, ones_n if wv is None else wv, 1.0, 0.0)  # y = r w^T
    y *= d
    if bv is not None:
        _add_columns(y, bv)
    return y.reshape(x.shape), mu, r


def _wide(a):
    """2-byte floats are computed in float32 (as the op does)."""
    return a.astype(np.float32) if a.dtype.itemsize == 2 and a.dtype.kind in "fV" else a


def backward(ctx, x, w, gy) -> tuple | None:
    """(dL/dx, dL/dw, dL/db) as arrays, each None where not wanted (dL/dw and dL/db in w's
    shape), for Normalize's rows (``ctx`` holds mu, r, center and needs_input_grad; x, w, gy
    are its Tensors); None where this path does not apply."""
    xd, r = _wide(x._data), ctx.r
    g_y = _wide(gy._data)
    n = r.size and xd.size // r.size
    if not _applies(xd) or type(g_y) is not np.ndarray or g_y.dtype != xd.dtype or not n:
        return None
    wv = None if w is None else _vector(w._data, w.shape, xd.dtype)
    if wv is False or (wv is not None and wv.size != n):
        return None
    needs = ctx.needs_input_grad[:3]
    fast = layer_norm_loop.backward(xd, wv, g_y, ctx.mu, r, ctx.center, needs)
    gx, gw, gb = fast or _gradients(xd, wv, g_y, ctx.mu, r, ctx.center, needs)
    if gx is not None:
        gx = gx.astype(x._data.dtype, copy=False)
    # the normalized shape (w's and b's shape; either may be None without the other)
    shape = x.shape[x.ndim - len(ctx.axes) :]
    return gx, None if gw is None else gw.reshape(shape), None if gb is None else gb.reshape(shape)


def _gradients(x, wv, g_y, mu, r, center: bool, needs: tuple) -> tuple:
    """backward's arithmetic on arrays (see the module docstring)."""
    n = r.size and x.size // r.size
    need_x, need_w, need_b = needs
    g2 = np.ascontiguousarray(g_y).reshape(-1, n)
    ones_n = np.ones(n, x.dtype)
    d = _minus_row_means(x, mu, n) if center else np.array(x, order="C").reshape(-1, n)
    gy_d = g2 * d
    gw = r @ gy_d if need_w else None  # column sums of g_y xhat = g_y d r
    gb = np.ones(len(g2), x.dtype) @ g2 if need_b else None
    gx = None
    if need_x:
        w_n = np.full(n, 1.0 / n, x.dtype) if wv is None else wv / n
        gx = np.empty(d.shape, d.dtype)
        _outer(gx, r, ones_n if wv is None else wv, 1.0, 0.0)  # r w^T
        gx *= g2
        d *= (r * r * r * (gy_d @ w_n))[:, None]  # d r c1, c1 = r^2 mean(g d)
        gx -= d
        if center:
            _outer(gx, r * (g2 @ w_n), ones_n, -1.0, 1.0)  # - r mean(g) 1^T
        gx = gx.reshape(x.shape)
    return gx, gw, gb
