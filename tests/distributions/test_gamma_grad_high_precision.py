"""dz/dalpha of a standard Gamma draw against the incomplete gamma function in 40-digit
arithmetic (mpmath): -(dP/dalpha) / f with dP/dalpha by mpmath's numerical differentiation of
its own P (or Q above alpha + 1), over alpha from 1e-3 to 1e4 and z from 1e-300 through the bulk
(alpha +- 6 sqrt(alpha)) into the far upper tail."""

from __future__ import annotations

import numpy as np
import pytest

from minigenesis.distributions.gamma_grad import standard_gamma_grad

mpmath = pytest.importorskip("mpmath")


def _oracle(alpha: float, z: float) -> float:
    with mpmath.workdps(40):
        a, x = mpmath.mpf(alpha), mpmath.mpf(z)
        if x < a + 1:
            dp = mpmath.diff(lambda s: mpmath.gammainc(s, 0, x, regularized=True), a)
        else:
            dp = -mpmath.diff(lambda s: mpmath.gammainc(s, x, mpmath.inf, regularized=True), a)
        pdf = mpmath.exp((a - 1) * mpmath.log(x) - x - mpmath.loggamma(a))
        return float(-dp / pdf)


@pytest.mark.parametrize("alpha", [1e-3, 0.02, 0.3, 1.0, 3.0, 10.0, 100.0, 1e3, 1e4])
def test_standard_gamma_grad_to_twelve_digits(alpha: float) -> None:
    s = max(np.sqrt(alpha), 1.0)
    z = np.array([1e-300, 1e-30, 1e-8, 1e-3, *(alpha + s * np.linspace(-6, 12, 10)), alpha + 1])
    z = z[z > 0]
    got = standard_gamma_grad(np.full(z.shape, alpha), z)
    want = np.array([_oracle(alpha, zi) for zi in z])
    np.testing.assert_allclose(got, want, rtol=1e-12 if alpha < 1e3 else 1e-11)
