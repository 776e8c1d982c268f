"""The regularized incomplete gamma functions P(a, x), Q(a, x) for large a, where x^a and Gamma(a)
are too large to be rounded separately, on float64 arrays (used by incomplete_gamma.gamma_pq).

Write lambda = x / a, sigma = lambda - 1 = (x - a) / a, and eta (of sigma's sign) with

    eta^2 / 2 = lambda - 1 - log(lambda) = -log1pmx(sigma),   log1pmx(s) = log(1 + s) - s.

The prefactor of the series and of the continued fraction is then, with Stirling's
Gamma(a) = sqrt(2 pi / a) a^a e^-a Gamma*(a), log Gamma*(a) ~ sum_j B_2j / (2j (2j-1) a^(2j-1)),

    x^a e^-x / Gamma(a) = exp(a log1pmx(sigma)) sqrt(a / (2 pi)) / Gamma*(a):

the exponent a log1pmx(sigma) = -a eta^2 / 2 is rounded relative to itself, where
a log(x) - x - lgamma(a) rounds terms of size a log(a) (a relative error of a * 1e-16 in the
result: 1e-8 at a = 1e8). log1pmx(sigma) for |sigma| < 1/2 sums
-sigma t + 2 t^3 sum_j t^(2j) / (2j + 3), t = sigma / (2 + sigma) (log(1 + sigma) = 2 atanh(t);
|t| <= 1/3, 20 terms), without the cancellation of log(1 + sigma) - sigma near 0.

Temme's uniform asymptotic expansion (N. M. Temme, SIAM J. Math. Anal. 10 (1979); A. R. DiDonato
and A. H. Morris, ACM TOMS 12 (1986); DLMF 8.12.8-8.12.11):

    Q(a, x) = erfc(eta sqrt(a / 2)) / 2 + e^(-a eta^2 / 2) / sqrt(2 pi a) sum_k c_k(eta) a^-k,
    c_0(eta) = 1 / (lambda - 1) - 1 / eta,
    c_k(eta) = c_(k-1)'(eta) / eta + (-1)^k gamma_k / (lambda - 1),

gamma_k being Stirling's coefficients Gamma*(a) ~ sum_k gamma_k a^-k (1, 1/12, 1/288,
-139/51840, ...). Each c_k is analytic at eta = 0 and is summed as its Taylor polynomial
sum_n d_(k,n) eta^n (d_(0,0) = -1/3, d_(0,1) = 1/12, d_(1,0) = -1/540, ...): the table, k, n < 25
as Cephes' and SciPy's, is derived once, in exact rational arithmetic, from
lambda - 1 = eta + eta^2 / 3 + eta^3 / 36 - ..., whose coefficients follow from
(lambda - 1) d lambda / d eta = eta lambda. The smaller of P and Q is computed as
e^(-a eta^2 / 2) (erfcx(|eta| sqrt(a / 2)) / 2 +- sum / sqrt(2 pi a)) (+ for Q when x >= a, - for
P when x < a), the other as 1 minus it. The exponent rounds to about a eta^2 / 2 * 1e-16 (the
condition of P and Q in x itself), so the relative error is ~1e-15 where the result is above
1e-100 and ~1e-13 near float64's underflow; the sum's truncation (k, n < 25, a > 20,
|eta| < 0.34) is below 1e-17.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

from ..backend import get_array_module
from .erfcx import erfcx_array

if TYPE_CHECKING:  # (fractions imports decimal: imported where the table is first needed)
    from fractions import Fraction

_TEMME_TERMS = 25  # k, n < 25: the table's size


@functools.cache
def _bernoulli(count: int) -> tuple[Fraction, ...]:
    """B_0 .. B_(count-1) (B_1 = +1/2; only the even ones are used) by Akiyama-Tanigawa."""
    from fractions import Fraction

    table, out = [Fraction(0)] * count, []
    for m in range(count):
        table[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            table[j - 1] = j * (table[j - 1] - table[j])
        out.append(table[0])
    return tuple(out)


def _stirling_coefficients(count: int) -> list[Fraction]:
    """gamma_0 .. gamma_(count-1) of Gamma*(a) ~ sum_k gamma_k a^-k, as the exp of Stirling's
    log Gamma*(a) ~ sum_j B_2j / (2j (2j-1)) a^(1-2j)."""
    from fractions import Fraction

    bernoulli = _bernoulli(2 * count + 2)
    log_series = [Fraction(0)] * count  # coefficients of a^-k in log Gamma*
    for j in range(1, count):
        if 2 * j - 1 < count:
            log_series[2 * j - 1] = bernoulli[2 * j] / (2 * j * (2 * j - 1))
    gamma = [Fraction(1)] + [Fraction(0)] * (count - 1)
    for n in range(1, count):  # exp of a series: n g_n = sum_i i l_i g_(n-i)
        gamma[n] = sum(i * log_series[i] * gamma[n - i] for i in range(1, n + 1)) / n
    return gamma


@functools.cache
def temme_coefficients(terms: int = _TEMME_TERMS) -> tuple[tuple[float, ...], ...]:
    """d_(k,n), k, n < terms: c_k(eta) = sum_n d_(k,n) eta^n, exact, rounded to float64."""
    from fractions import Fraction

    degree = terms + 2 * terms  # each c_k -> c_(k+1) step uses two degrees of c_k
    # mu = lambda - 1 = sum_n m_n eta^n: mu mu' = eta (1 + mu) gives, at eta^n,
    # (n + 1) m_n + sum_(j = 2 .. n-1) j m_(n+1-j) m_j = m_(n-1)
    m = [Fraction(0), Fraction(1)] + [Fraction(0)] * degree
    for n in range(2, degree + 2):
        m[n] = (m[n - 1] - sum(j * m[n + 1 - j] * m[j] for j in range(2, n))) / (n + 1)
    # 1 / mu = (1 / eta) sum_n r_n eta^n with sum_n r_n eta^n = 1 / (mu / eta)
    r = [Fraction(1)] + [Fraction(0)] * degree
    for n in range(1, degree + 1):
        r[n] = -sum(m[i + 1] * r[n - i] for i in range(1, n + 1))
    c0 = r[1:]  # 1 / mu - 1 / eta
    gamma = _stirling_coefficients(terms)
    rows, c = [c0[:terms]], c0
    for k in range(1, terms):
        # c'/eta = c_1 / eta + sum_n (n + 2) c_(n+2) eta^n; (-1)^k gamma_k / mu adds
        # (-1)^k gamma_k (1 / eta + c_0): the 1 / eta terms cancel (c_k is analytic at 0)
        sign_gamma = (-1) ** k * gamma[k]
        assert c[1] + sign_gamma == 0
        c = [(n + 2) * c[n + 2] + sign_gamma * c0[n] for n in range(len(c) - 2)]
        rows.append(c[:terms])
    return tuple(tuple(float(v) for v in row) for row in rows)


def log1pmx(sigma):
    """log(1 + sigma) - sigma, to float64's relative accuracy, for sigma > -1."""
    xp = get_array_module(sigma)
    near = xp.abs(sigma) < 0.5
    t = xp.where(near, sigma, 0.0) / (2 + xp.where(near, sigma, 0.0))
    t2, total = t * t, 0 * t
    for j in range(19, -1, -1):  # Horner in t^2: sum_j t^(2j) / (2j + 3)
        total = total * t2 + 1 / (2 * j + 3)
    series = -sigma * t + 2 * t * t2 * total
    far = xp.log1p(xp.where(near, 0.0, sigma)) - sigma
    return xp.where(near, series, far)


