"""MaxPool1d, AvgPool1d, AdaptiveAvgPool1d, AdaptiveMaxPool1d/2d: values against NumPy window
loops, float64 finite-difference gradients, PyTorch's values, gradients, indices and reprs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _np_max_pool1d(x, k, s, p, d):
    xp = np.pad(x, ((0, 0), (0, 0), (p, p)), constant_values=-np.inf)
    out = (x.shape[-1] + 2 * p - d * (k - 1) - 1) // s + 1
    return np.stack([xp[..., o * s : o * s + d * (k - 1) + 1 : d].max(-1) for o in range(out)], -1)


def _np_adaptive(x, out, reduce):
    """reduce over PyTorch's adaptive windows [floor(i L / o), ceil((i + 1) L / o)) of the last
    dim."""
    size = x.shape[-1]
    win = [(i * size // out, math.ceil((i + 1) * size / out)) for i in range(out)]
    return np.stack([reduce(x[..., a:b], -1) for a, b in win], -1)


@pytest.mark.parametrize("k, s, p, d", [(3, None, 0, 1), (3, 2, 1, 1), (2, 1, 1, 2), (4, 3, 2, 1)])
def test_max_pool1d_matches_window_maxima(k, s, p, d):
    x = _rand(2, 3, 11)
    y = F.max_pool1d(mg.tensor(x), k, s, p, d)
    np.testing.assert_array_equal(y.numpy(), _np_max_pool1d(x, k, s or k, p, d))


def test_avg_pool1d_matches_window_means_with_and_without_padding_counted():
    x = _rand(2, 3, 10)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    counted = np.stack([xp[..., o * 2 : o * 2 + 3].mean(-1) for o in range(5)], -1)
    np.testing.assert_allclose(F.avg_pool1d(mg.tensor(x), 3, 2, 1).numpy(), counted, atol=1e-12)
    ones = np.pad(np.ones(10), 1)
    real = np.array([ones[o * 2 : o * 2 + 3].sum() for o in range(5)])
    y = F.avg_pool1d(mg.tensor(x), 3, 2, 1, count_include_pad=False).numpy()
    np.testing.assert_allclose(y, counted * 3 / real, atol=1e-12)


@pytest.mark.parametrize("length, out", [(10, 3), (7, 7), (5, 8), (9, 1)])
def test_adaptive_pool1d_matches_numpy_windows(length, out):
    x = _rand(2, 3, length)
    avg = F.adaptive_avg_pool1d(mg.tensor(x), out).numpy()
    np.testing.assert_allclose(avg, _np_adaptive(x, out, np.mean), atol=1e-12)
    mx, idx = F.adaptive_max_pool1d(mg.tensor(x), out, return_indices=True)
    np.testing.assert_array_equal(mx.numpy(), _np_adaptive(x, out, np.max))
    np.testing.assert_array_equal(np.take_along_axis(x, idx.numpy(), -1), mx.numpy())


def test_adaptive_max_pool2d_matches_numpy_windows_and_its_indices_point_at_the_maxima():
    x = _rand(2, 3, 7, 5)
    y, idx = F.adaptive_max_pool2d(mg.tensor(x), (3, 4), return_indices=True)
    rows = np.swapaxes(_np_adaptive(np.swapaxes(x, -1, -2), 3, np.max), -1, -2)  # (2, 3, 3, 5)
    np.testing.assert_array_equal(y.numpy(), _np_adaptive(rows, 4, np.max))
    picked = np.take_along_axis(x.reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(picked.reshape(y.shape), y.numpy())


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: F.max_pool1d(t, 3, 2, 1),
        lambda t: F.avg_pool1d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        lambda t: F.adaptive_avg_pool1d(t, 4),
        lambda t: F.adaptive_max_pool1d(t, 4),
        lambda t: F.adaptive_max_pool2d(t.reshape(1, 2, 3, 3), (2, 2)),
    ],
)
def test_pooling_gradients_match_finite_differences(fn):
    x = mg.tensor(_rand(1, 2, 9), requires_grad=True)
    assert gradcheck(fn, (x,), eps=1e-6, atol=1e-6)


def test_adaptive_max_gradient_goes_to_the_first_maximum_of_each_window():
    x = mg.tensor([[[1.0, 3.0, 3.0, 0.0, 2.0, 2.0]]], requires_grad=True)
    F.adaptive_max_pool1d(x, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[0, 1, 0, 0, 1, 0]]])


# ----------------------------------------------------------------------------------------- torch
LAYERS = [
    ("MaxPool1d", dict(kernel_size=3)),
    ("MaxPool1d", dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)),
    ("AvgPool1d", dict(kernel_size=3)),
    (
        "AvgPool1d",
        dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, count_include_pad=False),
    ),
    ("AdaptiveAvgPool1d", dict(output_size=4)),
    ("AdaptiveMaxPool1d", dict(output_size=5)),
    ("AdaptiveMaxPool2d", dict(output_size=(3, None))),
    ("AdaptiveMaxPool2d", dict(output_size=4)),
]


@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("layer, args", LAYERS)
def test_pooling_layers_match_torch(layer, args, unbatched):
    torch = pytest.importorskip("torch")
    shape = (2, 3, 6, 11) if "2d" in layer else (2, 3, 11)
    x = _rand(*shape)[0] if unbatched else _rand(*shape)
    ours, theirs = getattr(nn, layer)(**args), getattr(torch.nn, layer)(**args)
    assert repr(ours) == repr(theirs)
    xm, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ym, yt = ours(xm), theirs(xt)
    g = _rand(*yt.shape, seed=1)
    ym.backward(mg.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize(
    "name, args",
    [
        ("max_pool1d", (3, 2, 1)),
        ("adaptive_max_pool1d", (4,)),
        ("adaptive_max_pool2d", ((4, 3),)),
    ],
)
def test_returned_indices_match_torch(name, args):
    torch = pytest.importorskip("torch")
    shape = (2, 3, 8, 9) if name.endswith("2d") else (2, 3, 9)
    x = np.round(_rand(*shape), 1)  # ties: the first maximum wins in both
    ym, im = getattr(F, name)(mg.tensor(x), *args, return_indices=True)
    yt, it = getattr(torch.nn.functional, name)(torch.tensor(x), *args, return_indices=True)
    np.testing.assert_array_equal(ym.numpy(), yt.numpy())
    np.testing.assert_array_equal(im.numpy(), it.numpy())
    assert im.dtype == mg.int64


@pytest.mark.parametrize(
    "call, error, match",
    [  # PyTorch's types: RuntimeError for an input of the wrong rank
        (lambda: F.max_pool1d(mg.zeros(4), 2), RuntimeError, "3-d input"),
        (lambda: F.avg_pool1d(mg.zeros(1, 2, 3, 4), 2), RuntimeError, "3-d input"),
        (lambda: F.adaptive_max_pool2d(mg.zeros(1, 2, 3, 4), (1, 2, 3)), ValueError, "1 or 2 ints"),
    ],
)
def test_pooling_rejects_bad_input_clearly(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_adaptive_max_pooling_to_a_size_of_zero_is_empty_and_a_negative_size_raises():
    assert F.adaptive_max_pool2d(mg.zeros(1, 2, 3, 4), 0).shape == (1, 2, 0, 0)
    with pytest.raises(RuntimeError, match="greater than or equal to 0"):
        F.adaptive_max_pool2d(mg.zeros(1, 2, 3, 4), -1)
