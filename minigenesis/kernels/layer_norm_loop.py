"""LayerNorm (and RMSNorm) over rows as compiled loops (Numba, see cpu_jit.py): forward and
backward each read a row into the cache once and finish it there, where ``layer_norm.py``'s
NumPy/BLAS form makes 4 passes over the whole matrix forward and 7 passes and 5 products back.

The math is ``ops/normalization.py``'s, per row x of n elements (mu = 0 for RMSNorm):

    mu = sum(x) / n,  r = 1 / sqrt(sum((x - mu)^2) / n + eps),  xhat = (x - mu) r
    y  = xhat w + b
    g  = dL/dy w,  dL/dx = r (g - sum(g) / n - xhat sum(g xhat) / n)   (no sum(g) for RMSNorm)
    dL/dw = sum over rows of dL/dy xhat,  dL/db = sum over rows of dL/dy

The sums are taken in float64: forward's mu and var per row, backward's sum(g) and sum(g xhat)
per row and dL/dw, dL/db over all rows, and each dL/dx is computed in float64 and rounded once;
y is computed in x's dtype from mu and r rounded to it (as the NumPy code does: the same number
of roundings, about as fast as the pass can go). Forward takes both sums in one pass, of
d = x - c and d^2 with c the row's first element: mean = c + sum(d)/n, var = sum(d^2)/n -
(sum(d)/n)^2; with c inside the row the subtraction loses about (spread / std)^2 float64 ulps,
far below float32's resolution. Float64 rows take the mean first (c = mean, one pass more),
so they keep the two-pass accuracy of the NumPy code.

A sum over a row is written as 4 running sums over the columns j = k mod 4, added at the end:
without fastmath LLVM keeps a loop's additions in their order, so one running sum is one long
chain of dependent additions (4 cycles each). The loops that write a row (y, dL/dx) and the
column sums (dL/dw, dL/db: one running sum per column) have no chain and are vectorised.

Measured on (16, 64, 128) float32 (the char GPT's LayerNorm; Xeon with AVX-512, one core):
forward 129 us against 178 by layer_norm.py's BLAS path, backward 165 against 466 (PyTorch:
82 forward, 223 both).
"""

from __future__ import annotations

import numpy as np

from . import cpu_jit

# The loops are faster at every size measured, mostly by the fixed costs of a call: 8 elements
# 4.0 / 5.0 us forward / backward against 35 / 33 us by the BLAS path, 4,096 elements 8.6 / 11
# against 39 / 41 (Xeon, one core). Below 16 elements neither does real work: NumPy keeps them.
LAYER_NORM_LOOP_MIN = 16

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@cpu_jit.cpu_kernel(error_model="numpy")
def _forward_rows(x, w, b, eps, center, two_pass, y, mu, r):  # pragma: no cover  (compiled)
    """y, mu, r of the rows of x (m, n); w, b: (n,) or (0,) for none."""
    m, n = x.shape
    n4 = n - n % 4
    for i in range(m):
        row = x[i]
        # the sums of d = x - c and d^2 in one pass, c = the row's first element (see the top)
        c = np.float64(row[0]) if center else 0.0
        if center and two_pass:  # c = the mean itself (float64 rows): the sum of d is ~0
            t0 = t1 = t2 = t3 = 0.0
            for j in range(0, n4, 4):
                t0, t1, t2, t3 = t0 + row[j], t1 + row[j + 1], t2 + row[j + 2], t3 + row[j + 3]
            for j in range(n4, n):
                t0 += row[j]
            c = ((t0 + t1) + (t2 + t3)) / n
        s0 = s1 = s2 = s3 = q0 = q1 = q2 = q3 = 0.0
        for j in range(0, n4, 4):
            d0, d1, d2, d3 = row[j] - c, row[j + 1] - c, row[j + 2] - c, row[j + 3] - c
            s0, s1, s2, s3 = s0 + d0, s1 + d1, s2 + d2, s3 + d3
            q0, q1, q2, q3 = q0 + d0 * d0, q1 + d1 * d1, q2 + d2 * d2, q3 + d3 * d3
        for j in range(n4, n):
            d0 = row[j] - c
            s0, q0 = s0 + d0, q0 + d0 * d0
        shift = ((s0 + s1) + (s2 + s3)) / n if center else 0.0  # mean(x) - c
        var = ((q0 + q1) + (q2 + q3)) / n - shift * shift
        mu[i] = c + shift
        r[i] = 1.0 / np.sqrt(var + eps)
        # y in x's dtype from mu and r rounded to it, as the NumPy code rounds its passes
        mean, rstd, out = mu[i], r[i], y[i]
        if w.size and b.size:
            for j in range(n):
                out[j] = (row[j] - mean) * rstd * w[j] + b[j]
        elif w.size:
            for j in range(n):
                out[j] = (row[j] - mean) * rstd * w[j]
        elif b.size:
            for j in range(n):
                out[j] = (row[j] - mean) * rstd + b[j]
        else:
            for j in range(n):
                out[j] = (row[j] - mean) * rstd


