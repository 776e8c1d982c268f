"""InstanceNorm1d/2d, LocalResponseNorm and ConvTranspose1d: values against NumPy formulas, float64
finite-difference gradients, PyTorch's values, gradients, running statistics and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _t(a, grad=False):
    return mg.tensor(a, requires_grad=grad)


# --------------------------------------------------------------------------------- instance norm
def test_instance_norm_normalises_each_sample_channel_plane():
    x = _rand(2, 3, 4, 5) * 3 + 1
    w, b = _rand(3, seed=1), _rand(3, seed=2)
    mu = x.mean(axis=(2, 3), keepdims=True)
    var = x.var(axis=(2, 3), keepdims=True)
    expected = (x - mu) / np.sqrt(var + 1e-5) * w[:, None, None] + b[:, None, None]
    y = F.instance_norm(_t(x), weight=_t(w), bias=_t(b))
    np.testing.assert_allclose(y.numpy(), expected, atol=1e-12)


def test_instance_norm_running_stats_average_the_instances_unbiased():
    x = _rand(4, 3, 6)
    rm, rv = _t(np.zeros(3)), _t(np.ones(3))
    F.instance_norm(_t(x), rm, rv, momentum=0.25)
    np.testing.assert_allclose(rm.numpy(), 0.25 * x.mean(axis=2).mean(axis=0), atol=1e-12)
    unbiased = x.var(axis=2, ddof=1).mean(axis=0)
    np.testing.assert_allclose(rv.numpy(), 0.75 + 0.25 * unbiased, atol=1e-12)


def test_instance_norm_gradient_matches_finite_differences():
    x, w, b = _t(_rand(2, 3, 5), True), _t(_rand(3, seed=1), True), _t(_rand(3, seed=2), True)
    fn = lambda x, w, b: F.instance_norm(x, weight=w, bias=b)  # noqa: E731
    assert gradcheck(fn, (x, w, b), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("track", [False, True])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize(
    "layer, shape", [("InstanceNorm1d", (3, 4, 7)), ("InstanceNorm2d", (2, 4, 5, 3))]
)
def test_instance_norm_layers_match_torch_in_train_and_eval(layer, shape, affine, track):
    torch = pytest.importorskip("torch")
    kw = dict(affine=affine, track_running_stats=track, momentum=0.3)
    ours = getattr(nn, layer)(4, dtype=mg.float64, **kw)
    theirs = getattr(torch.nn, layer)(4, dtype=torch.float64, **kw)
    assert repr(ours) == repr(theirs)
    if affine:
        for name in ("weight", "bias"):
            v = _rand(4, seed=len(name))
            getattr(ours, name).data = _t(v)
            getattr(theirs, name).data = torch.tensor(v)
    for mode in ("train", "eval", "train"):
        ours.train(mode == "train")
        theirs.train(mode == "train")
        x = _rand(*shape, seed=3)
        xm, xt = _t(x, True), torch.tensor(x, requires_grad=True)
        ym, yt = ours(xm), theirs(xt)
        g = _rand(*shape, seed=4)
        ym.backward(_t(g))
        yt.backward(torch.tensor(g))
        np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), atol=1e-10)
        np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-10)
        if track:
            np.testing.assert_allclose(ours.running_mean.numpy(), theirs.running_mean.numpy())
            np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy())
    if affine:
        np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), atol=1e-10)
        np.testing.assert_allclose(ours.bias.grad.numpy(), theirs.bias.grad.numpy(), atol=1e-10)
    state = {k: v.numpy() for k, v in ours.state_dict().items()}
    assert sorted(state) == sorted(theirs.state_dict())


def test_instance_norm_takes_unbatched_input_and_rejects_wrong_dims():
    x = _rand(3, 8)
    y = nn.InstanceNorm1d(3)(_t(x)).numpy()
    np.testing.assert_allclose(y, F.instance_norm(_t(x[None])).numpy()[0], atol=1e-12)
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        nn.InstanceNorm2d(3)(mg.zeros(3, 4))
    with pytest.raises(ValueError, match="num_features"):
        nn.InstanceNorm1d(3, affine=True)(mg.zeros(2, 4, 5))


# ----------------------------------------------------------------------------- local response norm
def _np_lrn(x, size, alpha, beta, k):
    c = x.shape[1]
    div = np.zeros_like(x)
    for i in range(c):
        lo, hi = max(i - size // 2, 0), min(i + (size - 1) // 2, c - 1)
        div[:, i] = (x[:, lo : hi + 1] ** 2).sum(axis=1)
    return x / (k + alpha / size * div) ** beta


@pytest.mark.parametrize("shape, size", [((2, 7, 5), 3), ((2, 6, 3, 4), 4), ((1, 5, 2, 2, 3), 2)])
def test_local_response_norm_matches_the_channel_window_formula(shape, size):
    x = _rand(*shape)
    y = F.local_response_norm(_t(x), size, alpha=0.3, beta=0.6, k=2.0)
    np.testing.assert_allclose(y.numpy(), _np_lrn(x, size, 0.3, 0.6, 2.0), atol=1e-12)


def test_local_response_norm_gradient_and_layer_match_torch():
    torch = pytest.importorskip("torch")
    x = _rand(2, 6, 3, 4)
    ours, theirs = nn.LocalResponseNorm(3, alpha=0.5), torch.nn.LocalResponseNorm(3, alpha=0.5)
    assert repr(ours) == repr(theirs)
    xm, xt = _t(x, True), torch.tensor(x, requires_grad=True)
    ours(xm).sum().backward()
    theirs(xt).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    fn = lambda t: F.local_response_norm(t, 3, alpha=0.5)  # noqa: E731
    assert gradcheck(fn, (_t(_rand(1, 4, 3), True),), eps=1e-6, atol=1e-6)


def test_local_response_norm_rejects_2d_input():
    with pytest.raises(ValueError, match="3D or higher"):
        F.local_response_norm(mg.zeros(2, 3), 2)


# ------------------------------------------------------------------------------ conv transpose 1d
def _np_conv_transpose1d(x, w, s, p, op, d):
    n, c_in, length = x.shape
    _, c_out, k = w.shape
    out = (length - 1) * s - 2 * p + d * (k - 1) + op + 1
    full = np.zeros((n, c_out, out + 2 * p + d * k))
    for i in range(length):
        for j in range(k):
            full[:, :, i * s + j * d] += x[:, :, i] @ w[:, :, j]
    return full[:, :, p : p + out]


@pytest.mark.parametrize("s, p, op, d", [(1, 0, 0, 1), (2, 1, 1, 1), (3, 2, 0, 2)])
def test_conv_transpose1d_matches_scatter_definition_and_finite_differences(s, p, op, d):
    x, w, b = _rand(2, 3, 5), _rand(3, 4, 3, seed=1), _rand(4, seed=2)
    y = F.conv_transpose1d(_t(x), _t(w), _t(b), s, p, op, 1, d)
    expected = _np_conv_transpose1d(x, w, s, p, op, d) + b[:, None]
    np.testing.assert_allclose(y.numpy(), expected, atol=1e-12)
    fn = lambda x, w, b: F.conv_transpose1d(x, w, b, s, p, op, 1, d)  # noqa: E731
    assert gradcheck(fn, (_t(x, True), _t(w, True), _t(b, True)), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(stride=2, padding=1, output_padding=1),
        dict(stride=3, dilation=2, groups=2, bias=False),
    ],
)
def test_conv_transpose1d_layer_matches_torch(kwargs):
    torch = pytest.importorskip("torch")
    theirs = torch.nn.ConvTranspose1d(4, 6, 3, **kwargs).double()
    ours = nn.ConvTranspose1d(4, 6, 3, **kwargs)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    ours.weight.data = _t(theirs.weight.detach().numpy())
    if theirs.bias is not None:
        ours.bias.data = _t(theirs.bias.detach().numpy())
    x = _rand(2, 4, 7)
    xm, xt = _t(x, True), torch.tensor(x, requires_grad=True)
    ym, yt = ours(xm), theirs(xt)
    ym.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), atol=1e-12)
    size = yt.shape[-1] - ours.output_padding[0] + (1 if ours.stride[0] > 1 else 0)
    assert ours(xm, output_size=[size]).shape[-1] == theirs(xt, output_size=[size]).shape[-1]


def test_conv_transpose1d_takes_unbatched_input_and_rejects_bad_weight():
    x, w = _rand(3, 5), _rand(3, 2, 2, seed=1)
    y = F.conv_transpose1d(_t(x), _t(w)).numpy()
    np.testing.assert_allclose(y, F.conv_transpose1d(_t(x[None]), _t(w)).numpy()[0])
    with pytest.raises(RuntimeError, match="weight must be 3-d"):
        F.conv_transpose1d(_t(x[None]), _t(w[..., None]))


@pytest.mark.parametrize("dims", [1, 2])
def test_conv_transpose_output_size_picks_output_padding_or_names_the_valid_range(dims):
    torch = pytest.importorskip("torch")
    ours = (nn.ConvTranspose1d, nn.ConvTranspose2d)[dims - 1](2, 3, 3, stride=3, padding=1)
    theirs = (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d)[dims - 1](2, 3, 3, 3, 1)
    x = _rand(1, 2, *(4,) * dims).astype(np.float32)  # the layer's dtype
    # the smallest output is (4 - 1) * 3 - 2 + 2 + 1 = 10; stride 3 allows 10, 11, 12
    for size in (10, 11, 12):
        want = tuple(theirs(torch.tensor(x).float(), output_size=[size] * dims).shape)
        assert tuple(ours(_t(x), output_size=[size] * dims).shape) == want
    for size in (9, 13):
        with pytest.raises(ValueError, match="valid sizes"):
            theirs(torch.tensor(x).float(), output_size=[size] * dims)
        with pytest.raises(ValueError, match="range from 10 to 12"):
            ours(_t(x), output_size=[size] * dims)


@pytest.mark.parametrize("layer", ["BatchNorm1d", "InstanceNorm1d"])
def test_norm_layers_take_bias_false_and_reset_parameters_as_torch(layer):
    torch = pytest.importorskip("torch")
    kwargs = dict(affine=True, track_running_stats=True, bias=False)
    ours, theirs = getattr(nn, layer)(3, **kwargs), getattr(torch.nn, layer)(3, **kwargs)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    x = _rand(4, 3, 5)
    ours(_t(x).float()), theirs(torch.tensor(x).float())
    ours.weight.data = _t(np.full(3, 2.0))
    ours.reset_parameters(), theirs.reset_parameters()
    for name, buf in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[name].numpy(), buf.numpy(), err_msg=name)
