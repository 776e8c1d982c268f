"""``cupyx`` of the stand-in: ``scatter_add`` / ``scatter_max`` / ``scatter_min`` and
``scipy.special``'s ``erf`` / ``erfc`` / ``erfcx`` / ``erfinv`` and ``gammaln`` / ``digamma`` /
``polygamma``.

The special functions are evaluated one element at a time in Python floats, by formulas of their
own (not minigenesis' ``ops/special.py``), to about 1e-15: the GPU paths are checked against an
independent computation, as they would be against CuPy's kernels."""

from __future__ import annotations

import math
import types

import numpy as np

from . import _BF16, _unwrap, _wrap
from ._indexing import wrap_at


def scatter_add(a, slices, value) -> None:
    """``a[slices] += value`` with repeated indices accumulated (CuPy's unbuffered add); indices
    out of range wrap around, unchecked, as in CuPy's kernel (and in scatter_max/min)."""
    np.add.at(*wrap_at((_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))))


def scatter_max(a, slices, value) -> None:
    """``a[slices] = max(a[slices], value)``, every value of a repeated index taken (unbuffered)."""
    np.maximum.at(*wrap_at((_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))))


def scatter_min(a, slices, value) -> None:
    """``a[slices] = min(a[slices], value)``, every value of a repeated index taken (unbuffered)."""
    np.minimum.at(*wrap_at((_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))))


def _elementwise(one):
    """A device ufunc from ``one`` (Python floats -> a Python float), broadcast over its device
    arguments; the result in the last argument's float dtype (float64 for integers), as CuPy's.
    Like CuPy's special functions it has no bfloat16 loop: a bfloat16 argument raises."""

    def ufunc(*args):
        data = [_unwrap(a) for a in args]
        if any(getattr(d, "dtype", None) == _BF16 for d in data):
            raise TypeError(
                f"Wrong type (bfloat16) of arguments for cupyx.scipy.special.{one.__name__}: "
                "CuPy has no bfloat16 loop for this ufunc"
            )
        with np.errstate(all="ignore"):  # a GPU kernel never warns of NaN or overflow
            out = np.vectorize(one, otypes=[np.float64])(*data)
        x = np.asarray(data[-1])
        return _wrap(out.astype(x.dtype if x.dtype.kind == "f" else np.float64))

    return ufunc


def _erfinv_one(v: float) -> float:
    if abs(v) >= 1:
        return float("inf") * v if abs(v) == 1 else float("nan")
    x = 0.0
    for _ in range(60):  # Newton on erf(x) - v
        x -= (math.erf(x) - v) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


# B_2j / (2j)! for j = 1..7 (Bernoulli numbers): the coefficients of the asymptotic series below
_BERNOULLI = [1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000]
_BERNOULLI.append(7 / 6 / math.factorial(14))


def _is_pole(v: float) -> bool:
    """v is 0 or a negative integer (math.floor would raise on -inf, which is no pole)."""
    return v <= 0 and not math.isinf(v) and v == math.floor(v)


def _gammaln_one(v: float) -> float:
    return math.inf if _is_pole(v) else math.lgamma(v)  # inf at the poles


def _digamma_one(v: float) -> float:
    """psi(v): up by psi(v) = psi(v + 1) - 1/v to v >= 15, then
    psi(v) ~ log v - 1/(2v) - sum_j B_2j / (2j v^2j); reflection psi(1 - v) - pi cot(pi v)
    below 0; -inf at +0 (+inf at -0) and NaN at the negative integers, as SciPy's."""
    if _is_pole(v):
        return math.copysign(math.inf, -v) if v == 0 else math.nan
    if v == -math.inf:  # no limit at -inf (poles all the way): NaN, as SciPy's
        return math.nan
    if v < 0:
        return _digamma_one(1 - v) - math.pi / math.tan(math.pi * v)
    acc = 0.0
    while v < 15:
        acc -= 1 / v
        v += 1
    series = sum(c * math.factorial(2 * j + 1) / v ** (2 * j + 2) for j, c in enumerate(_BERNOULLI))
    return acc + math.log(v) - 0.5 / v - series


def _hurwitz_zeta_one(s: float, q: float) -> float:
    """zeta(s, q) = sum_k (q + k)^-s for s > 1: terms summed until q + k >= 15 + s, the rest by
    Euler-Maclaurin, w^(1-s)/(s-1) + w^-s/2 + sum_j B_2j/(2j)! s (s+1)...(s+2j-2) w^(-s-2j+1)."""
    if math.isnan(q) or q == -math.inf:  # no limit at -inf (SciPy's NaN); the loop never ends
        return math.nan
    acc = 0.0
    while q < 15 + s:
        if q == 0:
            return math.inf
        acc += q**-s
        q += 1
    tail, rising = q ** (1 - s) / (s - 1) + 0.5 * q**-s, s
    for j, c in enumerate(_BERNOULLI):
        tail += c * rising * q ** (-s - 2 * j - 1)
        rising *= (s + 2 * j + 1) * (s + 2 * j + 2)
    return acc + tail


def _polygamma_one(n: float, v: float) -> float:
    """psi^(n)(v) = (-1)^(n+1) n! zeta(n + 1, v) for n >= 1 (n = 0: digamma)."""
    if n == 0:
        return _digamma_one(v)
    return (-1) ** (n + 1) * math.factorial(int(n)) * _hurwitz_zeta_one(n + 1, v)


def _erfcx_one(v: float) -> float:
    """exp(v^2) erfc(v): the product up to v = 25 (relative error ~v^2 1e-16), beyond it
    Laplace's asymptotic series 1 / (v sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2 v^2)^k (k <= 6)."""
    if math.isnan(v):
        return v
    if v < -26.7:
        return math.inf
    if v <= 25.0:
        return math.exp(v * v) * math.erfc(v)
    total, term = 1.0, 1.0
    for k in range(1, 7):
        term *= -(2 * k - 1) / (2 * v * v)
        total += term
    return total / (v * math.sqrt(math.pi))


scipy = types.SimpleNamespace(
    special=types.SimpleNamespace(
        erf=_elementwise(math.erf),
        erfc=_elementwise(math.erfc),
        erfcx=_elementwise(_erfcx_one),
        erfinv=_elementwise(_erfinv_one),
        gammaln=_elementwise(_gammaln_one),
        digamma=_elementwise(_digamma_one),
        polygamma=_elementwise(_polygamma_one),  # polygamma(n, x): the order n an array too
    )
)
