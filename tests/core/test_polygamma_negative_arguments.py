"""digamma's gradient and polygamma(n >= 1, x) for x < 0 against the float64 truth, from the
series psi^(n)(x) = (-1)^(n+1) n! sum_k (x + k)^-(n+1) (summed directly with an Euler-Maclaurin
tail: independent of the reflection formula the implementation uses), and the poles."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg


def _polygamma_truth(n: int, x: float, terms: int = 2000) -> float:
    head = math.fsum((x + k) ** -(n + 1) for k in range(terms))
    z = x + terms
    tail = z**-n / n + z ** -(n + 1) / 2 + (n + 1) * z ** -(n + 2) / 12
    return (-1) ** (n + 1) * math.factorial(n) * (head + tail)


XS = [-1.903, -0.5, -0.001, -3.7, -20.25, -99.9, 0.3, 4.5]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_polygamma_of_negative_arguments_matches_the_series(n):
    got = mg.polygamma(n, mg.tensor(XS, dtype=mg.float64)).numpy()
    expected = np.array([_polygamma_truth(n, x) for x in XS])
    np.testing.assert_allclose(got, expected, rtol=1e-11)


def test_digamma_gradient_for_negative_x_is_the_trigamma():
    x = mg.tensor(XS, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg.digamma(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [_polygamma_truth(1, v) for v in XS], rtol=1e-11)
    np.testing.assert_allclose(g[0].item(), 109.22263804295673, rtol=1e-11)
    (h,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [_polygamma_truth(2, v) for v in XS], rtol=1e-11)


def test_polygamma_at_the_poles_is_infinite_with_pytorchs_sign():
    x = mg.tensor([0.0, -0.0, -1.0, -7.0], dtype=mg.float64)
    assert mg.polygamma(1, x).tolist() == [math.inf] * 4
    assert mg.polygamma(2, x).tolist() == [-math.inf] * 4
    assert mg.polygamma(3, mg.tensor([math.inf, -math.inf])).tolist()[0] == 0.0
    assert math.isnan(mg.polygamma(3, mg.tensor([-math.inf])).item())


def test_digamma_of_large_negative_arguments_keeps_its_digits():
    """psi(x) for x = -1e6 - 1/4: pi x would lose x's leading digits; the reflection reduces x
    into its period first. Truth: psi(1 - x) - pi cot(pi x), cot(-pi/4) = -1."""
    x = -1e6 - 0.25
    psi_1_minus_x = math.log(1 - x) - 1 / (2 * (1 - x)) - 1 / (12 * (1 - x) ** 2)
    got = mg.digamma(mg.tensor([x], dtype=mg.float64)).item()
    np.testing.assert_allclose(got, psi_1_minus_x + math.pi, rtol=1e-13)
