"""cross_entropy over class indices on (N, C) float32 logits as one compiled loop per direction
(Numba, see cpu_jit.py), for ``ops/loss.py``'s CrossEntropyIndices.

The math is the op's, per row i of x with target t_i (read that first):

    m_i = max_c x[i, c],   lse_i = m_i + log sum_c e^(x[i, c] - m_i),   l_i = lse_i - x[i, t_i]
    dL/dx[i, c] = s_i (e^(x[i, c] - lse_i) - [c == t_i])

with s_i = dL/dl_i: dL/dloss / count ("mean"; count = the samples not ignored), dL/dloss
("sum") or dL/dl_i ("none"), and 0 for an ignored sample. The op's NumPy code is ~13 calls
forward (the row max, the shift, exp, the row sums, log, the pick, the reduction ...) and ~6
backward, each ~1-4 us on a training loop's (32, 27) logits where its arithmetic is well under
a microsecond; here each direction is one call (~2 us of Numba's dispatch) that finishes a row
in the cache before the next. Everything is computed in float64 and each result rounded once (the
loss from a float64 sum over the rows, each gradient element from its float64 formula), so
float32 results are at least as close to the float64 truth as the op's float32 passes; ``lse``
is kept in float64 for backward.

Why e^u is written out (below) and not ``math.exp``: Numba compiles ``math.exp`` to the C
library's exp, one element at a time, and the loop around it is then not vectorised (7-10 ns an
element here: 24 us forward on (32, 27)); from + - * and the exponent bits LLVM vectorises it
(2.4-2.9 ns an element forward, 1.4 backward, in float64 at 4 lanes). NumPy's float32 passes
run 16 lanes, so on large logits they win (``CROSS_ENTROPY_LOOP_MAX``); the loops pay where the
op's fixed costs dominate. float64 logits keep the NumPy code: this exp (within 3e-13) is not
as close as NumPy's float64 exp, which the float64 op needs.
"""

from __future__ import annotations

import math

import numpy as np

from . import cpu_jit

# Forward + backward through F.cross_entropy, float32, Xeon with AVX-512, one core, thread time
# (the NumPy code / these loops, us): (32, 27) 51 / 40, (128, 27) 69 / 58, (128, 65) 73 / 74,
# (256, 65) 91-104 / 115-134, (1024, 65) 265 / 328: up to 4,096 elements the loops are faster.
CROSS_ENTROPY_LOOP_MAX = 4_096
# The loops pay from the smallest logits on (8 x 3: 35 against 46 us forward + backward, the
# op's fixed costs), but a tiny model's step (a few dozen logits) spends its time elsewhere and
# reads the plain code only: the op hands over from this many elements (a constant it reads).
CROSS_ENTROPY_LOOP_MIN = 64

_FLOAT32 = np.dtype(np.float32)
_INT64 = np.dtype(np.int64)
_NO_ROWS = np.zeros(1, np.float64)  # the per-sample gradient argument where there is one number


# e^u for u <= 0 written from + - * (see the module docstring): u = n ln 2 + r with |r| <= ln 2 / 2
# (ln 2 in two parts, so n ln 2 is exact to float64's precision for any n here), e^r by its
# Taylor series to r^10 (relative error under 3e-13), 2^n from its exponent bits. Below -700
# the result is 0 (e^-700 is 1e-304: nothing a float32 result or a sum that holds e^0 can see).
_LOG2_E = 1.4426950408889634
_LN2_HI, _LN2_LO = 0.6931471803691238, 1.9082149292705877e-10
_TAYLOR = tuple(1 / math.factorial(k) for k in range(11))


@cpu_jit.cpu_kernel(error_model="numpy")
def _forward_loop(x, target, valid, has_valid, lse, losses):  # pragma: no cover  (compiled)
    """Each row's log-sum-exp into lse (float64) and its loss into losses (float64, 0 where
    ignored); returns (the sum of the losses, the count of samples not ignored), the count -1
    where a counted sample's target is not a class."""
    n, c = x.shape
    c4 = c - c % 4
    t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10 = _TAYLOR
    e = np.empty(c, np.float64)
    total = 0.0
    count = 0
    for i in range(n):
        row = x[i]
        # the row's max as four running maxima (no chain of c dependent compares); a NaN is
        # passed over here and makes its e^(x - m), so the sum and lse, NaN below
        m0 = m1 = m2 = m3 = np.float64(row[0])
        for j in range(0, c4, 4):
            v0, v1, v2, v3 = row[j], row[j + 1], row[j + 2], row[j + 3]
            m0, m1 = (v0 if v0 > m0 else m0), (v1 if v1 > m1 else m1)
            m2, m3 = (v2 if v2 > m2 else m2), (v3 if v3 > m3 else m3)
        for j in range(c4, c):
            m0 = row[j] if row[j] > m0 else m0
        m0, m2 = (m1 if m1 > m0 else m0), (m3 if m3 > m2 else m2)
        m = m2 if m2 > m0 else m0
        for j in range(c):  # e[j] = e^(x[i, j] - m), vectorised (the block above)
            u = np.float64(row[j]) - m
            low = not u > -700.0  # (and NaN, kept below)
            k = np.floor((-700.0 if low else u) * _LOG2_E + 0.5)
            r = (u - k * _LN2_HI) - k * _LN2_LO
            p = t9 + r * t10
            p = t0 + r * (
                t1
                + r * (t2 + r * (t3 + r * (t4 + r * (t5 + r * (t6 + r * (t7 + r * (t8 + r * p)))))))
            )
            p *= np.int64((np.int64(k) + 1023) << 52).view(np.float64)
            e[j] = u if u != u else (0.0 if low else p)
        s0 = s1 = s2 = s3 = 0.0  # four running sums: no chain of c dependent additions
        for j in range(0, c4, 4):
            s0, s1, s2, s3 = s0 + e[j], s1 + e[j + 1], s2 + e[j + 2], s3 + e[j + 3]
        for j in range(c4, c):
            s0 += e[j]
        log_s = math.log((s0 + s1) + (s2 + s3))
        lse[i, 0] = m + log_s
        if has_valid and not valid[i]:
            losses[i] = 0.0
            continue
        if not 0 <= target[i] < c:  # (the op's callers check; NumPy's indexing would raise)
            return total, -1
        losses[i] = -((np.float64(row[target[i]]) - m) - log_s)  # -log p_t, as the op's
        total += losses[i]
        count += 1
    return total, count


