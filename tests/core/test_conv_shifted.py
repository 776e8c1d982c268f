"""The CPU's stride-1 convolution as matmuls over shifted views (ops/conv_shifted.py,
kernels/conv.py) against float64 references written out as sums over kernel offsets: values,
input / weight / bias gradients, second derivatives against the im2col path, odd sizes,
asymmetric padding (the grid's zeros shared by neighbouring rows and images), strided
(channels-last) inputs, float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
import minigenesis.nn.functional.conv as functional_conv
from minigenesis import kernels
from minigenesis.ops.conv_shifted import ShiftedConv2d


def reference(x, w, b, padding):
    """y, and the gradients of sum(y * gy), in float64: one sum per kernel offset (i, j)."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    top, bottom, left, right = padding
    xpad = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    kh, kw = w.shape[2:]
    ho, wo = xpad.shape[2] - kh + 1, xpad.shape[3] - kw + 1
    y = np.zeros((x.shape[0], w.shape[0], ho, wo))
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("oc,nchw->nohw", w[:, :, i, j], xpad[:, :, i : i + ho, j : j + wo])
    if b is not None:
        y += b.astype(np.float64)[None, :, None, None]
    return y


def reference_grads(x, w, gy, padding):
    x, w, gy = x.astype(np.float64), w.astype(np.float64), gy.astype(np.float64)
    top, bottom, left, right = padding
    xpad = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    gxpad, gw = np.zeros_like(xpad), np.zeros_like(w)
    kh, kw = w.shape[2:]
    ho, wo = gy.shape[2:]
    for i in range(kh):
        for j in range(kw):
            window = (slice(None), slice(None), slice(i, i + ho), slice(j, j + wo))
            gxpad[window] += np.einsum("oc,nohw->nchw", w[:, :, i, j], gy)
            gw[:, :, i, j] = np.einsum("nohw,nchw->oc", gy, xpad[window])
    h, wd = x.shape[2:]
    return gxpad[:, :, top : top + h, left : left + wd], gw, gy.sum(axis=(0, 2, 3))


CASES = [  # (N, C, O, H, W, kernel, padding (top, bottom, left, right))
    (2, 16, 17, 7, 9, (3, 3), (1, 1, 1, 1)),
    (1, 5, 3, 6, 5, (3, 3), (0, 0, 0, 0)),
    (3, 4, 6, 8, 7, (4, 4), (1, 2, 1, 2)),  # 'same' for an even kernel
    (2, 3, 5, 9, 6, (5, 5), (2, 2, 2, 2)),
    (2, 6, 4, 5, 8, (1, 3), (0, 0, 1, 0)),
    (3, 3, 4, 6, 7, (3, 3), (0, 2, 2, 0)),  # one side's padding only: shared between neighbours
    (2, 2, 3, 4, 5, (2, 3), (1, 0, 0, 1)),
    (2, 8, 16, 12, 12, (5, 5), (0, 0, 0, 0)),  # LeNet's: forward on columns, gradient on the grid
    (2, 4, 5, 3, 4, (3, 3), (2, 2, 2, 2)),  # forward on the grid, gradient on columns
    (2, 6, 4, 8, 11, (5, 5), (1, 0, 2, 1)),  # forward on the windows as rows, uneven padding
    (2, 8, 32, 20, 30, (3, 3), (1, 1, 1, 1)),  # weight gradient on stacked taps, 2 pixel blocks
]


@pytest.mark.parametrize("dtype, tol", [(np.float32, 2e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_shifted_conv_values_and_gradients_match_float64_sums(case, dtype, tol, channels_last):
    n, c, o, h, wd, (kh, kw), padding = case
    rng = np.random.default_rng(sum(case[:5]))
    x = rng.standard_normal((n, c, h, wd)).astype(dtype)
    if channels_last:  # the same values, strided as (N, H, W, C) in memory
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    w = rng.standard_normal((o, c, kh, kw)).astype(dtype)
    b = rng.standard_normal(o).astype(dtype)
    xt, wt, bt = (mg.tensor(a, requires_grad=True) for a in (x, w, b))
    y = ShiftedConv2d.apply(xt, wt, bt, padding)
    want = reference(x, w, b, padding)
    scale = np.abs(want).max()
    assert y.dtype == xt.dtype and tuple(y.shape) == want.shape
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=0, atol=tol * scale)
    gy = rng.standard_normal(want.shape).astype(dtype)
    y.backward(mg.tensor(gy))
    for got, exp in zip((xt.grad, wt.grad, bt.grad), reference_grads(x, w, gy, padding)):
        assert got.dtype == xt.dtype
        np.testing.assert_allclose(got.numpy(), exp, rtol=0, atol=tol * np.abs(exp).max())


def _double_backward(x, w, b, use_shifted: bool, monkeypatch):
    """d/dx and d/dw of sum(dL/dw * r), with L = sum(conv2d(x, w, b) * g)."""
    if not use_shifted:  # F.conv2d's im2col path
        monkeypatch.setattr(functional_conv, "shifted_conv2d", lambda *args: None)
    xt, wt, bt = (mg.tensor(a, requires_grad=True) for a in (x, w, b))
    y = F.conv2d(xt, wt, bt, padding=1)
    g = mg.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
    gx, gw = mg.autograd.grad((y * g).sum(), (xt, wt), create_graph=True)
    r = mg.tensor(np.sin(np.arange(gw.numel())).reshape(tuple(gw.shape)))
    s = mg.tensor(np.sin(np.arange(gx.numel()) * 0.3).reshape(tuple(gx.shape)))
    return [t.detach().numpy() for t in mg.autograd.grad((gw * r).sum() + (gx * s).sum(), (xt, wt))]


def test_shifted_conv_second_derivatives_match_the_im2col_path(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 16, 12, 12))
    w, b = rng.standard_normal((16, 16, 3, 3)), rng.standard_normal(16)
    assert kernels.conv.shifted_conv_applies(x, w, (1, 1), (1, 1), 1, (1, 1, 1, 1))
    fast = _double_backward(x, w, b, True, monkeypatch)
    plain = _double_backward(x, w, b, False, monkeypatch)
    for a, e in zip(fast, plain):
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-10 * np.abs(e).max())