def gamma_star(a):
    """Gamma*(a) = Gamma(a) / (sqrt(2 pi / a) a^a e^-a) by Stirling's series, for a >= 10
    (8 terms: the next is below 1e-17 there)."""
    xp = get_array_module(a)
    total, inv, inv2 = 0 * a, 1 / a, 1 / (a * a)
    for j in range(1, 9):
        total = total + float(_bernoulli(18)[2 * j]) / (2 * j * (2 * j - 1)) * inv
        inv = inv * inv2
    return xp.exp(total)


def prefactor_large(a, x):
    """x^a e^-x / Gamma(a) for a >= 10 and x > 0, rounded relative to a log1pmx(sigma) rather
    than to a log(a) (see the module docstring)."""
    xp = get_array_module(a)
    ratio = x / a
    sigma = xp.where(xp.abs(ratio - 1) < 0.5, (x - a) / a, ratio - 1)  # x - a exact there
    exponent = xp.where(ratio < 0.5, xp.log(ratio) - sigma, log1pmx(xp.maximum(sigma, -0.5)))
    return xp.exp(a * exponent) * xp.sqrt(a / (2 * math.pi)) / gamma_star(a)


def temme_pq(a, x):
    """(P(a, x), Q(a, x)) by Temme's expansion, for a > 20 and |x - a| < 0.3 a."""
    xp = get_array_module(a)
    sigma = (x - a) / a
    half_eta2 = -log1pmx(sigma)  # eta^2 / 2 >= 0
    eta = xp.sign(sigma) * xp.sqrt(2 * half_eta2)
    total, inv_a = 0 * a, 1 / a
    for row in reversed(temme_coefficients()):  # Horner in 1/a over k, in eta over n
        ck = 0 * eta
        for d in reversed(row):
            ck = ck * eta + d
        total = total * inv_a + ck
    smaller = xp.exp(-a * half_eta2) * (
        0.5 * erfcx_array(xp.abs(eta) * xp.sqrt(a / 2)) + xp.where(eta >= 0, 1.0, -1.0) * total
        / xp.sqrt(2 * math.pi * a)
    )  # fmt: skip
    q = xp.where(eta >= 0, smaller, 1 - smaller)
    return xp.where(eta >= 0, 1 - smaller, smaller), q
