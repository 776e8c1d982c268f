"""F.interpolate and the Upsample layers: values against a per-pixel NumPy reference of the
source coordinate formulas, float64 central finite-difference gradients, and PyTorch's values
and gradients across modes, align_corners, odd sizes and scale factors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _np_source(o, n, m, mode, align_corners, scale=None):
    """One output coordinate o (of m) as (i0, i1, lam) on an input axis of n, float64 math."""
    r = 1.0 / scale if scale else n / m
    if mode == "nearest":
        return min(math.floor(o * r), n - 1), None, 0.0
    if mode == "nearest-exact":
        return min(math.floor((o + 0.5) * r), n - 1), None, 0.0
    if align_corners:
        src = o * (n - 1) / (m - 1) if m > 1 else 0.0
    else:
        src = max((o + 0.5) * r - 0.5, 0.0)
    i0 = min(math.floor(src), n - 1)
    return i0, min(i0 + 1, n - 1), min(max(src - i0, 0.0), 1.0)


def _np_interp2d(x, out, mode, align_corners=False):
    """Every output pixel from its (up to) four source pixels, one at a time."""
    n, c, h, w = x.shape
    y = np.zeros((n, c, *out))
    for a in range(out[0]):
        r0, r1, lr = _np_source(a, h, out[0], mode, align_corners)
        for b in range(out[1]):
            c0, c1, lc = _np_source(b, w, out[1], mode, align_corners)
            if r1 is None:
                y[:, :, a, b] = x[:, :, r0, c0]
                continue
            top = (1 - lc) * x[:, :, r0, c0] + lc * x[:, :, r0, c1]
            bottom = (1 - lc) * x[:, :, r1, c0] + lc * x[:, :, r1, c1]
            y[:, :, a, b] = (1 - lr) * top + lr * bottom
    return y


@pytest.mark.parametrize(
    "mode, align_corners",
    [("nearest", None), ("nearest-exact", None), ("bilinear", False), ("bilinear", True)],
)
@pytest.mark.parametrize("out", [(7, 11), (3, 2), (5, 1), (1, 9)])
def test_interpolate_2d_matches_per_pixel_reference(mode, align_corners, out):
    x = _rand(2, 3, 5, 4)
    y = F.interpolate(mg.tensor(x), size=out, mode=mode, align_corners=align_corners)
    np.testing.assert_allclose(
        y.numpy(), _np_interp2d(x, out, mode, bool(align_corners)), atol=1e-12
    )


def test_linear_1d_matches_numpy_interp_with_aligned_corners():
    # align_corners=True puts output o at o (n - 1) / (m - 1): np.interp on that grid
    x = _rand(1, 2, 6)
    y = F.interpolate(mg.tensor(x), size=11, mode="linear", align_corners=True)
    grid = np.linspace(0, 5, 11)
    expected = np.stack([np.interp(grid, np.arange(6), row) for row in x[0]])[None]
    np.testing.assert_allclose(y.numpy(), expected, atol=1e-12)


def _fd_grad(fn, x, g, eps=1e-6):
    """d sum(g * fn(x)) / dx by float64 central differences."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        grad[i] = (np.sum(g * fn(xp)) - np.sum(g * fn(xm))) / (2 * eps)
    return grad


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((1, 2, 4, 3), dict(scale_factor=2, mode="nearest")),
        ((1, 2, 5, 3), dict(size=(3, 7), mode="nearest")),
        ((1, 2, 4, 5), dict(size=(6, 2), mode="nearest-exact")),
        ((1, 2, 4, 3), dict(scale_factor=(1.5, 2.5), mode="bilinear")),
        ((1, 2, 5, 4), dict(size=(3, 7), mode="bilinear", align_corners=True)),
        ((2, 1, 5), dict(size=8, mode="linear")),
        ((1, 1, 3, 2, 4), dict(size=(4, 3, 2), mode="trilinear")),
    ],
)
def test_interpolate_gradient_matches_finite_differences(shape, kwargs):
    x = _rand(*shape)
    xt = mg.tensor(x, requires_grad=True)
    y = F.interpolate(xt, **kwargs)
    g = _rand(*y.shape, seed=1)
    y.backward(mg.tensor(g))
    expected = _fd_grad(lambda a: F.interpolate(mg.tensor(a), **kwargs).numpy(), x, g)
    np.testing.assert_allclose(xt.grad.numpy(), expected, atol=1e-7)


