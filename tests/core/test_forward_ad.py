"""autograd.forward_ad (dual numbers): the tangent of a function's output is the
Jacobian-vector product J t, checked against closed-form derivatives and float64 central
differences; the level's rules (make_dual inside a level only, tangent of the dual's shape,
no tangent for what does not depend on a dual or outside the level)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.autograd.forward_ad as fwAD
from minigenesis import nn


def test_tangent_of_a_pointwise_function_is_its_derivative_times_the_tangent() -> None:
    x = mg.tensor([0.3, -1.2, 2.0], dtype=mg.float64)
    t = mg.tensor([1.0, 0.5, -2.0], dtype=mg.float64)
    with fwAD.dual_level():
        y = mg.sin(fwAD.make_dual(x, t)) * 3.0
        primal, tangent = fwAD.unpack_dual(y)
    np.testing.assert_allclose(primal.detach().numpy(), 3 * np.sin(x.numpy()))
    np.testing.assert_allclose(tangent.numpy(), 3 * np.cos(x.numpy()) * t.numpy(), rtol=1e-12)


def test_tangent_through_a_module_and_two_duals_matches_central_differences() -> None:
    mg.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)).double()
    a, b = mg.randn(3, 4, dtype=mg.float64), mg.randn(3, 4, dtype=mg.float64)
    ta, tb = mg.randn(3, 4, dtype=mg.float64), mg.randn(3, 4, dtype=mg.float64)

    def f(u, w):
        return net(u * w + u.exp())

    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(f(fwAD.make_dual(a, ta), fwAD.make_dual(b, tb))).tangent
    h = 1e-6
    with mg.no_grad():
        fd = (f(a + h * ta, b + h * tb) - f(a - h * ta, b - h * tb)) / (2 * h)
    # (the net's parameters require grad: the tangent stays differentiable in them)
    assert tangent.requires_grad
    np.testing.assert_allclose(tangent.detach().numpy(), fd.numpy(), rtol=1e-6, atol=1e-8)


def test_a_dual_unpacks_to_its_own_tangent_and_an_unrelated_tensor_has_none() -> None:
    x, t = mg.ones(2), mg.full((2,), 7.0)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        assert mg.equal(fwAD.unpack_dual(d).tangent, t)
        assert fwAD.unpack_dual(mg.zeros(2)).tangent is None
        d.mul_(2.0)  # in-place on a dual is allowed, as on any intermediate
        assert mg.equal(fwAD.unpack_dual(d * 1.0).tangent, 2 * t)
    assert fwAD.unpack_dual(d * 1.0).tangent is None  # the level has ended


def test_make_dual_needs_a_level_and_a_tangent_of_the_same_shape() -> None:
    with pytest.raises(RuntimeError, match="inside a forward AD level"):
        fwAD.make_dual(mg.ones(2), mg.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(mg.ones(2), mg.ones(3))
