"""A gradient handed to backward / autograd.grad in another dtype than its output is cast to
the output's dtype first (as PyTorch does), so every backward sees its own output's dtype."""

from __future__ import annotations

import numpy as np

import minigenesis as mg

RNG = np.random.default_rng(6)


def test_float32_cotangent_of_a_float64_inverse_gives_the_closed_form() -> None:
    """d <G, A^-1> / dA = -A^-T G A^-T; A is float32, cast to float64 before the inverse."""
    a = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    g = RNG.standard_normal((3, 3)).astype(np.float32)
    x = mg.tensor(a.astype(np.float32), requires_grad=True)
    (grad,) = mg.autograd.grad(mg.linalg.inv(x.double()), x, mg.tensor(g))
    inv_t = np.linalg.inv(a.astype(np.float32).astype(np.float64)).T
    assert grad.dtype == mg.float32
    np.testing.assert_allclose(grad.numpy(), -inv_t @ g @ inv_t, rtol=1e-5)


def test_a_float32_gradient_that_requires_grad_stays_differentiable_after_the_cast() -> None:
    x = mg.tensor(RNG.standard_normal(3), requires_grad=True)
    v = mg.tensor(RNG.standard_normal(3).astype(np.float32), requires_grad=True)
    (g,) = mg.autograd.grad(x.exp(), x, v, create_graph=True)
    assert g.dtype == mg.float64
    g.sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), np.exp(x.detach().numpy()), rtol=1e-6)
    assert v.grad.dtype == mg.float32
