"""Second derivatives of the ELU family and softplus, including at their kinks: the closed form
away from them, and PyTorch's convention at them (elu/selu/celu'' = 0 at x = 0, the exponential
branch counting only for x < 0; softplus'' = 0 from beta x = threshold on)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _derivatives(f, x0: float) -> tuple[float, float]:
    x = mg.tensor([x0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), x)
    return g.item(), h.item()


# (f, c = alpha * scale, k, scale): y = scale x for x > 0, c (e^(k x) - 1) for x <= 0
ELUS = {
    "elu": (lambda t: F.elu(t, alpha=1.3), 1.3, 1.0, 1.0),
    "selu": (F.selu, SELU_ALPHA * SELU_SCALE, 1.0, SELU_SCALE),
    "celu": (lambda t: F.celu(t, alpha=0.5), 0.5, 2.0, 1.0),
}


@pytest.mark.parametrize("name", list(ELUS))
@pytest.mark.parametrize("x0", [0.0, -0.0, -0.7, -3.0, 0.4, 2.0])
def test_elu_family_second_derivative_is_the_closed_form_and_zero_at_zero(name, x0):
    f, c, k, scale = ELUS[name]
    slope, curvature = _derivatives(f, x0)
    if x0 > 0:
        expected = (scale, 0.0)
    else:  # the first derivative at 0 is the left one, c k; the second counts only x < 0
        expected = (c * k * math.exp(k * x0), c * k * k * math.exp(k * x0) if x0 < 0 else 0.0)
    np.testing.assert_allclose((slope, curvature), expected, rtol=1e-14)


@pytest.mark.parametrize(
    "beta, threshold, x0", [(1.0, 20.0, 20.0), (2.0, 3.0, 1.5), (1.0, 20.0, 0.0), (2.0, 3.0, 1.0)]
)
def test_softplus_second_derivative_is_sigmoid_slope_below_the_threshold_else_zero(
    beta, threshold, x0
):
    z = beta * x0
    s = 1 / (1 + math.exp(-z))
    slope, curvature = _derivatives(lambda t: F.softplus(t, beta=beta, threshold=threshold), x0)
    np.testing.assert_allclose(slope, 1.0 if z > threshold else s, rtol=1e-14)
    np.testing.assert_allclose(curvature, beta * s * (1 - s) if z < threshold else 0.0, rtol=1e-12)
