"""Max pooling's CPU fast path (kernels/pooling.py) against a float64 NumPy oracle written window by
window, and bit for bit against the op's own plain loop: the first maximum of a tie, the last NaN
of a window (PyTorch's ``val > max || isnan(val)``), -0 gradients summed to +0, inf gradients kept
out of the other pixels, inputs laid out as a convolution's output ((C, N, H, W) memory), strided
inputs, padding, dilation, ceil_mode, overlapping windows, return_indices, integers and float16."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.kernels.pooling as kernel_pooling
import minigenesis.nn.functional as F


def reference_max_pool(x, k, s, p, d, ceil_mode):
    """(y, flat index h*W + w, gradient map) of max_pool2d, one window at a time in float64:
    the first largest element of each window, the last NaN where the window holds one."""
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = k, s, p, d

    def size(length, kk, ss, pp, dd):
        span = dd * (kk - 1) + 1
        if ceil_mode:
            out = -(-(length + 2 * pp - span) // ss) + 1
            if (out - 1) * ss >= length + pp:
                out -= 1
            return out
        return (length + 2 * pp - span) // ss + 1

    ho, wo = size(h, kh, sh, ph, dh), size(w, kw, sw, pw, dw)
    y = np.empty((n, c, ho, wo))
    idx = np.empty((n, c, ho, wo), dtype=np.int64)
    for a, b, i, j in itertools.product(range(n), range(c), range(ho), range(wo)):
        best, where = -np.inf, None
        for u, v in itertools.product(range(kh), range(kw)):
            r, q = i * sh - ph + u * dh, j * sw - pw + v * dw
            if not (0 <= r < h and 0 <= q < w):
                continue
            val = float(x[a, b, r, q])
            if where is None or val > best or np.isnan(val):
                best, where = val, r * w + q
        y[a, b, i, j], idx[a, b, i, j] = best, where
    return y, idx


def scatter_grad(gy, idx, shape):
    """dL/dx of max pooling: each window's gradient added at its maximum (0 + g at least once)."""
    gx = np.zeros(shape, dtype=np.float64).reshape(shape[0], shape[1], -1)
    flat_g, flat_i = gy.reshape(shape[0], shape[1], -1), idx.reshape(shape[0], shape[1], -1)
    for a, b in itertools.product(range(shape[0]), range(shape[1])):
        np.add.at(gx[a, b], flat_i[a, b], flat_g[a, b])
    return gx.reshape(shape)


def as_conv_output(data):
    """A tensor of ``data``'s values laid out as a convolution's output: (C, N, H, W) memory."""
    return mg.tensor(np.ascontiguousarray(data.transpose(1, 0, 2, 3))).permute(1, 0, 2, 3)


def pooled(x_data, layout, kwargs, gy_data):
    """(y, indices, dL/dx) of F.max_pool2d on a tensor of x_data in ``layout``."""
    if layout == "conv output":
        leaf = mg.tensor(np.ascontiguousarray(x_data.transpose(1, 0, 2, 3)), requires_grad=True)
        x = leaf.permute(1, 0, 2, 3)
    elif layout == "strided":
        wide = np.repeat(x_data, 2, axis=3)
        leaf = mg.tensor(wide, requires_grad=True)
        x = leaf[:, :, :, ::2]
    else:
        leaf = mg.tensor(x_data, requires_grad=True)
        x = leaf
    assert x.shape == x_data.shape
    y, idx = F.max_pool2d(x, return_indices=True, **kwargs)
    y.backward(mg.tensor(gy_data))
    g = leaf.grad.numpy()
    if layout == "conv output":
        g = g.transpose(1, 0, 2, 3)
    elif layout == "strided":
        g = g[:, :, :, ::2] + g[:, :, :, 1::2]
    return y.detach().numpy(), idx.numpy(), g


GEOMETRIES = [
    dict(kernel_size=2),
    dict(kernel_size=2, stride=2, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1),  # overlapping windows: the gradient adds
    dict(kernel_size=(1, 3), stride=(1, 3)),  # disjoint, not tiling: zeros in between
    dict(kernel_size=2, stride=3, dilation=2, padding=1),
    dict(kernel_size=2, stride=1),
]
LAYOUTS = ["contiguous", "conv output", "strided"]


def geometry(kwargs):
    k = kwargs["kernel_size"]
    k = (k, k) if isinstance(k, int) else k
    s = kwargs.get("stride", k)
    s = (s, s) if isinstance(s, int) else s
    p, d = kwargs.get("padding", 0), kwargs.get("dilation", 1)
    return k, s, (p, p), (d, d), kwargs.get("ceil_mode", False)


