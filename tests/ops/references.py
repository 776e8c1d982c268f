"""Float64 references the database needs that NumPy lacks, written from their textbook forms.

They are slow (Python loops over elements) and exact to ~1e-13, which is all the battery needs
for its small samples.
"""

from __future__ import annotations

import math

import numpy as np


def _elementwise(fn):
    def ref(x, *rest):
        x = np.asarray(x, np.float64)
        out = np.empty_like(x)
        for i, v in np.ndenumerate(x):
            out[i] = fn(float(v), *rest)
        return out

    return ref


def _lgamma(x: float) -> float:
    if math.isnan(x):
        return x
    if math.isinf(x):
        return math.inf
    if x <= 0 and x == math.floor(x):
        return math.inf  # the poles
    return math.lgamma(x)


def _digamma(x: float) -> float:
    """psi(x): the reflection psi(1 - x) - pi / tan(pi x) for x < 0.5, the recurrence
    psi(x) = psi(x + 1) - 1 / x up to x >= 6, then the asymptotic series."""
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    if x == 0:
        return -math.copysign(math.inf, x)
    if x < 0 and x == math.floor(x):
        return math.nan
    if x < 0.5:
        return _digamma(1 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 6:
        acc -= 1 / x
        x += 1
    inv2 = 1 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return acc + math.log(x) - 0.5 / x - series


def _erfinv(y: float) -> float:
    """The inverse of erf by Newton's method from a rough start (erf' = 2/sqrt(pi) e^{-x^2})."""
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    x = math.copysign(math.sqrt(-math.log((1 - abs(y)) / 2)), y) * 0.8 if abs(y) > 0.7 else y
    for _ in range(100):
        step = (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
        x -= step
        if abs(step) < 1e-16 * max(1.0, abs(x)):
            break
    return x


def _polygamma(n: int, x: float) -> float:
    """psi^(n)(x) = (-1)^(n+1) n! sum_k 1 / (x + k)^(n+1), the sum's tail by Euler-Maclaurin."""
    if n == 0:
        return _digamma(x)
    if math.isnan(x):
        return x
    if x <= 0 and x == math.floor(x):
        return math.nan if n % 2 == 0 else math.inf
    total, k = 0.0, 0
    while x + k < 20:
        total += 1 / (x + k) ** (n + 1)
        k += 1
    z = x + k
    # sum_{j>=0} f(z + j), f(t) = t^-(n+1): integral + f/2 - sum B_2j/(2j)! f^(2j-1)
    tail = z ** (-n) / n + 0.5 * z ** (-(n + 1))
    bern = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66)
    deriv = float(n + 1)  # (n+1)(n+2)...: the magnitude of f's odd derivatives
    for j, b in enumerate(bern, start=1):
        tail += b / math.factorial(2 * j) * deriv * z ** (-(n + 2 * j))
        deriv *= (n + 2 * j) * (n + 2 * j + 1)
    total += tail
    return (-1) ** (n + 1) * math.factorial(n) * total


lgamma = _elementwise(_lgamma)
digamma = _elementwise(_digamma)
erfinv = _elementwise(_erfinv)


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    return _elementwise(lambda v: _polygamma(n, v))(x)
