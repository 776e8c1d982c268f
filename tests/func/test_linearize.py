"""``mg.func.linearize``: the value at the primals and a function of the tangents giving the
Jacobian-vector product there, checked against float64 central differences."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
from minigenesis.func import linearize


def f(x, w):
    return (x @ w).tanh().sum(0)


def test_linearize_matches_central_differences() -> None:
    rng = np.random.default_rng(0)
    x, w = (mg.tensor(rng.standard_normal(s)) for s in ((4, 3), (3, 2)))
    dx, dw = (mg.tensor(rng.standard_normal(s)) for s in ((4, 3), (3, 2)))
    out, jvp_fn = linearize(f, x, w)
    np.testing.assert_allclose(out.numpy(), f(x, w).numpy())
    h = 1e-6
    central = (f(x + h * dx, w + h * dw) - f(x - h * dx, w - h * dw)) / (2 * h)
    np.testing.assert_allclose(jvp_fn(dx, dw).numpy(), central.numpy(), atol=1e-7)
    np.testing.assert_allclose(jvp_fn(dx, dw * 0).numpy() + jvp_fn(dx * 0, dw).numpy(),
                               jvp_fn(dx, dw).numpy(), atol=1e-12)  # fmt: skip
