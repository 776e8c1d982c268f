"""The gamma-function family: lgamma, digamma and polygamma, with gradients of every order.

    lgamma(x)       = log |Gamma(x)|
    digamma(x)      = d/dx lgamma(x)                     (psi)
    polygamma(n, x) = d^n/dx^n digamma(x)                (psi^(n); n = 1 is the trigamma)

so each op's backward is the next one: d lgamma = digamma, d digamma = polygamma(1, .),
d polygamma(n, .) = polygamma(n + 1, .). The distributions need them (Gamma, Beta: log Gamma in
the normaliser, digamma in the entropy and in the gradients with respect to concentrations).

NumPy has none of them, so they are computed here in float64 by the textbook route (CuPy arrays go
to cupyx.scipy.special). For x >= 12 the asymptotic (Stirling) series in 1/x are accurate to
about 1e-16. Below, digamma and polygamma move x up by the recurrence
psi^(n)(x + 1) = psi^(n)(x) + (-1)^n n! / x^(n+1); lgamma moves x into [3/2, 5/2) by
lgamma(x + 1) = lgamma(x) + log x and sums the Taylor series of lgamma at 2 (exact 0 at x = 1
and 2, no cancellation). For x < 1/2, lgamma and digamma use the reflection formulas
Gamma(x) Gamma(1 - x) = pi / sin(pi x) and psi(1 - x) - psi(x) = pi cot(pi x), and polygamma for
x < 0 that formula differentiated n times:

    psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) cot^(n)(pi x),

cot^(n) being a polynomial in cot (see ``_cot_derivative``). At the poles 0, -1, -2, ...
polygamma is +inf for odd n, -inf for even n (PyTorch's values).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..autograd.function import Op
from ..backend import cupyx_module, get_array_module, quiet_fp

_LARGE = 12.0  # where the asymptotic series take over
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_EULER_GAMMA = 0.5772156649015329  # -digamma(1)
# Bernoulli numbers B_2, B_4, ..., B_14
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _shift_up(x, term):
    """(z, acc): z = x + k >= _LARGE elementwise, acc = sum of term(x + i) for i < k."""
    xp = get_array_module(x)
    z = x.copy()
    acc = xp.zeros_like(z)
    while True:
        low = z < _LARGE
        if not low.any():
            return z, acc
        acc[low] += term(z[low])
        z[low] += 1.0


def _zeta_minus_one(k: int, n_terms: int = 1000) -> float:
    """zeta(k) - 1 = sum_{n >= 2} n^-k: a direct sum, then the Euler-Maclaurin tail."""
    head = math.fsum(n ** -float(k) for n in range(2, n_terms))
    big = float(n_terms)
    return head + big ** (1 - k) / (k - 1) + 0.5 * big**-k + k * big ** (-k - 1) / 12


# lgamma(2 + z) = (1 - gamma) z + sum_{k >= 2} (-1)^k (zeta(k) - 1) / k z^k, for |z| <= 1/2 the
# terms fall like 4^-k / k: 30 of them reach double precision. Exact 0 at z = 0 (x = 1 and 2).
_LGAMMA2_COEFS = (0.0, 1 - _EULER_GAMMA) + tuple(
    (-1) ** k * _zeta_minus_one(k) / k for k in range(2, 32)
)


def _lgamma_near_two(z):
    """lgamma(2 + z), |z| <= 1/2, by Horner's rule on the series above."""
    out = get_array_module(z).zeros_like(z)
    for c in reversed(_LGAMMA2_COEFS):
        out = out * z + c
    return out


@quiet_fp
def _lgamma_stirling(x):
    """lgamma(x) for x >= _LARGE:
    (x - 1/2) log x - x + log sqrt(2 pi) + sum_k B_2k / (2k (2k-1) x^(2k-1))."""
    inv, inv2 = 1.0 / x, 1.0 / (x * x)
    series = sum(
        b / (2 * k * (2 * k - 1)) * inv * inv2 ** (k - 1) for k, b in enumerate(_BERNOULLI, 1)
    )
    return (x - 0.5) * get_array_module(x).log(x) - x + _LOG_SQRT_2PI + series


