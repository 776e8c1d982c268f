"""The implicit reparameterisation gradient of a Gamma draw in its concentration.

A draw z ~ Gamma(a, 1) is a function of a and a uniform u through the CDF: P(a, z) = u, with P
the regularized lower incomplete gamma function. Holding u fixed and differentiating,

    dP/da + f(z) dz/da = 0,   so   dz/da = -(dP/da)(a, z) / f(z) = (dQ/da)(a, z) / f(z),

with f(z) = z^(a-1) e^-z / Gamma(a) the density and Q = 1 - P. This module computes that ratio in
float64 directly, never forming dP/da and f separately (f under- and overflows long before the
ratio does), by two expansions, each differentiated in a term by term:

1. z < a + 1, P's series. P(a, z) = z^a e^-z sum_k z^k / Gamma(a + k + 1); the derivative of the
   k-th term in a is the term times (log z - psi(a + k + 1)), and dividing by f leaves

       dz/da = -(z / a) sum_k c_k (log z - psi(a + k + 1)),   c_0 = 1, c_k = c_(k-1) z / (a + k),

   with psi(a + k + 1) = psi(a + 1) + 1/(a + 1) + ... + 1/(a + k) accumulated on the way. The
   weights c_k fall like exp(-k^2 / 2a) at worst (z near a), so about sqrt(80 a) terms reach
   float64's precision (840 at a = 1e4, z = a + 0.9; the cost grows like sqrt(a): at a = 1e7
   the result still agrees with PyTorch's large-a asymptotics to 1e-9, in 0.3 s). The signs of
   the terms change only where psi(a + k + 1) passes log z, i.e. within the weights' own spread
   of order sqrt(a), and dP/da is of the order of P / sqrt(a) there: the sum loses at most a few
   digits.

2. z >= a + 1, Q's continued fraction (Legendre's): Q(a, z) = z^a e^-z h / Gamma(a) with
   h = 1 / (b_0 + a_1 / (b_1 + a_2 / (b_2 + ...))), b_n = z + 2n + 1 - a, a_n = -n (n - a).
   Then Q / f = z h, and differentiating log Q = a log z - z + log h - lgamma(a):

       dz/da = (dQ/da) / f = z (h (log z - psi(a)) + dh/da).

   Both terms are positive here, so nothing cancels: log z > log a > psi(a), and h grows with
   a, since substituting t = z + s in Q's integral gives
   h = (1/z) int_0^inf (1 + s/z)^(a-1) e^-s ds, whose a-derivative has the extra factor
   log(1 + s/z) > 0. h and dh/da come from the convergents
   A_n / B_n = b_0 + a_1 / (b_1 + ...), A_n = b_n A_(n-1) + a_n A_(n-2) (B_n likewise), and
   their derivatives A'_n = b'_n A_(n-1) + b_n A'_(n-1) + a'_n A_(n-2) + a_n A'_(n-2) with
   b'_n = -1, a'_n = n; h = B / A and dh/da = (B' A - B A') / A^2 are unchanged when A, B, A', B'
   are all scaled by one number, which every step does to keep them finite. It converges
   slowest just above the switch (121 steps at a = 1e-3, 211 at a = 1e4), faster further out.

For rate != 1 a draw is x = z / rate, so dx/da = (dz/da) / rate and dx/drate = -x / rate, which
autograd gets from the division. PyTorch computes the same derivative by a fitted approximation;
this one is the expansions' float64 sum: measured against the incomplete gamma function in
40-digit arithmetic (mpmath), the relative error is below 4e-14 for a in [1e-3, 1e3] and 3e-13 at
a = 1e4, from z = 1e-300 to far in the upper tail (tests/distributions/
test_gamma_grad_high_precision.py).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from ..backend import get_array_module, quiet_fp
from ..ops.special import _digamma

__all__ = ["StandardGamma", "standard_gamma_grad"]


def _max_terms(xp, a) -> int:
    """A cap on the terms (steps) of either expansion, well above what it needs: about
    sqrt(80 a) series terms near the mode, fewer continued-fraction steps."""
    return 4000 + int(12 * float(xp.sqrt(a.max()))) if a.size else 0


_EPS = 1e-17


def _series_grad(xp, a, z):
    """-(z / a) sum_k c_k (log z - psi(a + k + 1)): dz/da where z < a + 1 (case 1 above)."""
    log_z = xp.log(z)
    psi = _digamma(a + 1.0)
    c, weight = xp.ones_like(a), xp.ones_like(a)  # c_k and sum_k c_k (the stopping scale)
    total = log_z - psi
    for k in range(1, _max_terms(xp, a)):
        psi = psi + 1.0 / (a + k)
        c = c * z / (a + k)
        total = total + c * (log_z - psi)
        weight = weight + c
        if not bool((c > _EPS * weight).any()):
            break
    return -(z / a) * total


def _continued_fraction_grad(xp, a, z):
    """z (h (log z - psi(a)) + dh/da): dz/da where z >= a + 1 (case 2 above)."""
    # convergents n = -1 and n = 0: A = 1, b_0;  B = 0, 1;  derivatives 0, -1 and 0, 0
    a_prev, a_cur = xp.ones_like(z), z + 1.0 - a
    da_prev, da_cur = xp.zeros_like(z), -xp.ones_like(z)
    b_prev, b_cur = xp.zeros_like(z), xp.ones_like(z)
    db_prev, db_cur = xp.zeros_like(z), xp.zeros_like(z)
    h, dh = b_cur / a_cur, -b_cur * da_cur / a_cur**2
    done = xp.zeros(z.shape, bool)
    for n in range(1, _max_terms(xp, a)):
        an, bn = -n * (n - a), z + 2 * n + 1 - a
        a_new = bn * a_cur + an * a_prev
        b_new = bn * b_cur + an * b_prev
        da_new = -a_cur + bn * da_cur + n * a_prev + an * da_prev
        db_new = -b_cur + bn * db_cur + n * b_prev + an * db_prev
        s = 1.0 / a_new  # one common scale for all eight numbers keeps h and dh/da
        a_prev, a_cur, da_prev, da_cur = a_cur * s, a_new * s, da_cur * s, da_new * s
        b_prev, b_cur, db_prev, db_cur = b_cur * s, b_new * s, db_cur * s, db_new * s
        h_new = b_cur  # B / A with A scaled to 1
        dh_new = db_cur - b_cur * da_cur
        # an element keeps its value once converged: B' and B A' keep growing with n, so
        # their difference dh/da would slowly lose digits if iterated on for other elements
        settled = (xp.abs(h_new - h) <= _EPS * h) & (xp.abs(dh_new - dh) <= _EPS * dh)
        h, dh = xp.where(done, h, h_new), xp.where(done, dh, dh_new)
        done = done | settled
        if bool(done.all()):
            break
    return z * (h * (xp.log(z) - _digamma(a)) + dh)


@quiet_fp
def standard_gamma_grad(alpha, z):
    """dz/dalpha of draws z ~ Gamma(alpha, 1) (float64 arrays of one shape, alpha > 0):
    -(dP/dalpha)(alpha, z) / f(z), from P's series below alpha + 1 and Q's continued fraction
    above (the module docstring derives both). 0 at z = 0, NaN where alpha <= 0 or z < 0."""
    xp = get_array_module(alpha)
    alpha, z = xp.broadcast_arrays(xp.asarray(alpha, xp.float64), xp.asarray(z, xp.float64))
    ok = (alpha > 0) & (z > 0) & xp.isfinite(alpha) & xp.isfinite(z)
    series = ok & (z < alpha + 1)
    fraction = ok & ~series
    out = xp.zeros(alpha.shape, xp.float64)
    if bool(series.any()):
        out[series] = _series_grad(xp, alpha[series], z[series])
    if bool(fraction.any()):
        out[fraction] = _continued_fraction_grad(xp, alpha[fraction], z[fraction])
    bad = ~(alpha > 0) | ~(z >= 0) | xp.isinf(alpha)
    return xp.where(bad, np.nan, xp.where(xp.isinf(z), 0.0, out))


class StandardGamma(Op):
    """z = the given draws of Gamma(alpha, 1);  dz/dalpha = standard_gamma_grad(alpha, z).

    forward returns the draws unchanged (they are sampled outside, without a graph); the op only
    attaches the implicit gradient to them, as PyTorch's ``_standard_gamma`` does."""

    @staticmethod
    def forward(ctx, alpha, draws):
        ctx.save_for_backward(alpha, draws)
        return draws.copy()

    @staticmethod
    def backward(ctx, gy):
        alpha, draws = ctx.saved_tensors
        a_arr, z_arr = alpha.detach()._data, draws.detach()._data
        grad = standard_gamma_grad(a_arr, z_arr).astype(a_arr.dtype)
        return gy * Tensor._make(grad), None