def test_nearest_gradient_adds_every_copy_into_its_source_pixel():
    x = mg.tensor(np.ones((1, 1, 2, 2)), requires_grad=True)
    F.interpolate(x, scale_factor=3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 1, 2, 2), 9.0))


def test_second_derivative_of_a_bilinear_resize_is_the_forward_map():
    # z = <g, M x> is linear in x; dz/dx = M^T g; d<h, M^T g>/dg = M h
    x = mg.tensor(_rand(1, 1, 3, 4), requires_grad=True)
    g = mg.tensor(_rand(1, 1, 5, 7, seed=1), requires_grad=True)
    kw = dict(size=(5, 7), mode="bilinear")
    (gx,) = mg.autograd.grad(F.interpolate(x, **kw), x, g, create_graph=True)
    h = _rand(1, 1, 3, 4, seed=2)
    (gg,) = mg.autograd.grad(gx, g, mg.tensor(h))
    np.testing.assert_allclose(gg.numpy(), F.interpolate(mg.tensor(h), **kw).numpy(), atol=1e-12)


# ----------------------------------------------------------------------------------------- torch
CASES = [
    ((2, 3, 5, 7), dict(size=(9, 4))),
    ((2, 3, 5, 7), dict(size=(5, 14))),
    ((1, 2, 6, 6), dict(scale_factor=2)),
    ((1, 2, 5, 7), dict(scale_factor=(1.7, 0.6))),
    ((1, 2, 5, 7), dict(scale_factor=1.3, recompute_scale_factor=True)),
    ((1, 2, 5, 7), dict(scale_factor=0.5)),
    ((1, 2, 3, 3), dict(size=1)),
]
MODES = [("nearest", None), ("nearest-exact", None), ("bilinear", False), ("bilinear", True)]


def _torch_pair(shape, kwargs, dtype):
    torch = pytest.importorskip("torch")
    x = _rand(*shape).astype(dtype)
    xm, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ym, yt = F.interpolate(xm, **kwargs), torch.nn.functional.interpolate(xt, **kwargs)
    g = _rand(*yt.shape, seed=1).astype(dtype)
    ym.backward(mg.tensor(g))
    yt.backward(torch.tensor(g))
    return ym, yt, xm.grad, xt.grad


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode, align_corners", MODES)
@pytest.mark.parametrize("shape, kwargs", CASES)
def test_interpolate_values_and_gradients_match_torch(shape, kwargs, mode, align_corners, dtype):
    kwargs = dict(kwargs, mode=mode, align_corners=align_corners)
    ym, yt, gm, gt = _torch_pair(shape, kwargs, dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    assert tuple(ym.shape) == tuple(yt.shape)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(gm.numpy(), gt.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((2, 3, 7), dict(size=12, mode="linear")),
        ((2, 3, 7), dict(scale_factor=0.7, mode="linear", align_corners=True)),
        ((2, 3, 7), dict(scale_factor=3, mode="nearest")),
        ((1, 2, 3, 4, 5), dict(size=(5, 3, 8), mode="trilinear")),
        ((1, 2, 3, 4, 5), dict(scale_factor=(2, 1.5, 0.6), mode="nearest-exact")),
    ],
)
def test_interpolate_3d_and_5d_inputs_match_torch(shape, kwargs):
    ym, yt, gm, gt = _torch_pair(shape, kwargs, np.float64)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), atol=1e-13)
    np.testing.assert_allclose(gm.numpy(), gt.numpy(), atol=1e-13)