def _lgamma_positive(x):
    """lgamma for x >= 1/2. Below _LARGE the recurrence lgamma(y + 1) = lgamma(y) + log y moves
    x into [3/2, 5/2) (the logs all positive: no cancellation), where the series at 2 holds."""
    xp = get_array_module(x)
    out = xp.empty_like(x)
    large = x >= _LARGE
    out[large] = _lgamma_stirling(x[large])
    y = x[~large].copy()
    acc = xp.zeros_like(y)
    low = y < 1.5  # [1/2, 3/2): lgamma(y) = lgamma(y + 1) - log y
    acc[low] -= xp.log(y[low])
    y[low] += 1.0
    while True:
        high = y >= 2.5
        if not high.any():
            break
        y[high] -= 1.0
        acc[high] += xp.log(y[high])
    out[~large] = _lgamma_near_two(y - 2.0) + acc
    return out


@quiet_fp
def _lgamma(x):
    """log |Gamma(x)| of a float64 array."""
    xp = get_array_module(x)
    out = xp.empty_like(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        right = x >= 0.5
        out[right] = _lgamma_positive(x[right])
        left = ~right & ~xp.isnan(x)
        xl = x[left]  # log|Gamma(x)| = log pi - log|sin(pi x)| - lgamma(1 - x)
        # sin(pi x) of the exact remainder x - round(x) (pi x loses digits near the poles), the
        # logs apart (pi / |sin| overflows for subnormal x), and for |x| < 1e-8 the first terms
        # -log|x| - gamma x (pi x rounds a subnormal x; the next term, pi^2 x^2 / 12, is < 1e-16)
        sine = xp.abs(xp.sin(math.pi * (xl - xp.round(xl))))
        out[left] = math.log(math.pi) - xp.log(sine) - _lgamma_positive(1.0 - xl)
        tiny = left & (xp.abs(x) < 1e-8)
        out[tiny] = -xp.log(xp.abs(x[tiny])) - _EULER_GAMMA * x[tiny]
        out[left & (x == xp.floor(x))] = math.inf  # the poles at 0, -1, -2, ...
        out[xp.isnan(x)] = math.nan
        out[x == math.inf] = math.inf
    return out


@quiet_fp
def _cot_pi(x):
    """cot(pi x), exact in the period: x is reduced to r = x - round(x) in [-1/2, 1/2] first
    (pi x itself would lose |x|'s leading digits). The subtraction is exact (r = x for
    |x| < 1/2, and x is within a factor 2 of round(x) otherwise), so a tiny negative x keeps
    its digits, where x - floor(x) rounded -1e-20 to 1 and cot to -inf."""
    xp = get_array_module(x)
    r = x - xp.round(x)
    with np.errstate(divide="ignore"):
        return 1.0 / xp.tan(math.pi * r)


@functools.cache
def _cot_derivative(n: int) -> tuple:
    """The coefficients (lowest power first) of the polynomial P_n with d^n/dt^n cot t =
    P_n(cot t): P_0(c) = c, P_{k+1}(c) = -(1 + c^2) P_k'(c), since d/dt cot t = -(1 + cot^2 t)."""
    p = [0.0, 1.0]
    for _ in range(n):
        slope = [k * p[k] for k in range(1, len(p))]  # P_k'
        p = [0.0] * (len(slope) + 2)
        for k, a in enumerate(slope):  # times -(1 + c^2)
            p[k] -= a
            p[k + 2] -= a
    return tuple(p)


def _horner(coefs: tuple, c):
    """sum_k coefs[k] c^k."""
    out = 0.0
    for a in reversed(coefs):
        out = out * c + a
    return out


@quiet_fp
def _digamma_positive(x):
    z, acc = _shift_up(x, lambda t: 1.0 / t)  # psi(x) = psi(x + k) - sum 1/(x + i)
    inv2 = 1.0 / (z * z)
    series = sum(b / (2 * k) * inv2**k for k, b in enumerate(_BERNOULLI, 1))
    return get_array_module(z).log(z) - 0.5 / z - series - acc


def _digamma(x):
    """psi(x) of a float64 array."""
    xp = get_array_module(x)
    out = xp.empty_like(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        right = x >= 0.5
        out[right] = _digamma_positive(x[right])
        left = ~right & ~xp.isnan(x)
        xl = x[left]  # psi(x) = psi(1 - x) - pi cot(pi x)
        out[left] = _digamma_positive(1.0 - xl) - math.pi * _cot_pi(xl)
        out[x == 0] = xp.copysign(math.inf, -x[x == 0])  # -inf at +0, +inf at -0 (PyTorch)
        out[(x < 0) & (x == xp.floor(x))] = math.nan
        out[xp.isnan(x)] = math.nan
        out[x == math.inf] = math.inf
    return out


def _polygamma(n: int, x):
    """psi^(n)(x) of a float64 array, for n >= 1: the asymptotic series after the recurrence for
    x > 0, the reflection formula for x < 0, +-inf at the poles 0, -1, -2, ..."""
    xp = get_array_module(x)
    out = xp.full_like(x, math.nan)
    pos = x > 0
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    fact = math.factorial(n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z, acc = _shift_up(x[pos], lambda t: 1.0 / t ** (n + 1))
        series = math.factorial(n - 1) / z**n + fact / (2 * z ** (n + 1))
        for k, b in enumerate(_BERNOULLI, 1):
            coef = b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
            series = series + coef / z ** (2 * k + n)
        out[pos] = sign * (series + fact * acc)
        poles = (x <= 0) & (x == xp.floor(x)) & xp.isfinite(x)
        neg = (x < 0) & ~poles & xp.isfinite(x)
        if neg.any():  # (1 - x > 1: the call below takes the x > 0 branch only)
            xn = x[neg]
            cot_n = _horner(_cot_derivative(n), _cot_pi(xn))
            out[neg] = -sign * _polygamma(n, 1.0 - xn) - math.pi ** (n + 1) * cot_n
        out[poles] = sign * math.inf
    return out


@quiet_fp
def _apply(fn, cupy_name: str, x, *extra):
    """Evaluate in float64 (here on NumPy arrays, with cupyx.scipy.special on the GPU); the
    result in x's dtype."""
    xp = get_array_module(x)
    x64 = x.astype(xp.float64)
    if xp is not np:  # cupyx's polygamma takes the order as an array, not a Python int
        extra = tuple(xp.asarray(e, dtype=xp.float64) for e in extra)
        return getattr(cupyx_module().scipy.special, cupy_name)(*extra, x64).astype(x.dtype)
    return fn(*extra, x64).astype(x.dtype, copy=False)


class Lgamma(Op):
    """y = log |Gamma(x)|;   dy/dx = digamma(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _apply(_lgamma, "gammaln", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * Digamma.apply(x)


class Digamma(Op):
    """y = psi(x) = Gamma'(x) / Gamma(x);   dy/dx = polygamma(1, x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _apply(_digamma, "digamma", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * Polygamma.apply(x, 1)


class Polygamma(Op):
    """y = psi^(n)(x), n >= 1;   dy/dx = psi^(n+1)(x)."""

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return _apply(_polygamma, "polygamma", x, n)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * Polygamma.apply(x, ctx.n + 1), None


def polygamma(x, n: int):
    """psi^(n)(x) for n >= 0 (n = 0 is digamma)."""
    if not (isinstance(n, int) and n >= 0):
        raise ValueError(f"polygamma: n must be a nonnegative integer, got {n!r}")
    return Digamma.apply(x) if n == 0 else Polygamma.apply(x, n)