@cpu_jit.cpu_kernel(error_model="numpy")
def _backward_loop(
    x, lse, target, valid, has_valid, gl_rows, per_row, gl, divisor, gx
):  # pragma: no cover  (compiled)
    """gx[i, c] = s_i e^(x[i, c] - lse_i), minus s_i at c = t_i (see the module docstring);
    s_i = gl_rows[i] (per_row) or gl, divided by ``divisor``, 0 where ignored."""
    n, c = x.shape
    t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10 = _TAYLOR
    for i in range(n):
        s = (gl_rows[i] if per_row else gl) / divisor
        s = 0.0 if has_valid and not valid[i] else s
        row, out, shift, t = x[i], gx[i], lse[i, 0], target[i]
        for j in range(c):  # e^(x - lse) as in _forward_loop, times s
            u = np.float64(row[j]) - shift
            low = not u > -700.0
            k = np.floor((-700.0 if low else u) * _LOG2_E + 0.5)
            r = (u - k * _LN2_HI) - k * _LN2_LO
            p = t9 + r * t10
            p = t0 + r * (
                t1
                + r * (t2 + r * (t3 + r * (t4 + r * (t5 + r * (t6 + r * (t7 + r * (t8 + r * p)))))))
            )
            p *= np.int64((np.int64(k) + 1023) << 52).view(np.float64)
            # s at the target taken off in float64, so each element rounds once
            out[j] = (u if u != u else (0.0 if low else p)) * s - (s if j == t else 0.0)


def _fits(x: np.ndarray, target: np.ndarray, valid: np.ndarray | None) -> bool:
    """(N, C) float32/float64 logits, N, C >= 1, up to CROSS_ENTROPY_LOOP_MAX elements, and
    (N,) int64 targets (and bool validity), any strides (the loops check each target)."""
    return (
        cpu_jit.available()  # first: where the loops are off, nothing else is looked at
        and x.dtype == _FLOAT32
        and x.ndim == 2
        and 0 < x.size <= CROSS_ENTROPY_LOOP_MAX
        and type(target) is np.ndarray
        and target.dtype == _INT64
        and target.shape == x.shape[:1]
        and (valid is None or (type(valid) is np.ndarray and valid.shape == target.shape))
    )


def forward(ctx, x: np.ndarray) -> np.ndarray | None:
    """CrossEntropyIndices.forward's loss of logits x in x's dtype (ctx holds the op's target,
    valid and reduction), with ctx.lse (each row's log-sum-exp, (N, 1) float64), ctx.count (the
    samples not ignored) and ctx.grad_loop (``backward``) set for the op's backward; None where
    the loop does not apply."""
    target, valid, reduction = ctx.target, ctx.valid, ctx.reduction
    if not _fits(x, target, valid):
        return None
    n = x.shape[0]
    lse = np.empty((n, 1), np.float64)
    losses = np.empty(n, np.float64)
    has_valid = valid is not None
    total, count = _forward_loop(
        x, target, valid if has_valid else _NO_ROWS, has_valid, lse, losses
    )
    if count < 0:  # a target out of range: the NumPy code raises NumPy's IndexError
        return None
    ctx.lse, ctx.count, ctx.grad_loop = lse, np.int64(count), backward
    if reduction == "none":
        return losses.astype(x.dtype)
    if reduction == "sum":
        return np.array(total, x.dtype)
    # "mean" with no sample counted: 0 / 0 = NaN, as PyTorch (and the op's NumPy code)
    return np.array(total / count if count else math.nan, x.dtype)


def backward(x, lse, target, valid, count, gl, reduction: str) -> np.ndarray | None:
    """dL/dx of CrossEntropyIndices.backward (x's dtype) for dL/dloss ``gl`` (0-d, or (N,) for
    reduction "none") from forward's float64 log-sum-exp (the arguments of the GPU kernel
    ``loss.cross_entropy_grad``); None where the loop does not apply."""
    if not _fits(x, target, valid) or lse.shape != (len(x), 1):
        return None
    per_row = reduction == "none"
    if per_row and gl.shape != target.shape:
        return None
    gl_rows = np.asarray(gl, np.float64) if per_row else _NO_ROWS
    gl_one = 0.0 if per_row else float(gl)
    divisor = float(max(int(count), 1)) if reduction == "mean" else 1.0
    has_valid = valid is not None
    gx = np.empty(x.shape, x.dtype)
    _backward_loop(x, lse, target, valid if has_valid else _NO_ROWS, has_valid, gl_rows,
                   per_row, gl_one, divisor, gx)  # fmt: skip
    return gx