@cpu_jit.cpu_kernel(error_model="numpy")
def _backward_rows(x, w, gy, mu, r, center, gx, gw, gb):  # pragma: no cover  (compiled)
    """gx (m, n) or (0, 0) for none; adds the column sums into gw, gb (float64 (n,) or (0,))."""
    m, n = x.shape
    n8 = n - n % 8
    g = np.empty(n)  # one row of dL/dy w, in float64
    h = np.empty(n)  # one row of xhat
    for i in range(m):
        mean, rstd = np.float64(mu[i]), np.float64(r[i])
        row, grow = x[i], gy[i]
        for j in range(n):
            h[j] = (row[j] - mean) * rstd
            g[j] = np.float64(grow[j]) * w[j] if w.size else grow[j]
        if gw.size:
            for j in range(n):
                gw[j] += grow[j] * h[j]
        if gb.size:
            for j in range(n):
                gb[j] += grow[j]
        if gx.size == 0:
            continue
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0  # sum(g xhat)
        t0 = t1 = t2 = t3 = t4 = t5 = t6 = t7 = 0.0  # sum(g)
        for j in range(0, n8, 8):
            s0 += g[j] * h[j]
            s1 += g[j + 1] * h[j + 1]
            s2 += g[j + 2] * h[j + 2]
            s3 += g[j + 3] * h[j + 3]
            s4 += g[j + 4] * h[j + 4]
            s5 += g[j + 5] * h[j + 5]
            s6 += g[j + 6] * h[j + 6]
            s7 += g[j + 7] * h[j + 7]
            t0 += g[j]
            t1 += g[j + 1]
            t2 += g[j + 2]
            t3 += g[j + 3]
            t4 += g[j + 4]
            t5 += g[j + 5]
            t6 += g[j + 6]
            t7 += g[j + 7]
        for j in range(n8, n):
            s0 += g[j] * h[j]
            t0 += g[j]
        c1 = (((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))) / n
        c2 = (((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7))) / n if center else 0.0
        out = gx[i]
        for j in range(n):
            out[j] = rstd * (g[j] - c2 - h[j] * c1)


def _rows(a, n: int):
    """a as a C-contiguous (m, n) matrix (a copy only where a is not contiguous)."""
    return np.ascontiguousarray(a).reshape(-1, n)


def _vector_of(v, n: int, dtype) -> bool:
    """v is None or a contiguous vector of n elements of ``dtype`` (the loops read v[j] for
    every column j, unchecked)."""
    if v is None:
        return True
    return type(v) is np.ndarray and v.shape == (n,) and v.dtype == dtype and v.flags.c_contiguous


def _applies(x, n: int) -> bool:
    found = type(x) is np.ndarray and x.dtype in _FLOATS
    return found and x.size >= LAYER_NORM_LOOP_MIN and n > 0 and cpu_jit.available()


def forward(x, wv, bv, n: int, eps: float, center: bool) -> tuple | None:
    """(y of x's shape, mu per row or 0.0, r per row) for x (float32/float64) normalised over its
    last n elements; wv, bv: None or contiguous vectors of n elements of x's dtype. None where
    the compiled loops do not apply."""
    if not _applies(x, n) or not all(_vector_of(v, n, x.dtype) for v in (wv, bv)):
        return None
    x2 = _rows(x, n)
    none = np.empty(0, x.dtype)
    y = np.empty(x2.shape, x.dtype)
    mu, r = np.empty(len(x2), x.dtype), np.empty(len(x2), x.dtype)
    w, b = none if wv is None else wv, none if bv is None else bv
    _forward_rows(x2, w, b, float(eps), center, x.dtype == np.float64, y, mu, r)
    return y.reshape(x.shape), mu if center else 0.0, r


def backward(x, wv, gy, mu, r, center: bool, needs: tuple) -> tuple | None:
    """(dL/dx of x's shape, dL/dw, dL/db as vectors), each None where not in ``needs``; x, gy of
    one dtype (float32/float64), wv None or a vector of n elements; None where the compiled
    loops do not apply."""
    n = r.size and x.size // r.size
    if not _applies(x, n) or type(gy) is not np.ndarray or gy.dtype != x.dtype:
        return None
    rows_fit = gy.shape == x.shape and x.size == n * r.size and (not center or mu.size == r.size)
    if not rows_fit or not _vector_of(wv, n, x.dtype):
        return None  # (the loops index every row and column of each unchecked)
    need_x, need_w, need_b = needs
    x2, g2 = _rows(x, n), _rows(gy, n)
    mu = np.zeros(len(x2), x.dtype) if not center else mu
    gx = np.empty(x2.shape if need_x else (0, 0), x.dtype)
    gw, gb = np.zeros(n if need_w else 0), np.zeros(n if need_b else 0)
    w = np.empty(0, x.dtype) if wv is None else wv
    _backward_rows(x2, w, g2, mu, r, center, gx, gw, gb)
    gx = gx.reshape(x.shape) if need_x else None
    gw = gw.astype(x.dtype) if need_w else None
    return gx, gw, gb.astype(x.dtype) if need_b else None