@pytest.mark.parametrize(
    "layer, args",
    [
        ("Upsample", dict(scale_factor=2)),
        ("Upsample", dict(size=(3, 5), mode="bilinear")),
        ("Upsample", dict(scale_factor=(2, 3), mode="bilinear", align_corners=True)),
        ("UpsamplingNearest2d", dict(scale_factor=2)),
        ("UpsamplingBilinear2d", dict(size=(7, 3))),
        ("UpsamplingBilinear2d", dict(scale_factor=2.5)),
    ],
)
def test_upsample_layers_match_torch_output_and_repr(layer, args):
    torch = pytest.importorskip("torch")
    x = _rand(2, 3, 4, 5).astype(np.float32)
    ours, theirs = getattr(nn, layer)(**args), getattr(torch.nn, layer)(**args)
    assert repr(ours) == repr(theirs)
    y = ours(mg.tensor(x)).numpy()
    np.testing.assert_allclose(y, theirs(torch.tensor(x)).numpy(), rtol=1e-6, atol=1e-6)


def test_upsampling_bilinear2d_keeps_the_corners():
    x = _rand(1, 1, 3, 4)
    y = nn.UpsamplingBilinear2d(size=(6, 9))(mg.tensor(x)).numpy()
    np.testing.assert_allclose(y[..., [0, -1], :][..., [0, -1]], x[..., [0, -1], :][..., [0, -1]])


# ----------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "shape, kwargs, error, match",
    [
        ((1, 1, 4, 4), dict(size=2, scale_factor=2), ValueError, "only one of size"),
        ((1, 1, 4, 4), dict(), ValueError, "either size or scale_factor"),
        ((1, 1, 4, 4), dict(size=2, align_corners=True), ValueError, "align_corners"),
        ((1, 1, 4, 4), dict(size=2, recompute_scale_factor=True), ValueError, "recompute"),
        ((1, 1, 4), dict(size=2, mode="bilinear"), NotImplementedError, "needs 4D input"),
        ((1, 1, 4), dict(size=2, mode="bicubic"), NotImplementedError, "bicubic mode needs 4D"),
        ((1, 1, 4, 4), dict(size=2, antialias=True), NotImplementedError, "Anti-alias"),
        ((1, 1, 4, 4), dict(size=(2, 2, 2)), ValueError, "same number of spatial dim"),
        ((1, 1, 4, 4), dict(scale_factor=0.1), RuntimeError, "sizes should be greater than 0"),
        ((1, 1, 4, 4), dict(size=(0, 2), mode="bicubic"), RuntimeError, "greater than 0"),
        ((1, 1, 4, 4), dict(size=2.0), TypeError, "output size must be ints"),
        ((4, 4), dict(size=2), NotImplementedError, "2-d input"),
    ],
)
def test_interpolate_rejects_bad_arguments_clearly(shape, kwargs, error, match):
    with pytest.raises(error, match=match):
        F.interpolate(mg.zeros(*shape), **kwargs)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
@pytest.mark.parametrize("mode,dims", [("nearest", 2), ("bilinear", 2), ("linear", 1)])
def test_interpolate_under_cpu_autocast_keeps_its_input_dtype_as_torch(dtype, mode, dims):
    torch = pytest.importorskip("torch")
    x = _rand(1, 2, *(3,) * dims)
    ours_in = mg.tensor(x).to(getattr(mg, dtype))
    theirs_in = torch.tensor(x).to(getattr(torch, dtype))
    with mg.autocast(device_type="cpu", dtype=mg.bfloat16):
        ours = F.interpolate(ours_in, scale_factor=2, mode=mode)
        ours_layer = nn.Upsample(scale_factor=2, mode=mode)(ours_in)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        theirs = torch.nn.functional.interpolate(theirs_in, scale_factor=2, mode=mode)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] == dtype
    assert ours_layer.dtype == ours.dtype


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "area"])
@pytest.mark.parametrize("scale", [float("nan"), float("inf"), -float("inf"), 1e300])
def test_a_scale_factor_whose_output_size_is_no_int64_is_a_runtime_error_naming_it(mode, scale):
    # (PyTorch: "value cannot be converted to type int64_t without overflow"; this was a
    # ValueError or OverflowError from math.floor that did not say where it came from)
    with pytest.raises(RuntimeError, match=r"interpolate: the output size 4 x scale_factor .* "
                       "cannot be converted to type int64_t without overflow"):  # fmt: skip
        F.interpolate(mg.ones(1, 1, 4, 4), scale_factor=scale, mode=mode)
