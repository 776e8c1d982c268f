"""special.erfcx(x) = exp(x^2) erfc(x): float64 values within a few ulps of a 60-digit reference
computed here with Python's decimal module (the Maclaurin series of erf for |x| <= 6, Laplace's
continued fraction beyond), finite where erfc underflows, PyTorch's limits, and the gradient
against central differences."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd.gradcheck import gradcheck

_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")


def _erfcx_reference(x: float) -> float:
    """exp(x^2) erfc(x) with 60 significant digits (then rounded once to float64)."""
    with localcontext() as ctx:
        ctx.prec = 60
        d = Decimal(x)  # exact: a float64 is a finite binary fraction
        sqrt_pi = _PI.sqrt()
        a = abs(d)
        if a <= 6:  # erf by its Maclaurin series: exp(36) ~ 1e16 cancels, 44 digits remain
            term, total, n = a, a, 0
            while abs(term) > Decimal(10) ** -70:
                n += 1
                term = term * (-a * a) / n
                total += term / (2 * n + 1)
            erfcx_a = (1 - 2 / sqrt_pi * total) * (a * a).exp()
        else:  # erfc(a) e^(a^2) = 1/sqrt(pi) / (a + (1/2)/(a + 1/(a + ...))), fast for a > 6
            f = Decimal(0)
            for k in range(400, 0, -1):
                f = (Decimal(k) / 2) / (a + f)
            erfcx_a = 1 / sqrt_pi / (a + f)
        if d < 0:
            return float(2 * (d * d).exp() - erfcx_a)
        return float(erfcx_a)


def test_erfcx_is_within_a_few_ulps_of_a_60_digit_reference_across_its_ranges():
    xs = np.concatenate(
        [
            np.linspace(-26.0, -0.01, 41),
            np.linspace(0.0, 6.0, 61),  # across the switch points 0.5, 1 and 2
            [0.4999999999, 0.5, 0.9999999999, 1.0, 1.9999999999, 2.0],
            np.geomspace(6.5, 1e12, 25),
        ]
    )
    want = np.array([_erfcx_reference(float(x)) for x in xs])
    got = mg.special.erfcx(mg.tensor(xs)).numpy()
    ulps = np.abs(got - want) / np.spacing(np.abs(want))
    assert ulps.max() <= 4, (xs[ulps.argmax()], ulps.max())


def test_erfcx_stays_finite_where_erfc_underflows_and_follows_the_asymptote():
    x = np.array([30.0, 1e3, 1e10, 1e150])
    got = mg.special.erfcx(mg.tensor(x)).numpy()
    # erfc(30) = 0 in float64, yet erfcx(x) ~ 1/(sqrt(pi) x) (1 - 1/(2 x^2) + 3/(4 x^4) - ...)
    u = 1 / (2 * x * x)
    asymptote = 1 / (math.sqrt(math.pi) * x) * (1 - u + 3 * u**2 - 15 * u**3 + 105 * u**4)
    np.testing.assert_allclose(got[0], asymptote[0], rtol=1e-11)  # (the series' next term)
    np.testing.assert_allclose(got[1:], asymptote[1:], rtol=3e-16)


def test_erfcx_limits_and_dtypes_follow_pytorch():
    x = mg.tensor([-30.0, -math.inf, math.inf, math.nan, 0.0])
    got = mg.special.erfcx(x)
    assert got.dtype == mg.float32
    assert got[0].item() == math.inf and got[1].item() == math.inf and got[2].item() == 0.0
    assert math.isnan(got[3].item()) and got[4].item() == 1.0
    ints = mg.special.erfcx(mg.tensor([1, 2]))  # integers compute in the default float dtype
    assert ints.dtype == mg.float32
    np.testing.assert_allclose(ints.numpy(), [_erfcx_reference(1.0), _erfcx_reference(2.0)])


@pytest.mark.parametrize("x", [-3.0, -0.7, 0.2, 0.6, 1.4, 3.0, 9.0])
def test_erfcx_gradient_matches_central_differences(x):
    t = mg.tensor([x], dtype=mg.float64, requires_grad=True)
    assert gradcheck(mg.special.erfcx, (t,), eps=1e-6, atol=1e-8, rtol=1e-6)
    y = mg.special.erfcx(t)
    (g,) = mg.autograd.grad(y.sum(), t, create_graph=True)
    # the second derivative: (2 x erfcx - 2/sqrt(pi))' = 2 erfcx + 2 x erfcx'
    (gg,) = mg.autograd.grad(g.sum(), t)
    want = 2 * y.item() + 2 * x * g.item()
    np.testing.assert_allclose(gg.item(), want, rtol=1e-12)