def test_conv2d_hands_3x3_stride1_convolutions_to_the_shifted_op():
    x = mg.randn(2, 16, 16, 16, requires_grad=True)
    conv = mg.nn.Conv2d(16, 32, 3, padding=1)
    assert type(conv(x).grad_fn).__name__ == "ShiftedConv2dBackward0"
    for kwargs in ({"stride": 2}, {"dilation": 2}, {"groups": 2}):
        other = mg.nn.Conv2d(16, 32, 3, padding=1, **kwargs)
        assert "Shifted" not in type(other(x).grad_fn).__name__


@pytest.mark.parametrize(
    "args",
    [
        ((2, 16, 16, 16), (16, 16, 3, 3), (1, 1), (1, 1), 1, (1, 1, 1, 1)),
        ((2, 16, 16, 16), (3, 16, 3, 3), (1, 1), (1, 1), 1, (1, 1, 1, 1)),  # 3 out: im2col
        ((2, 16, 4, 4), (16, 16, 3, 3), (1, 1), (1, 1), 1, (1, 1, 1, 1)),  # 36 cells for 16
        ((2, 16, 16, 16), (16, 16, 3, 3), (1, 1), (1, 1), 1, (3, 3, 3, 3)),  # padding > k - 1
        ((2, 16, 16, 16), (16, 16, 3, 3), (2, 2), (1, 1), 1, (1, 1, 1, 1)),
    ],
)
def test_shifted_conv_applies_only_where_it_is_faster_and_defined(args):
    x_shape, w_shape, stride, dilation, groups, padding = args
    x, w = np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32)
    expected = x_shape == (2, 16, 16, 16) and w_shape[0] == 16
    expected = expected and stride == (1, 1) and padding == (1, 1, 1, 1)
    assert kernels.conv.shifted_conv_applies(x, w, stride, dilation, groups, padding) == expected


