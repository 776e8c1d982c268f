"""The regularized incomplete gamma functions and Hurwitz's zeta function as ops (forward on
arrays in float64, rounded to the input's dtype; backward on Tensors).

P(a, x) = gamma(a, x) / Gamma(a) = int_0^x t^(a-1) e^-t dt / Gamma(a), Q = 1 - P:
- a > 20 and |x - a| < 0.3 a: Temme's uniform asymptotic expansion, erfc(eta sqrt(a/2)) / 2
  plus the series R_a(eta) (incomplete_gamma_large.py; Cephes' band for a < 200, kept for all
  larger a, where the two methods below would need ~sqrt(a) steps and stop at 2,000). Relative
  error ~1e-15, growing to ~1e-13 as the result nears float64's underflow (the condition of
  P and Q in x: about a eta^2 / 2 * 1e-16);
- elsewhere, x < a + 1: P's series e^-x x^a / Gamma(a + 1) sum_k x^k / ((a + 1) ... (a + k)),
  whose terms fall once k > x - a, so every term is positive and the sum has float64's relative
  accuracy;
- elsewhere, x >= a + 1: Q's continued fraction (Legendre's, evaluated by the modified Lentz
  method), which converges in a number of steps of the order of sqrt(a) there.
The prefactor x^a e^-x / Gamma(a) is exp(a log x - x - lgamma(a)) for a < 10 (relative error
<= 6e-14 measured there) and from a = 10 on exp(a log1pmx((x - a) / a)) sqrt(a / 2 pi) / Gamma*(a)
(incomplete_gamma_large.py), rounded relative to the exponent a eta^2 / 2 rather than a log(a):
measured against mpmath, relative error <= 5e-14 on the results above 1e-280 for a in
[0.5, 1e12] (4.8e-14 at a = 1e4, x = 1.3 a, Q = 5e-166; before, 1e-11 at a = 1e4 and 0.98 at
(1e8, 1e8)). The d/dx below uses the same prefactor.

zeta(x, q) = sum_{k >= 0} (k + q)^-x by Euler-Maclaurin: the first 20 terms summed, then the
tail from w = q + 20 as w^(1-x) / (x - 1) + w^-x / 2 + sum_j B_2j / (2j)! x (x+1) ... (x+2j-2)
w^-(x+2j-1), 12 Bernoulli terms (each about (x+2j) / (2 pi w) of the last).

PyTorch differentiates these in x only (d/dx P = e^-x x^(a-1) / Gamma(a), by the prefactor above;
d/dq zeta(x, q) = -x zeta(x + 1, q)); asking for the gradient in a (in zeta's x) raises
NotImplementedError.
"""

from __future__ import annotations

import math

from ..autograd.function import Op
from ..backend import get_array_module, quiet_fp
from .incomplete_gamma_large import prefactor_large, temme_pq
from .special import _lgamma as _lgamma_array

_BERNOULLI_2J = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
                 43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730)  # fmt: skip


def _prefactor(xp, a, x):
    """x^a e^-x / Gamma(a); from a = 10 on without rounding a log(a) (incomplete_gamma_large)."""
    naive = xp.exp(a * xp.log(x) - x - _lgamma_array(a))
    return xp.where(a >= 10, prefactor_large(xp.maximum(a, 10.0), x), naive)


