"""The CPU's strided convolution as matmuls over shifted views of the input's stride phases
(ops/conv_phases.py, kernels/conv_phases.py) against float64 references written out as sums over
kernel taps: values, input / weight / bias gradients, second derivatives against the im2col
path, odd sizes, asymmetric padding, strides that differ per axis, kernels larger than the
stride and smaller, channels-last inputs, float32 and float64; and the cases left to im2col."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
import minigenesis.nn.functional.conv as functional_conv
from minigenesis import kernels
from minigenesis.ops.conv_phases import PhaseConv2d


def _windows(xpad, i, j, stride, out):
    (sh, sw), (ho, wo) = stride, out
    return (
        slice(None),
        slice(None),
        slice(i, i + sh * (ho - 1) + 1, sh),
        slice(j, j + sw * (wo - 1) + 1, sw),
    )


def reference(x, w, b, stride, padding):
    """y in float64: one sum per kernel tap (i, j) over the strided windows of the padded x."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    top, bottom, left, right = padding
    xpad = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    kh, kw = w.shape[2:]
    ho, wo = (xpad.shape[2] - kh) // stride[0] + 1, (xpad.shape[3] - kw) // stride[1] + 1
    y = np.zeros((x.shape[0], w.shape[0], ho, wo))
    for i in range(kh):
        for j in range(kw):
            window = xpad[_windows(xpad, i, j, stride, (ho, wo))]
            y += np.einsum("oc,nchw->nohw", w[:, :, i, j], window)
    if b is not None:
        y += b.astype(np.float64)[None, :, None, None]
    return y


def reference_grads(x, w, gy, stride, padding):
    """dL/dx, dL/dw, dL/db of L = sum(y * gy) in float64, tap by tap."""
    x, w, gy = x.astype(np.float64), w.astype(np.float64), gy.astype(np.float64)
    top, bottom, left, right = padding
    xpad = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    gxpad, gw = np.zeros_like(xpad), np.zeros_like(w)
    kh, kw = w.shape[2:]
    for i in range(kh):
        for j in range(kw):
            window = _windows(xpad, i, j, stride, gy.shape[2:])
            gxpad[window] += np.einsum("oc,nohw->nchw", w[:, :, i, j], gy)
            gw[:, :, i, j] = np.einsum("nohw,nchw->oc", gy, xpad[window])
    h, wd = x.shape[2:]
    return gxpad[:, :, top : top + h, left : left + wd], gw, gy.sum(axis=(0, 2, 3))


CASES = [  # (N, C, O, H, W, kernel, stride, padding (top, bottom, left, right))
    (2, 16, 17, 8, 8, (3, 3), (2, 2), (1, 1, 1, 1)),  # ResNet's downsampling convolution
    (2, 5, 4, 9, 7, (3, 3), (2, 2), (1, 1, 1, 1)),  # odd sizes: the last row/column unread
    (3, 4, 6, 11, 9, (3, 2), (3, 2), (2, 0, 1, 1)),  # strides and padding differ per axis
    (2, 6, 4, 6, 6, (5, 5), (2, 3), (2, 2, 2, 2)),  # kernel over twice the stride
    (1, 4, 4, 5, 5, (2, 2), (2, 2), (0, 0, 0, 0)),  # one tap per phase
    (2, 4, 5, 7, 8, (2, 2), (3, 3), (1, 0, 0, 1)),  # kernel under the stride: unread phases
    (1, 4, 4, 5, 6, (3, 3), (2, 2), (0, 0, 0, 0)),
    (2, 4, 4, 3, 3, (3, 3), (2, 2), (3, 3, 3, 3)),  # padding over the kernel: windows of zeros
    (2, 4, 5, 9, 8, (3, 1), (2, 1), (1, 1, 0, 0)),  # stride along one axis only
]