def test_shifted_conv_without_cblas_sums_the_same_products(monkeypatch):
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 16, 9, 7)), rng.standard_normal((8, 16, 3, 3))
    b = rng.standard_normal(8)
    with_blas, _ = kernels.conv.conv2d_shifted(x, w, b, (1, 1, 1, 1))
    monkeypatch.setattr(kernels.conv, "_cblas_gemm", lambda dtype: None)
    monkeypatch.setattr(kernels.conv, "_BLOCK_BYTES", 4096)  # several blocks
    without, _ = kernels.conv.conv2d_shifted(x, w, b, (1, 1, 1, 1))
    np.testing.assert_allclose(without, reference(x, w, b, (1, 1, 1, 1)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(without, with_blas, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize(
    "c_in, c_out, expected", [(4, 16, True), (16, 4, True), (3, 32, True), (32, 3, False)]
)
def test_shifted_conv_takes_four_or_more_output_channels(c_in, c_out, expected):
    x, w = np.zeros((2, c_in, 16, 16), np.float32), np.zeros((c_out, c_in, 3, 3), np.float32)
    applies = kernels.conv.shifted_conv_applies(x, w, (1, 1), (1, 1), 1, (1, 1, 1, 1))
    assert applies == expected


def test_each_direction_takes_the_grid_only_where_its_grid_pays(monkeypatch):
    """LeNet's 8->16 5x5 layer on 12x12: the op is taken; its forward runs on im2col's columns
    (a 12x12 grid for 8x8 outputs), its input gradient on the grid (12x12 outputs)."""
    x, w = np.zeros((2, 8, 12, 12), np.float32), np.zeros((16, 8, 5, 5), np.float32)
    assert kernels.conv.shifted_conv_applies(x, w, (1, 1), (1, 1), 1, (0, 0, 0, 0))
    grids = []
    real = kernels.conv._padded_grid
    monkeypatch.setattr(
        kernels.conv, "_padded_grid", lambda a, *r: grids.append(a.shape) or real(a, *r)
    )
    xt = mg.tensor(np.ones((2, 8, 12, 12), np.float32), requires_grad=True)
    F.conv2d(xt, mg.tensor(np.ones((16, 8, 5, 5), np.float32))).sum().backward()
    assert grids == [(2, 16, 8, 8)]  # only the input gradient's convolution, of dL/dy


@pytest.mark.parametrize("c_in", [1, 3, 8])
def test_forward_on_columns_hands_them_to_the_weight_gradient(c_in, monkeypatch):
    """1-3 input channels (the first layer of a CNN), or a grid that does not pay (LeNet's
    8->16 5x5 layer on 12x12): the forward runs on im2col's columns (with 4 or more channels on
    the windows as rows) and the weight gradient multiplies those same windows: one copy of the
    windows per step, not two."""
    rng = np.random.default_rng(c_in)
    x, w = rng.standard_normal((2, c_in, 12, 12)), rng.standard_normal((16, c_in, 5, 5))
    b = rng.standard_normal(16)
    padding = (2, 2, 2, 2) if c_in < 4 else (0, 0, 0, 0)
    assert kernels.conv.shifted_conv_applies(x, w, (1, 1), (1, 1), 1, padding)
    copies = []
    for name in ("_columns", "_window_rows"):
        real = getattr(kernels.conv, name)
        monkeypatch.setattr(
            kernels.conv,
            name,
            lambda a, *r, real=real, name=name: copies.append(name) or real(a, *r),
        )
    wt, bt = mg.tensor(w, requires_grad=True), mg.tensor(b, requires_grad=True)
    y = ShiftedConv2d.apply(mg.tensor(x), wt, bt, padding)
    want = reference(x, w, b, padding)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    gy = rng.standard_normal(want.shape)
    y.backward(mg.tensor(gy))
    assert copies == ["_columns" if c_in < 4 else "_window_rows"]
    _, gw, gb = reference_grads(x, w, gy, padding)
    np.testing.assert_allclose(wt.grad.numpy(), gw, rtol=1e-12, atol=1e-12 * np.abs(gw).max())
    np.testing.assert_allclose(bt.grad.numpy(), gb, rtol=1e-12, atol=1e-12)


def test_shifted_conv_keeps_no_second_copy_of_x_for_backward(monkeypatch):
    """The forward's zero-padded grid of x is not kept for the weight gradient (it would hold
    a second copy of x until backward): the weight gradient makes it again, after the input
    gradient's convolution makes the grid of dL/dy."""
    rng = np.random.default_rng(11)
    x, w = rng.standard_normal((2, 16, 9, 7)), rng.standard_normal((8, 16, 3, 3))
    grids = []
    real = kernels.conv._padded_grid
    monkeypatch.setattr(
        kernels.conv, "_padded_grid", lambda a, *r: grids.append(a.shape) or real(a, *r)
    )
    xt, wt = mg.tensor(x, requires_grad=True), mg.tensor(w, requires_grad=True)
    y = ShiftedConv2d.apply(xt, wt, None, (1, 1, 1, 1))
    gy = rng.standard_normal(tuple(y.shape))
    y.backward(mg.tensor(gy))
    assert grids == [x.shape, gy.shape, x.shape]
    gx, gw, _ = reference_grads(x, w, gy, (1, 1, 1, 1))
    np.testing.assert_allclose(wt.grad.numpy(), gw, rtol=1e-12, atol=1e-12 * np.abs(gw).max())
    np.testing.assert_allclose(xt.grad.numpy(), gx, rtol=1e-12, atol=1e-12 * np.abs(gx).max())


@pytest.mark.parametrize(
    "c_in, c_out, k, p", [(1, 32, 1, 0), (3, 8, 3, 1), (1, 8, 5, 1), (4, 32, 3, 1)]
)
def test_empty_batch_gives_zero_weight_and_bias_gradients(c_in, c_out, k, p):
    """An empty batch (N = 0) of a first layer (1-3 input channels: im2col's per-image columns)
    has an empty output and zero dL/dw, dL/db: the sum over no images."""
    x = mg.zeros(0, c_in, 9, 12, requires_grad=True)
    w = mg.tensor(np.ones((c_out, c_in, k, k), np.float32), requires_grad=True)
    b = mg.zeros(c_out, requires_grad=True)
    y = F.conv2d(x, w, b, padding=p)
    assert tuple(y.shape) == (0, c_out, 9 + 2 * p - k + 1, 12 + 2 * p - k + 1)
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((c_out, c_in, k, k), np.float32))
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(c_out, np.float32))
    assert tuple(x.grad.shape) == (0, c_in, 9, 12)
