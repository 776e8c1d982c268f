"""mg.special.gammainc / gammaincc (P, Q) for large a with x near a, where the series and the
continued fraction would need ~sqrt(a) steps and x^a / Gamma(a) rounds a log(a): Temme's
expansion there (ops/incomplete_gamma_large.py), against mpmath (50 digits; its series do not
converge beyond a ~ 1e5, so there the reference is a quadrature of the density) and against
closed forms that need no reference library."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.special as S
from minigenesis.ops.incomplete_gamma import gamma_pq
from minigenesis.ops.incomplete_gamma_large import temme_coefficients


def _pq(a, x):
    a, x = np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64)
    return gamma_pq(a, x, False), gamma_pq(a, x, True)


def _reference_pq(mpmath, a: float, x: float):
    """(P, Q) by mpmath's gammainc, or for a > 1e5, where its series do not converge, by
    quadrature of t^(a-1) e^-t / Gamma(a) from x to 40 sqrt(a) beyond the peak (x within
    30 sqrt(a) of a: the integrand at the window's far end is e^-350 of its value at x)."""
    a, x = mpmath.mpf(a), mpmath.mpf(x)
    s, lg = mpmath.sqrt(a), mpmath.loggamma(a)

    def quad(lo, hi):
        marks = [a + k * s for k in range(-60, 61, 2) if lo < a + k * s < hi]
        return mpmath.quad(lambda t: mpmath.exp((a - 1) * mpmath.log(t) - t - lg), [lo, *marks, hi])

    if a > 1e5:  # (mpmath's series take seconds to give up there)
        return float(quad(max(min(x, a) - 40 * s, 0), x)), float(quad(x, max(x, a) + 40 * s))
    p = mpmath.gammainc(a, 0, x, regularized=True)
    return float(p), float(mpmath.gammainc(a, x, mpmath.inf, regularized=True))


# (a, x): the band |x - a| < 0.3 a for a from 21 to 1e12, its edges, and the old methods' regions
_POINTS = [
    (21.0, 15.0), (25.0, 30.0), (150.0, 140.0), (300.0, 290.0), (1e3, 1300.0), (1e4, 1e4 + 50),
    (1e5, 95000.0), (1e8, 1e8), (1e8, 1e8 - 3e4), (1e10, 1e10 + 2e5), (1e12, 1e12 + 3e6),
    (1e12, 1e12 - 5e6), (1e12, 1e12 - 1e7), (5.0, 3.0), (0.5, 2.0), (15.0, 18.0), (25.0, 80.0),
    (1e3, 500.0), (1e4, 7000.0),
]  # fmt: skip


def test_gammainc_for_large_a_near_a_matches_mpmath() -> None:
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    a, x = np.array(_POINTS).T
    p, q = _pq(a, x)
    want = np.array([_reference_pq(mpmath, ai, xi) for ai, xi in _POINTS])
    # relative 1e-13: the deepest tails here (P ~ 1e-249) carry a eta^2 / 2 * 1e-16 ~ 6e-14
    np.testing.assert_allclose(p, want[:, 0], rtol=1e-13, atol=0)
    np.testing.assert_allclose(q, want[:, 1], rtol=1e-13, atol=0)


def test_gammainc_at_a_equals_x_follows_ramanujans_expansion() -> None:
    """P(a, a) = 1/2 + 1 / (3 sqrt(2 pi a)) + O(a^-3/2) (the O term < 1e-12 from a = 1e8 on):
    the series and continued fraction, stopped after 2,000 steps, gave P(1e8, 1e8) = 0.079."""
    a = np.array([1e8, 1e9, 1e10, 1e12])
    p, q = _pq(a, a)
    np.testing.assert_allclose(p, 0.5 + 1 / (3 * np.sqrt(2 * math.pi * a)), rtol=0, atol=2e-12)
    np.testing.assert_allclose(p + q, 1.0, rtol=0, atol=2e-16)


@pytest.mark.parametrize("a", [30.0, 250.0, 1e4, 1e6, 1e8])
def test_gammainc_steps_down_in_a_by_the_power_term(a: float) -> None:
    """P(a + 1, x) = P(a, x) - x^a e^-x / Gamma(a + 1), and P + Q = 1, on a band of x around a
    crossing from the old methods into Temme's band. The term computed here rounds a log(a):
    its own error, up to a log(a) 4e-16 of itself, is allowed for (P(1e8, x) was off by 0.4)."""
    x = a + np.sqrt(a) * np.linspace(-4, 4, 9)
    p0, q0 = _pq(a, x)
    p1, _ = _pq(a + 1, x)
    term = np.exp(a * np.log(x) - x - math.lgamma(a + 1))
    allowed = 1e-14 + term * a * math.log(a) * 4e-16
    assert np.all(np.abs(p1 - (p0 - term)) <= allowed), np.abs(p1 - (p0 - term)) / allowed
    np.testing.assert_allclose(p0 + q0, 1.0, rtol=0, atol=2e-16)


def test_temme_coefficients_are_the_published_rationals() -> None:
    """d_(k,n) of Temme's c_k(eta) = sum_n d_(k,n) eta^n (DiDonato & Morris 1986, table)."""
    d = temme_coefficients()
    published = {
        (0, 0): Fraction(-1, 3), (0, 1): Fraction(1, 12), (0, 2): Fraction(-2, 135),
        (0, 3): Fraction(1, 864), (0, 4): Fraction(1, 2835), (1, 0): Fraction(-1, 540),
        (1, 1): Fraction(-1, 288), (1, 2): Fraction(1, 378), (2, 0): Fraction(25, 6048),
        (2, 1): Fraction(-139, 51840),
    }  # fmt: skip
    for (k, n), value in published.items():
        assert d[k][n] == float(value), (k, n)


def test_gammainc_gradient_in_x_for_large_a_is_the_gamma_density() -> None:
    """dP/dx = x^(a-1) e^-x / Gamma(a) near x = a for large a (~ 1 / sqrt(2 pi a) e^-(x-a)^2/2a),
    against float64 central differences of P itself."""
    a = np.array([50.0, 1e4, 1e8])
    x = a + np.sqrt(a) * np.array([0.5, -1.0, 2.0])
    xt = mg.tensor(x, requires_grad=True)
    S.gammainc(mg.tensor(a), xt).sum().backward()
    h = 1e-3 * np.sqrt(a)
    central = (_pq(a, x + h)[0] - _pq(a, x - h)[0]) / (2 * h)
    np.testing.assert_allclose(xt.grad.numpy(), central, rtol=1e-6)
    xt.grad = None
    S.gammaincc(mg.tensor(a), xt).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), -central, rtol=1e-6)


