"""PixelShuffle / PixelUnshuffle, ChannelShuffle and Bilinear: values against NumPy index loops
and einsum, float64 finite-difference gradients, Bilinear's initialisation range, errors, and
torch side by side (values, gradients, reprs)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_pixel_shuffle_moves_each_channel_to_its_subpixel():
    r, x = 2, _rand(2, 8, 3, 4)
    y = F.pixel_shuffle(mg.tensor(x), r).numpy()
    assert y.shape == (2, 2, 6, 8)
    for c in range(2):
        for i in range(r):
            for j in range(r):
                np.testing.assert_array_equal(y[:, c, i::r, j::r], x[:, c * r * r + i * r + j])


def test_pixel_unshuffle_inverts_pixel_shuffle_with_extra_batch_dims():
    x = _rand(2, 3, 9, 2, 2)
    y = F.pixel_shuffle(mg.tensor(x), 3)
    assert y.shape == (2, 3, 1, 6, 6)
    np.testing.assert_array_equal(F.pixel_unshuffle(y, 3).numpy(), x)


def test_channel_shuffle_interleaves_the_groups():
    x = np.arange(6.0).reshape(1, 6, 1)
    y = F.channel_shuffle(mg.tensor(x), 2).numpy()
    np.testing.assert_array_equal(y.ravel(), [0, 3, 1, 4, 2, 5])


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: F.pixel_shuffle(t, 2),
        lambda t: F.pixel_unshuffle(t, 2),
        lambda t: F.channel_shuffle(t, 2),
    ],
)
def test_rearrangements_gradient_matches_finite_differences(fn):
    x = mg.tensor(_rand(1, 4, 2, 2), requires_grad=True)
    assert gradcheck(fn, (x,), atol=1e-9, rtol=1e-7)


def test_rearrangements_reject_bad_shapes():
    with pytest.raises(RuntimeError, match="divisible by the square"):
        F.pixel_shuffle(mg.zeros(1, 3, 2, 2), 2)
    with pytest.raises(RuntimeError, match="divisible by downscale_factor"):
        F.pixel_unshuffle(mg.zeros(1, 1, 3, 4), 2)
    with pytest.raises(RuntimeError, match="divisible"):
        F.channel_shuffle(mg.zeros(1, 5, 2), 2)
    with pytest.raises(RuntimeError, match="upscale_factor must be a positive int"):
        F.pixel_shuffle(mg.zeros(1, 4, 2, 2), 0)


def test_bilinear_matches_einsum():
    x1, x2, w, b = _rand(3, 2, 4), _rand(3, 2, 5, seed=1), _rand(6, 4, 5, seed=2), _rand(6, seed=3)
    y = F.bilinear(mg.tensor(x1), mg.tensor(x2), mg.tensor(w), mg.tensor(b))
    expected = np.einsum("...i,oij,...j->...o", x1, w, x2) + b
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)


def test_bilinear_gradient_matches_finite_differences():
    args = [mg.tensor(_rand(*s, seed=i), requires_grad=True) for i, s in
            enumerate([(3, 2), (3, 4), (5, 2, 4), (5,)])]  # fmt: skip
    assert gradcheck(F.bilinear, tuple(args), atol=1e-8, rtol=1e-6)


def test_bilinear_initialises_within_one_over_sqrt_in1():
    mg.manual_seed(0)
    m = nn.Bilinear(16, 3, 200)
    assert m.weight.shape == (200, 16, 3) and m.bias.shape == (200,)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.24  # U(-1/4, 1/4) fills its range
    assert np.abs(m.bias.detach().numpy()).max() <= 0.25
    assert nn.Bilinear(2, 3, 4, bias=False).bias is None


def test_bilinear_rejects_mismatched_inputs():
    m = nn.Bilinear(2, 3, 4)
    with pytest.raises(RuntimeError, match="must match the weight"):
        m(mg.zeros(5, 3), mg.zeros(5, 3))
    with pytest.raises(RuntimeError, match="same batch dims"):
        m(mg.zeros(5, 2), mg.zeros(4, 3))


def test_rearrange_layers_match_torch():
    torch = pytest.importorskip("torch")
    x = _rand(2, 8, 4, 6)
    for ours, theirs in [
        (nn.PixelShuffle(2), torch.nn.PixelShuffle(2)),
        (nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2)),
        (nn.ChannelShuffle(4), torch.nn.ChannelShuffle(4)),
    ]:
        assert repr(ours) == repr(theirs)
        a, b = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ya, yb = ours(a), theirs(b)
        np.testing.assert_array_equal(ya.detach().numpy(), yb.detach().numpy())
        g = _rand(*ya.shape, seed=1)
        ya.backward(mg.tensor(g))
        yb.backward(torch.tensor(g))
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_torch(bias):
    torch = pytest.importorskip("torch")
    ours, theirs = nn.Bilinear(3, 4, 5, bias=bias), torch.nn.Bilinear(3, 4, 5, bias=bias)
    assert repr(ours) == repr(theirs)
    theirs = theirs.double()
    with torch.no_grad():  # the same weights in both
        theirs.weight.copy_(torch.tensor(ours.weight.detach().numpy()))
        if bias:
            theirs.bias.copy_(torch.tensor(ours.bias.detach().numpy()))
    ours = ours.double()
    x1, x2 = _rand(2, 6, 3), _rand(2, 6, 4, seed=1)
    a1, a2 = mg.tensor(x1, requires_grad=True), mg.tensor(x2, requires_grad=True)
    b1, b2 = torch.tensor(x1, requires_grad=True), torch.tensor(x2, requires_grad=True)
    ya, yb = ours(a1, a2), theirs(b1, b2)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-10)
    g = _rand(2, 6, 5, seed=2)
    ya.backward(mg.tensor(g))
    yb.backward(torch.tensor(g))
    np.testing.assert_allclose(a1.grad.numpy(), b1.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(a2.grad.numpy(), b2.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(
        ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-10, atol=1e-12
    )
    if bias:
        np.testing.assert_allclose(ours.bias.grad.numpy(), theirs.bias.grad.numpy(), rtol=1e-10)