@pytest.mark.parametrize("kwargs", GEOMETRIES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_max_pool_values_indices_and_gradient_match_a_window_by_window_oracle(kwargs, layout):
    rng = np.random.default_rng(1)
    # values on a coarse grid: many ties within windows; one -0 beside +0
    x = rng.integers(-3, 4, (2, 3, 7, 9)).astype(np.float32)
    x[0, 0, 0, :2] = [0.0, -0.0]
    y_ref, idx_ref = reference_max_pool(x.astype(np.float64), *geometry(kwargs))
    gy = rng.standard_normal(y_ref.shape).astype(np.float32)
    y, idx, gx = pooled(x, layout, kwargs, gy)
    np.testing.assert_array_equal(idx, idx_ref)
    np.testing.assert_array_equal(y, y_ref.astype(np.float32))
    gx_ref = scatter_grad(gy.astype(np.float64), idx_ref, x.shape)
    np.testing.assert_allclose(gx, gx_ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kwargs", GEOMETRIES[:3], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS[:2])
def test_max_pool_nan_wins_its_window_at_the_last_nan(kwargs, layout):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 2, 6, 6)).astype(np.float32)
    x[0, 0, 0, 0] = x[0, 0, 1, 1] = np.nan  # two NaNs in one window: the last one wins
    x[1, 1, 2, 3] = np.nan
    y_ref, idx_ref = reference_max_pool(x.astype(np.float64), *geometry(kwargs))
    gy = rng.standard_normal(y_ref.shape).astype(np.float32)
    y, idx, gx = pooled(x, layout, kwargs, gy)
    np.testing.assert_array_equal(idx, idx_ref)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(y_ref))
    np.testing.assert_array_equal(y[~np.isnan(y)], y_ref[~np.isnan(y_ref)].astype(np.float32))
    gx_ref = scatter_grad(gy.astype(np.float64), idx_ref, x.shape)
    np.testing.assert_allclose(gx, gx_ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("layout", LAYOUTS[:2])
def test_max_pool_gradient_sums_minus_zero_to_plus_zero_and_keeps_inf_in_its_pixel(layout):
    x = np.arange(2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4)  # max at offset 3
    gy = np.full((2, 2, 2, 2), -0.0, dtype=np.float32)
    gy[0, 0, 0, 0] = np.inf
    gy[1, 1, 1, 1] = np.nan
    _, _, gx = pooled(x, layout, dict(kernel_size=2), gy)
    expected = np.zeros(x.shape, dtype=np.float32)  # +0 everywhere (0 + -0 = +0)
    expected[0, 0, 1, 1] = np.inf
    expected[1, 1, 3, 3] = np.nan
    np.testing.assert_array_equal(gx, expected)
    assert not np.signbit(gx[np.isfinite(gx)]).any()


@pytest.mark.parametrize("kwargs", GEOMETRIES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS[:2])
@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32])
def test_max_pool_fast_path_gives_the_plain_loops_bits(kwargs, layout, dtype, monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.integers(-4, 5, (3, 2, 8, 7)).astype(dtype)
    y_ref, _ = reference_max_pool(x.astype(np.float64), *geometry(kwargs))
    gy = rng.standard_normal(y_ref.shape).astype(np.float64 if dtype == np.int32 else dtype)
    floating = dtype != np.int32
    fast = pooled(x, layout, kwargs, gy) if floating else None
    fast_y = F.max_pool2d(mg.tensor(x), return_indices=True, **kwargs)
    monkeypatch.setattr(kernel_pooling, "max_pool", lambda *a: None)
    monkeypatch.setattr(kernel_pooling, "max_pool_grad", lambda *a: None)
    plain_y = F.max_pool2d(mg.tensor(x), return_indices=True, **kwargs)
    for a, b in zip(fast_y, plain_y):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(fast_y[0].numpy(), y_ref.astype(dtype))
    if floating:
        plain = pooled(x, layout, kwargs, gy)
        for a, b in zip(fast, plain):
            assert a.tobytes() == b.tobytes()


def test_max_pool_gradient_matches_float64_central_differences():
    rng = np.random.default_rng(4)
    x0 = rng.permutation(2 * 3 * 6 * 6).reshape(2, 3, 6, 6).astype(np.float64) / 7  # no ties
    weights = rng.standard_normal((2, 3, 3, 3))

    def loss(data):
        return float((F.max_pool2d(mg.tensor(data), 2).numpy() * weights).sum())

    x = as_conv_output(x0).detach().requires_grad_(True)
    (F.max_pool2d(x, 2) * mg.tensor(weights)).sum().backward()
    eps = 1e-6
    numeric = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        up, down = x0.copy(), x0.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (loss(up) - loss(down)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)
