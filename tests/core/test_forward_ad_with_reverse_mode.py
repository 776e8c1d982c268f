"""Dual numbers alongside reverse mode: a dual made from a tensor that requires grad still
passes gradients back to it; a tangent depending on a tracked tensor is differentiable in it;
a primal carries no tangent. Oracles: closed forms in float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import forward_ad as fwAD

RNG = np.random.default_rng(8)


def test_backward_through_a_dual_reaches_the_tensor_it_was_made_from() -> None:
    """y = sum(w sin(d)), d the dual of x: dy/dx = w cos(x) (the clone in between is not a
    leaf, so the gradient must flow on to x)."""
    x0, w0 = RNG.standard_normal(3), RNG.standard_normal(3)
    x = mg.tensor(x0).requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(x, mg.ones(3, dtype=mg.float64))
        (d.sin() * mg.tensor(w0)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), w0 * np.cos(x0), rtol=1e-15)


def test_tangent_is_differentiable_in_a_tensor_that_requires_grad() -> None:
    """y = sin(d w) with tangent t = 1: dy = cos(x w) w; d sum(dy) / dw = cos(xw) - x w sin(xw)."""
    x0, w0 = RNG.standard_normal(3), RNG.standard_normal(3)
    w = mg.tensor(w0).requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(mg.tensor(x0), mg.ones(3, dtype=mg.float64))
        tangent = fwAD.unpack_dual((d * w).sin()).tangent
    np.testing.assert_allclose(tangent.detach().numpy(), np.cos(x0 * w0) * w0, rtol=1e-15)
    tangent.sum().backward()
    expected = np.cos(x0 * w0) - x0 * w0 * np.sin(x0 * w0)
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-14)


def test_the_primal_of_a_dual_carries_no_tangent() -> None:
    x0 = RNG.standard_normal(3)
    with fwAD.dual_level():
        d = fwAD.make_dual(mg.tensor(x0), mg.ones(3, dtype=mg.float64))
        primal = fwAD.unpack_dual(d).primal
        assert fwAD.unpack_dual(primal * 3).tangent is None
        derived = fwAD.unpack_dual(d.exp()).primal
        assert fwAD.unpack_dual(derived * 3).tangent is None
        np.testing.assert_allclose(derived.numpy(), np.exp(x0), rtol=1e-15)


def test_unpacking_under_no_grad_says_the_graph_was_not_recorded() -> None:
    """Tangents are read off the reverse graph, which no_grad does not record: an error, not
    a silent None tangent."""
    with fwAD.dual_level(), mg.no_grad():
        d = fwAD.make_dual(mg.ones(2), mg.ones(2))
        with pytest.raises(RuntimeError, match="grad mode is off"):
            fwAD.unpack_dual(d.exp())


def test_an_in_place_write_into_a_dual_changes_its_tangent() -> None:
    """x.mul_(2): tangent 2 t; x.sin_(): cos(x) t; a column overwritten by a constant: 0 there;
    a view of the dual scaled in place: that part's tangent scaled."""
    x0, t0 = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    with fwAD.dual_level():

        def dual():
            return fwAD.make_dual(mg.tensor(x0), mg.tensor(t0))

        doubled, sined, overwritten, viewed = dual(), dual(), dual(), dual()
        doubled.mul_(2)
        sined.sin_()
        overwritten[:, 1] = mg.full((3,), 5.0, dtype=mg.float64)
        viewed[0].mul_(3)
        tangents = [fwAD.unpack_dual(d).tangent.numpy() for d in (doubled, sined, overwritten)]
        viewed_tangent = fwAD.unpack_dual(viewed).tangent.numpy()
    np.testing.assert_allclose(tangents[0], 2 * t0, rtol=1e-15)
    np.testing.assert_allclose(tangents[1], np.cos(x0) * t0, rtol=1e-14)
    expected = t0.copy()
    expected[:, 1] = 0
    np.testing.assert_array_equal(tangents[2], expected)
    expected = t0.copy()
    expected[0] *= 3
    np.testing.assert_allclose(viewed_tangent, expected, rtol=1e-15)


def test_func_grad_over_a_forward_ad_tangent_returns_a_plain_tensor() -> None:
    """d/dx sum_i cos(x_i d_i) x_i (the tangent of sin(x d) along ones) = cos(x d) - x d sin(x d):
    the tangent's graph hangs off the dual's variable and the double-vjp's v, which nothing
    tracks once the level is closed, so func.grad's result keeps no graph."""
    x0, d0 = RNG.standard_normal(3), RNG.standard_normal(3)

    def tangent_sum(x):
        with fwAD.dual_level():
            d = fwAD.make_dual(mg.tensor(d0), mg.ones(3, dtype=mg.float64))
            return fwAD.unpack_dual((x * d).sin()).tangent.sum()

    g = mg.func.grad(tangent_sum)(mg.tensor(x0))
    expected = np.cos(x0 * d0) - x0 * d0 * np.sin(x0 * d0)
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12)
    assert not g.requires_grad