@pytest.mark.parametrize("dtype, tol", [(np.float32, 2e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_phase_conv_values_and_gradients_match_float64_sums(case, dtype, tol, channels_last):
    n, c, o, h, wd, kernel, stride, padding = case
    rng = np.random.default_rng(sum(case[:5]))
    x = rng.standard_normal((n, c, h, wd)).astype(dtype)
    if channels_last:  # the same values, strided as (N, H, W, C) in memory
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    w = rng.standard_normal((o, c, *kernel)).astype(dtype)
    b = rng.standard_normal(o).astype(dtype)
    assert kernels.conv_phases.phase_conv_applies(x, w, stride, (1, 1), 1, padding)
    xt, wt, bt = (mg.tensor(a, requires_grad=True) for a in (x, w, b))
    y = PhaseConv2d.apply(xt, wt, bt, stride, padding)
    want = reference(x, w, b, stride, padding)
    assert y.dtype == xt.dtype and tuple(y.shape) == want.shape
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=0, atol=tol * np.abs(want).max())
    gy = rng.standard_normal(want.shape).astype(dtype)
    y.backward(mg.tensor(gy))
    for got, exp in zip((xt.grad, wt.grad, bt.grad), reference_grads(x, w, gy, stride, padding)):
        assert got.dtype == xt.dtype and tuple(got.shape) == exp.shape
        np.testing.assert_allclose(got.numpy(), exp, rtol=0, atol=tol * np.abs(exp).max())


def test_weight_gradient_per_tap_and_without_cblas_sum_the_same_products(monkeypatch):
    """The two other ways the speed layer sums: a matmul per tap (columns over 16 MiB) and
    NumPy's matmul with an add per tap (no CBLAS found)."""
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((2, 6, 9, 10)), rng.standard_normal((5, 6, 3, 3))
    stride, padding = (2, 2), (1, 1, 1, 1)
    gy = rng.standard_normal(reference(x, w, None, stride, padding).shape)
    gx_want, gw_want, _ = reference_grads(x, w, gy, stride, padding)
    monkeypatch.setattr(kernels.conv_phases, "_MAX_COLUMNS_BYTES", 0)
    monkeypatch.setattr(kernels.conv_phases, "_cblas_gemm", lambda dtype: None)
    y, _ = kernels.conv_phases.conv2d_phases(x, w, None, stride, padding)
    gx = kernels.conv_phases.conv2d_phases_input_grad(gy, w, x.shape, stride, padding)
    gw = kernels.conv_phases.conv2d_phases_weight_grad(x, gy, (3, 3), stride, padding)
    for got, exp in ((y, reference(x, w, None, stride, padding)), (gx, gx_want), (gw, gw_want)):
        np.testing.assert_allclose(got, exp, rtol=1e-12, atol=1e-12)


def _double_backward(x, w, b, use_phases: bool, monkeypatch):
    """d/dx and d/dw of sum(dL/dw * r) + sum(dL/dx * s), with L = sum(conv2d(x, w, b) * g)."""
    if not use_phases:  # F.conv2d's im2col path
        monkeypatch.setattr(functional_conv, "shifted_conv2d", lambda *args: None)
    xt, wt, bt = (mg.tensor(a, requires_grad=True) for a in (x, w, b))
    y = F.conv2d(xt, wt, bt, stride=2, padding=1)
    assert ("Phase" in type(y.grad_fn).__name__) == use_phases
    g = mg.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
    gx, gw = mg.autograd.grad((y * g).sum(), (xt, wt), create_graph=True)
    r = mg.tensor(np.sin(np.arange(gw.numel())).reshape(tuple(gw.shape)))
    s = mg.tensor(np.sin(np.arange(gx.numel()) * 0.3).reshape(tuple(gx.shape)))
    return [t.detach().numpy() for t in mg.autograd.grad((gw * r).sum() + (gx * s).sum(), (xt, wt))]


def test_phase_conv_second_derivatives_match_the_im2col_path(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 11, 10))
    w, b = rng.standard_normal((6, 8, 3, 3)), rng.standard_normal(6)
    fast = _double_backward(x, w, b, True, monkeypatch)
    plain = _double_backward(x, w, b, False, monkeypatch)
    for a, e in zip(fast, plain):
        np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-10 * np.abs(e).max())


@pytest.mark.parametrize(
    "args, expected",
    [
        (((2, 16, 16, 16), (32, 16, 3, 3), (2, 2), (1, 1), 1, (1, 1, 1, 1)), True),
        (((2, 16, 16, 16), (32, 16, 3, 3), (1, 1), (1, 1), 1, (1, 1, 1, 1)), False),  # stride 1
        (((2, 16, 16, 16), (32, 16, 3, 3), (2, 2), (2, 2), 1, (1, 1, 1, 1)), False),  # dilation
        (((2, 16, 16, 16), (32, 8, 3, 3), (2, 2), (1, 1), 2, (1, 1, 1, 1)), False),  # groups
        (((2, 16, 16, 16), (32, 16, 1, 1), (2, 2), (1, 1), 1, (0, 0, 0, 0)), False),  # 1x1
        (((2, 3, 16, 16), (32, 3, 3, 3), (2, 2), (1, 1), 1, (1, 1, 1, 1)), False),  # 3 channels
        (((2, 16, 2, 2), (32, 16, 5, 5), (2, 2), (1, 1), 1, (0, 0, 0, 0)), False),  # no output
    ],
)
def test_phase_conv_applies_only_where_it_is_faster_and_defined(args, expected):
    x_shape, w_shape, stride, dilation, groups, padding = args
    x, w = np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32)
    applies = kernels.conv_phases.phase_conv_applies(x, w, stride, dilation, groups, padding)
    assert applies == expected


def test_conv2d_hands_strided_convolutions_to_the_phase_op_and_the_rest_to_im2col():
    x = mg.randn(2, 16, 9, 9, requires_grad=True)
    assert type(mg.nn.Conv2d(16, 32, 3, 2, 1)(x).grad_fn).__name__ == "PhaseConv2dBackward0"
    dilated = mg.nn.Conv2d(16, 32, 3, 2, 1, dilation=2)
    assert "Phase" not in type(dilated(x).grad_fn).__name__
    one_by_one = mg.nn.Conv2d(16, 32, 1, 2)
    y = one_by_one(x)
    assert "Phase" not in type(y.grad_fn).__name__
    w, b = one_by_one.weight.detach().numpy(), one_by_one.bias.detach().numpy()
    want = reference(x.detach().numpy(), w, b, (2, 2), (0, 0, 0, 0))
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-4, atol=1e-5)
