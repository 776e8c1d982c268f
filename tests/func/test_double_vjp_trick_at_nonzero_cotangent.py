"""Forward-mode products built by the double-vjp trick (J v as the gradient of u -> u^T J v)
are right for ops whose backward is linear in the cotangent u but not differentiable at u = 0:
logcumsumexp's backward splits u into its positive and negative parts and sums each in log
space. The oracle is float64 central differences of the forward."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
from minigenesis.autograd import forward_ad as fwAD

RNG = np.random.default_rng(4)


def central_difference(f, x: np.ndarray, v: np.ndarray, h: float = 1e-6) -> np.ndarray:
    return (f(mg.tensor(x + h * v)).numpy() - f(mg.tensor(x - h * v)).numpy()) / (2 * h)


def lcse(x):
    return mg.logcumsumexp(x, 1)


def test_jvp_of_logcumsumexp_matches_central_differences_in_every_forward_mode_api() -> None:
    x, v = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))
    expected = central_difference(lcse, x, v)
    _, by_func = mg.func.jvp(lcse, (mg.tensor(x),), (mg.tensor(v),))
    _, by_functional = mg.autograd.functional.jvp(lcse, mg.tensor(x), mg.tensor(v))
    with fwAD.dual_level():
        by_dual = fwAD.unpack_dual(lcse(fwAD.make_dual(mg.tensor(x), mg.tensor(v)))).tangent
    for got in (by_func, by_functional, by_dual):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_hvp_of_a_logcumsumexp_loss_equals_vhp_and_central_differences() -> None:
    """The Hessian of a smooth scalar is symmetric: H v = v^T H, and H v is the central
    difference of the gradient along v."""
    x, c, v = (RNG.standard_normal((3, 4)) for _ in range(3))

    def loss(t):
        return (lcse(t) * mg.tensor(c)).sum()

    def gradient(t):
        return mg.func.grad(loss)(t)

    _, hv = mg.autograd.functional.hvp(loss, mg.tensor(x), mg.tensor(v))
    _, vh = mg.autograd.functional.vhp(loss, mg.tensor(x), mg.tensor(v))
    np.testing.assert_allclose(hv.numpy(), central_difference(gradient, x, v), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(hv.numpy(), vh.numpy(), rtol=1e-12, atol=1e-14)