@quiet_fp
def gamma_pq(a, x, upper: bool):
    """P(a, x) (``upper`` False) or Q(a, x) of float64 arrays, with PyTorch's edges: NaN for a < 0
    or x < 0, P(0, x > 0) = 1, P(a, 0) = 0, P(inf, x) = 0 (NaN for x = inf), P(a, inf) = 1."""
    xp = get_array_module(a)
    a, x = xp.broadcast_arrays(a, x)
    ok = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    aa, xx = xp.where(ok, a, 1.0), xp.where(ok, x, 1.0)
    # Temme's expansion where a is large and x near a (Cephes' band for 20 < a < 200, kept for all
    # larger a: there the series and the continued fraction need of the order of
    # 1 / sigma^2 or sqrt(a) steps)
    temme = (aa > 20) & (xp.abs(xx - aa) < 0.3 * aa)
    series = xx < aa + 1
    # P by its series
    term, total, denom = 1.0 / aa, 1.0 / aa, aa.copy()
    for _ in range(2000):
        denom = denom + 1
        term = term * xx / denom
        total = total + term
        if not bool((xp.abs(term) > 1e-17 * xp.abs(total))[series & ~temme].any()):
            break
    p_series = total * _prefactor(xp, aa, xx)
    # Q by the continued fraction (modified Lentz)
    xc = xp.where(series, aa + 2, xx)
    b = xc + 1 - aa
    c, d = 1.0 / 1e-300 + 0 * b, 1.0 / b
    h = d.copy()
    for i in range(1, 2000):
        an = -i * (i - aa)
        b = b + 2
        d = an * d + b
        d = xp.where(xp.abs(d) < 1e-300, 1e-300, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < 1e-300, 1e-300, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if not bool((xp.abs(delta - 1) > 1e-16)[~series & ~temme].any()):
            break
    q_cf = h * _prefactor(xp, aa, xc)
    p = xp.where(series, p_series, 1 - q_cf)
    q = xp.where(series, 1 - p_series, q_cf)
    if bool(temme.any()):
        p_temme, q_temme = temme_pq(xp.where(temme, aa, 100.0), xp.where(temme, xx, 100.0))
        p, q = xp.where(temme, p_temme, p), xp.where(temme, q_temme, q)
    out = q if upper else p
    one, zero = (0.0, 1.0) if upper else (1.0, 0.0)  # (the value P = 1 as out, P = 0 as out)
    # PyTorch's edges, tested in its order (the first that holds decides; a comparison with NaN
    # is false, so P(NaN, 0) = 0 and P(NaN, inf) = 1 while P(NaN, 1) is NaN)
    nan = math.nan
    edges = [(x < 0) | (a < 0), a == 0, x == 0, xp.isinf(a), xp.isinf(x)]
    values = [nan, xp.where(x > 0, one, nan), zero, xp.where(xp.isinf(x), nan, zero), one]
    return xp.select(edges, values, xp.where(xp.isnan(a) | xp.isnan(x), nan, out))


@quiet_fp
def hurwitz_zeta(x, q):
    """zeta(x, q) of float64 arrays, with PyTorch's edges: inf at x = 1, NaN for x < 1; for
    q <= 0, inf at the poles (integer q) and NaN for non-integer x."""
    xp = get_array_module(x)
    x, q = xp.broadcast_arrays(x, q)
    head = 0 * x
    for k in range(20):
        head = head + (q + k) ** -x
    w = q + 20
    tail = w ** (1 - x) / (x - 1) + 0.5 * w**-x
    rising, power = x.copy(), w ** (-x - 1)
    for j, b2j in enumerate(_BERNOULLI_2J, start=1):
        tail = tail + b2j / math.factorial(2 * j) * rising * power
        rising = rising * (x + 2 * j - 1) * (x + 2 * j)
        power = power / (w * w)
    out = head + tail
    out = xp.where((q <= 0) & (q == xp.floor(q)), math.inf, out)
    out = xp.where((q <= 0) & (q != xp.floor(q)) & (x != xp.floor(x)), math.nan, out)
    out = xp.where(xp.isinf(x) & (x > 0), xp.where(q < 1, math.inf, 1.0 * (q == 1)), out)
    out = xp.where(xp.isnan(x) | xp.isnan(q) | (xp.isinf(x) & xp.isinf(q)), math.nan, out)
    return xp.where(x == 1, math.inf, xp.where(x < 1, math.nan, out))


def _in_f64(fn, *arrays):
    xp = get_array_module(arrays[0])
    dtype = arrays[0].dtype
    return fn(*(xp.asarray(a, dtype=xp.float64) for a in arrays)).astype(dtype)


class IncompleteGamma(Op):
    """y = P(a, x) (Q(a, x) with ``upper``);  dy/dx = +-e^-x x^(a-1) / Gamma(a); none in a."""

    @staticmethod
    def forward(ctx, a, x, upper):
        ctx.upper = upper
        ctx.save_for_backward(a, x)
        return _in_f64(lambda u, v: gamma_pq(u, v, upper), a, x)

    @staticmethod
    def backward(ctx, gy):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            name = "igammac" if ctx.upper else "igamma"
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        slope = GammaDensity.apply(a, x)
        return None, gy * (-slope if ctx.upper else slope), None


@quiet_fp
def _gamma_density(a, x):
    xp = get_array_module(a)
    naive = xp.exp((a - 1) * xp.log(x) - x - _lgamma_array(a))
    tame = (a >= 10) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    large = prefactor_large(xp.where(tame, a, 10.0), xp.where(tame, x, 10.0)) / x
    return xp.where(tame, large, naive)


class GammaDensity(Op):
    """y = x^(a-1) e^-x / Gamma(a) (dP(a, x)/dx);  dy/dx = y ((a - 1) / x - 1); none in a.
    From a = 10 on through prefactor_large, without rounding a log(a) (1e-7 at a = 1e8)."""

    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        return _in_f64(_gamma_density, a, x)

    @staticmethod
    def backward(ctx, gy):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
        return None, gy * GammaDensity.apply(a, x) * ((a - 1) / x - 1)


class HurwitzZeta(Op):
    """y = zeta(x, q);  dy/dq = -x zeta(x + 1, q); none in x."""

    @staticmethod
    def forward(ctx, x, q):
        ctx.save_for_backward(x, q)
        return _in_f64(hurwitz_zeta, x, q)

    @staticmethod
    def backward(ctx, gy):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, gy * -x * HurwitzZeta.apply(x + 1, q)
