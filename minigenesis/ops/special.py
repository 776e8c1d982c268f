"""The gamma-function family: lgamma, digamma and polygamma, with gradients of every order.

    lgamma(x)       = log |Gamma(x)|
    digamma(x)      = d/dx lgamma(x)                     (psi)
    polygamma(n, x) = d^n/dx^n digamma(x)                (psi^(n); n = 1 is the trigamma)

so each op's backward is the next one: d lgamma = digamma, d digamma = polygamma(1, .),
d polygamma(n, .) = polygamma(n + 1, .). The distributions need them (Gamma, Beta: log Gamma in
the normaliser, digamma in the entropy and in the gradients with respect to concentrations).

NumPy has none of them, so they are computed here in float64 by the textbook route (CuPy arrays go
to cupyx.scipy.special): move x up by the recurrences Gamma(x + 1) = x Gamma(x) and
psi^(n)(x + 1) = psi^(n)(x) + (-1)^n n! / x^(n+1) until x >= 12, where the asymptotic (Stirling)
series in 1/x is accurate to about 1e-15; for x < 1/2, lgamma and digamma use the reflection
formulas Gamma(x) Gamma(1 - x) = pi / sin(pi x) and psi(1 - x) - psi(x) = pi cot(pi x).
polygamma(n >= 1, .) is defined here for x > 0 (NaN elsewhere): what distributions need.
"""

from __future__ import annotations

import math

import numpy as np

from ..autograd.function import Op
from ..backend import cupyx_module, get_array_module

_LARGE = 12.0  # where the asymptotic series take over
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
# Bernoulli numbers B_2, B_4, ..., B_14
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _float64(x):
    return x.astype(np.float64) if x.dtype != np.float64 else x


def _shift_up(x, term):
    """(z, acc): z = x + k >= _LARGE elementwise, acc = sum of term(x + i) for i < k."""
    z = x.copy()
    acc = np.zeros_like(z)
    while True:
        low = z < _LARGE
        if not low.any():
            return z, acc
        acc[low] += term(z[low])
        z[low] += 1.0


def _lgamma_positive(x):
    z, acc = _shift_up(x, np.log)  # lgamma(x) = lgamma(x + k) - log(x (x+1) ... (x+k-1))
    inv, inv2 = 1.0 / z, 1.0 / (z * z)
    series = sum(
        b / (2 * k * (2 * k - 1)) * inv * inv2 ** (k - 1) for k, b in enumerate(_BERNOULLI, 1)
    )
    return (z - 0.5) * np.log(z) - z + _LOG_SQRT_2PI + series - acc


def _lgamma_np(x):
    x = _float64(np.asarray(x))
    out = np.empty_like(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        right = x >= 0.5
        out[right] = _lgamma_positive(x[right])
        left = ~right & ~np.isnan(x)
        xl = x[left]  # log|Gamma(x)| = log(pi / |sin(pi x)|) - lgamma(1 - x)
        out[left] = np.log(np.pi / np.abs(np.sin(np.pi * xl))) - _lgamma_positive(1.0 - xl)
        out[left & (x == np.floor(x))] = np.inf  # the poles at 0, -1, -2, ...
        out[np.isnan(x)] = np.nan
        out[x == np.inf] = np.inf
    return out


def _digamma_positive(x):
    z, acc = _shift_up(x, lambda t: 1.0 / t)  # psi(x) = psi(x + k) - sum 1/(x + i)
    inv2 = 1.0 / (z * z)
    series = sum(b / (2 * k) * inv2**k for k, b in enumerate(_BERNOULLI, 1))
    return np.log(z) - 0.5 / z - series - acc


def _digamma_np(x):
    x = _float64(np.asarray(x))
    out = np.empty_like(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        right = x >= 0.5
        out[right] = _digamma_positive(x[right])
        left = ~right & ~np.isnan(x)
        xl = x[left]  # psi(x) = psi(1 - x) - pi / tan(pi x)
        out[left] = _digamma_positive(1.0 - xl) - np.pi / np.tan(np.pi * xl)
        out[x == 0] = -np.inf
        out[(x < 0) & (x == np.floor(x))] = np.nan
        out[np.isnan(x)] = np.nan
        out[x == np.inf] = np.inf
    return out


def _polygamma_np(n: int, x):
    """psi^(n)(x) for n >= 1, x > 0."""
    x = _float64(np.asarray(x))
    out = np.full_like(x, np.nan)
    pos = x > 0
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    fact = math.factorial(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        z, acc = _shift_up(x[pos], lambda t: 1.0 / t ** (n + 1))
        series = math.factorial(n - 1) / z**n + fact / (2 * z ** (n + 1))
        for k, b in enumerate(_BERNOULLI, 1):
            series = series + b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / z ** (
                2 * k + n
            )
        out[pos] = sign * (series + fact * acc)
    return out


def _apply(np_fn, cupy_name: str, x, *extra):
    """Evaluate in float64 (NumPy here, cupyx.scipy.special on the GPU); result in x's dtype."""
    xp = get_array_module(x)
    if xp is not np:
        special = cupyx_module().scipy.special
        return getattr(special, cupy_name)(*extra, x.astype(xp.float64)).astype(x.dtype)
    return np.asarray(np_fn(*extra, x)).astype(x.dtype, copy=False)


class Lgamma(Op):
    """y = log |Gamma(x)|;   dy/dx = digamma(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _apply(_lgamma_np, "gammaln", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * Digamma.apply(x)


class Digamma(Op):
    """y = psi(x) = Gamma'(x) / Gamma(x);   dy/dx = polygamma(1, x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _apply(_digamma_np, "digamma", x)

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
        return _apply(_polygamma_np, "polygamma", x, n)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * Polygamma.apply(x, ctx.n + 1), None
