"""The exact float32 GELU evaluated block by block (kernels/gelu.py) gives the bits of the
whole-array evaluation: values and slopes, across block edges, with inf, NaN and the tails."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import gelu as G


@pytest.mark.parametrize("size", [G._GELU_BLOCK * 3 + 17, G._GELU_BLOCK, 1000])
def test_blocked_gelu_is_bit_identical_to_the_whole_array_passes(size):
    x = (np.random.default_rng(size).standard_normal(size) * 6).astype(np.float32)
    x[[0, size // 2, -1]] = [np.inf, -np.inf, np.nan]
    x[1:9] = [-20.0, -14.9, -5.6, -0.0, 0.0, 1e-30, 15.1, 40.0]
    for want_slope in (False, True):
        y, slope = G._gelu_float32_blocks(x, want_slope)
        y_ref, slope_ref = G._gelu_float32_numpy(x, want_slope)
        assert np.array_equal(y.view(np.uint32), y_ref.view(np.uint32))
        if want_slope:
            assert np.array_equal(slope.view(np.uint32), slope_ref.view(np.uint32))
        else:
            assert slope is None


def test_gelu_of_a_large_tensor_matches_the_float64_definition():
    x64 = np.linspace(-8, 8, G._GELU_BLOCK * 2 + 5)
    t = mg.tensor(x64.astype(np.float32), requires_grad=True)
    y = F.gelu(t)
    y.sum().backward()
    erf = np.vectorize(__import__("math").erf)
    phi = 0.5 * (1 + erf(x64 / np.sqrt(2)))
    np.testing.assert_allclose(y.detach().numpy(), x64 * phi, rtol=1e-5, atol=1e-7)
    slope = phi + x64 * np.exp(-(x64**2) / 2) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(t.grad.numpy(), slope, rtol=1e-5, atol=1e-6)


def test_blocks_with_and_without_values_past_the_clamp_give_the_whole_array_bits():
    # a block whose |x| stay below 15 skips the clamp; one with 40 or inf takes it
    x = np.random.default_rng(5).standard_normal(G._GELU_BLOCK * 2 + 9).astype(np.float32)
    x[G._GELU_BLOCK + 3] = 40.0
    x[-1] = -np.inf
    y, slope = G._gelu_float32_blocks(x, True)
    y_ref, slope_ref = G._gelu_float32_numpy(x, True)
    assert np.array_equal(y.view(np.uint32), y_ref.view(np.uint32))
    assert np.array_equal(slope.view(np.uint32), slope_ref.view(np.uint32))


def test_gelu_of_a_strided_tensor_matches_the_float64_definition():
    rng = np.random.default_rng(7)
    base = (rng.standard_normal((96, 2 * 700)) * 3).astype(np.float32)  # 67,200 of them used
    t = mg.tensor(base, requires_grad=True)
    view = t[:, ::2]  # not contiguous, not a multiple of the block
    F.gelu(view).sum().backward()
    x64 = base[:, ::2].astype(np.float64)
    erfc = np.vectorize(__import__("math").erfc)
    phi = 0.5 * erfc(-x64 / np.sqrt(2))
    y = F.gelu(view).detach().numpy()
    np.testing.assert_allclose(y, x64 * phi, rtol=1e-5, atol=1e-7)
    slope = phi + x64 * np.exp(-(x64**2) / 2) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(t.grad.numpy()[:, ::2], slope, rtol=1e-5, atol=1e-6)
    assert not t.grad.numpy()[:, 1::2].any()


def test_each_gelu_value_depends_on_its_input_alone_and_below_minus_8_uses_the_wide_fit():
    # |x| <= 8 takes the short fit; a block holding some x < -8 computes those again with the
    # wide fit: a value must not depend on what else is in its block
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-12, 12, 4000), [-8.0, -8.000001, 8.0, 8.5, -15.5, -40.0]])
    x = x.astype(np.float32)
    y, slope = G._gelu_float32_numpy(x, True)
    for i in range(0, x.size, 97):
        y1, s1 = G._gelu_float32_numpy(x[i : i + 1].copy(), True)
        assert y1.view(np.uint32)[0] == y.view(np.uint32)[i]
        assert s1.view(np.uint32)[0] == slope.view(np.uint32)[i]
    far = x < -8
    y_wide, s_wide = G._gelu_float32_passes(x[far], True, fit=G._WIDE_FIT)
    assert np.array_equal(y[far].view(np.uint32), y_wide.view(np.uint32))
    assert np.array_equal(slope[far].view(np.uint32), s_wide.view(np.uint32))
    # the float64 definition: relative accuracy kept in the negative tail (no cancellation; below
    # -10 the rounding of x^2, amplified by x^2 / 2 in the exponent, alone exceeds 3e-6)
    x64 = x.astype(np.float64)
    erfc = np.vectorize(__import__("math").erfc)
    truth = x64 * 0.5 * erfc(-x64 / np.sqrt(2))
    kept = x >= -10
    assert (np.abs(y[kept] - truth[kept]) / np.abs(truth[kept])).max() < 3e-6
    assert np.array_equal(y[x > 8], x[x > 8])  # E vanishes against 1 there


def test_float32_gelu_gradient_is_dl_dy_times_forwards_slope_with_no_ops_recorded(monkeypatch):
    # without create_graph, backward multiplies the arrays (no GELUSlope and Mul ops); the
    # value is dL/dy * the slope forward computed, bit for bit
    from minigenesis.ops import activation

    rng = np.random.default_rng(3)
    x = (rng.standard_normal((7, 300)) * 3).astype(np.float32)
    g = rng.standard_normal((7, 300)).astype(np.float32)
    calls = []
    original = activation.GELUSlope.apply
    monkeypatch.setattr(
        activation.GELUSlope, "apply", lambda *a: calls.append(a) or original(*a), raising=True
    )
    t = mg.tensor(x, requires_grad=True)
    F.gelu(t).backward(mg.tensor(g))
    _, slope = G.gelu(x, "none", True, None)  # forward's slope (compiled or NumPy passes)
    assert np.array_equal(
        t.grad.numpy().view(np.uint32), (g * slope.reshape(x.shape)).view(np.uint32)
    )
    assert calls == []
    # create_graph keeps the recorded slope: its own derivative is needed
    t.grad = None
    (gx,) = mg.autograd.grad(F.gelu(t), t, mg.tensor(g), create_graph=True)
    assert len(calls) == 1 and gx.requires_grad