def test_gammainc_in_float32_for_large_a_rounds_the_float64_value() -> None:
    a = np.array([1e6, 2e7, 40.0], dtype=np.float32)
    x = np.array([1e6 + 500, 2e7 - 4e3, 45.0], dtype=np.float32)
    got = S.gammainc(mg.tensor(a), mg.tensor(x))
    assert got.dtype == mg.float32
    want = _pq(a.astype(np.float64), x.astype(np.float64))[0].astype(np.float32)
    np.testing.assert_array_equal(got.numpy(), want)
    assert 0.6 < float(got[0]) < 0.75  # P(1e6, 1e6 + 0.5 sqrt(1e6)) ~ Phi(0.5) = 0.69


def test_gammainc_gradient_at_x_equals_a_is_stirlings_density() -> None:
    """dP/dx at x = a is a^a e^-a / Gamma(a + 1) = 1 / (sqrt(2 pi a) Gamma*(a + 1)), Gamma*(a + 1) =
    1 + 1 / (12 a) + O(a^-2)."""
    a = np.array([1e6, 1e8, 1e10, 1e12])
    xt = mg.tensor(a, requires_grad=True)
    S.gammaincc(mg.tensor(a), xt).sum().backward()
    want = -1 / (np.sqrt(2 * math.pi * a) * (1 + 1 / (12 * a)))
    np.testing.assert_allclose(xt.grad.numpy(), want, rtol=1e-14)


def test_gammainc_gradient_for_large_a_matches_mpmaths_density() -> None:
    """exp((a-1) log x - x - lgamma(a)) rounded a log(a): off by 4e-3 at (1e12, 1e12 - 2e6)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    a = np.array([1e8, 1e12, 1e12, 3.3e9, 40.0])
    x = np.array([1e8 + 3e3, 1e12 - 2e6, 1e12 + 1234567.0, 3.3e9 + 1e5, 31.0])
    xt = mg.tensor(x, requires_grad=True)
    S.gammainc(mg.tensor(a), xt).sum().backward()
    want = [
        float(mpmath.exp((ai - 1) * mpmath.log(xi) - xi - mpmath.loggamma(ai)))
        for ai, xi in zip(a, x)
    ]
    np.testing.assert_allclose(xt.grad.numpy(), want, rtol=1e-14)


def test_gammainc_second_derivative_in_x_for_large_a() -> None:
    """d2P/dx2 = x^(a-1) e^-x / Gamma(a) ((a - 1) / x - 1), through create_graph."""
    a = np.array([50.0, 1e8])
    x = np.array([45.0, 1e8 + 2e4])
    xt = mg.tensor(x, requires_grad=True)
    (g,) = mg.autograd.grad(S.gammainc(mg.tensor(a), xt).sum(), xt, create_graph=True)
    g.sum().backward()
    density = np.exp((a - 1) * np.log(x) - x - np.array([math.lgamma(v) for v in a]))
    np.testing.assert_allclose(xt.grad.numpy(), density * ((a - 1) / x - 1), rtol=1e-6)
