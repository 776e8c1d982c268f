"""BatchNorm's training step on the CPU (kernels/batch_norm.py) against a float64 NumPy reference,
for every memory layout its input and gradient arrive in: C-contiguous (N, C, *), channels-first
(the convolutions' outputs), a strided view of neither, and the 2-D and 3-D inputs of
BatchNorm1d."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.kernels import batch_norm as kbn


def reference(x, g, w, b, eps):
    """y, dL/dx, dL/dw, dL/db of y = (x - mu) / sqrt(var + eps) * w + b in float64 (closed form
    per channel; biased variance)."""
    x, g = x.astype(np.float64), g.astype(np.float64)
    axes = (0, *range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    w64, b64 = w.astype(np.float64).reshape(shape), b.astype(np.float64).reshape(shape)
    mu = x.mean(axis=axes, keepdims=True)
    r = 1 / np.sqrt(((x - mu) ** 2).mean(axis=axes, keepdims=True) + eps)
    xhat = (x - mu) * r
    gh = g * w64
    mean = lambda a: a.mean(axis=axes, keepdims=True)  # noqa: E731
    gx = r * (gh - mean(gh) - xhat * mean(gh * xhat))
    return xhat * w64 + b64, gx, (g * xhat).sum(axis=axes), g.sum(axis=axes)


def layout(a, how):
    """The same values as ``a`` in the memory layout ``how``."""
    if how == "nc":
        return np.ascontiguousarray(a)
    perm = (1, 0, *range(2, a.ndim))
    if how == "cn":
        return np.ascontiguousarray(a.transpose(perm)).transpose(perm)
    if how == "grid":  # a convolution's output: channels first, cut from a larger grid
        grid = np.zeros((a.shape[1], a.shape[0]) + tuple(s + 1 for s in a.shape[2:]), a.dtype)
        view = grid[(slice(None), slice(None)) + tuple(slice(0, s) for s in a.shape[2:])]
        view[...] = a.transpose(perm)
        return view.transpose(perm)
    pad = np.zeros(a.shape[:-1] + (a.shape[-1] + 3,), a.dtype)  # a strided view of neither
    pad[..., 1 : 1 + a.shape[-1]] = a
    return pad[..., 1 : 1 + a.shape[-1]]


SHAPES = [(8, 5, 6, 7), (16, 12), (6, 4, 17)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("x_layout", ["nc", "cn", "strided", "grid"])
@pytest.mark.parametrize("g_layout", ["nc", "cn", "strided"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block_bytes", [None, 3000])  # one block of channels; 2-3, the last short
def test_batch_norm_training_step_matches_float64_in_every_layout(
    shape, x_layout, g_layout, dtype, block_bytes, monkeypatch
):
    if block_bytes is not None:  # several blocks, the last one short
        monkeypatch.setattr(kbn, "_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(1)
    c = shape[1]
    x = (rng.standard_normal(shape) * 3 + 2).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    bn = mg.nn.BatchNorm2d(c) if len(shape) == 4 else mg.nn.BatchNorm1d(c)
    with mg.no_grad():
        bn.weight.copy_(mg.tensor(rng.uniform(0.5, 2, c).astype(np.float32)))
        bn.bias.copy_(mg.tensor(rng.standard_normal(c).astype(np.float32)))
    bn = bn.to(mg.float64) if dtype == np.float64 else bn
    xt = mg.tensor(layout(x, x_layout), requires_grad=True)
    y = bn(xt)
    y.backward(mg.tensor(layout(g, g_layout)))
    ry, rgx, rgw, rgb = reference(x, g, bn.weight.detach().numpy(), bn.bias.detach().numpy(), 1e-5)
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(y.detach().numpy(), ry, **tol)
    np.testing.assert_allclose(xt.grad.numpy(), rgx, **tol)
    np.testing.assert_allclose(bn.weight.grad.numpy(), rgw, **tol)
    np.testing.assert_allclose(bn.bias.grad.numpy(), rgb, **tol)
    # the running averages took this batch's mean and unbiased variance
    axes = (0, *range(2, len(shape)))
    n = x.size // c
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x.mean(axis=axes), **tol)
    np.testing.assert_allclose(
        bn.running_var.numpy(), 0.9 + 0.1 * x.astype(np.float64).var(axis=axes) * n / (n - 1), **tol
    )


def test_batch_norm_without_affine_and_input_gradient_only():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((10, 3, 4, 4)).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    xt = mg.tensor(x, requires_grad=True)
    mg.nn.functional.batch_norm(xt, None, None, training=True).backward(mg.tensor(g))
    _, rgx, _, _ = reference(x, g, np.ones(3), np.zeros(3), 1e-5)
    np.testing.assert_allclose(xt.grad.numpy(), rgx, rtol=2e-5, atol=2e-5)


def test_batch_norm_statistics_of_a_large_mean_stay_exact():
    """The variance is taken about the mean (x - mu, then its sum of squares), not as
    E[x^2] - mu^2, which loses every digit when the mean is 10^4 times the spread."""
    rng = np.random.default_rng(3)
    x = (1e4 + rng.standard_normal((64, 4, 8, 8))).astype(np.float32)
    mu, var = kbn.stats(x, (0, 2, 3))
    ref = x.astype(np.float64).var(axis=(0, 2, 3))
    np.testing.assert_allclose(var.reshape(4), ref, rtol=1e-5)
    np.testing.assert_allclose(mu.reshape(4), x.astype(np.float64).mean(axis=(0, 2, 3)), rtol=1e-7)


def test_batch_norm_fast_path_declines_what_it_does_not_serve():
    x16 = np.ones((4, 3, 2, 2), np.float16)
    assert kbn.stats(x16, (0, 2, 3)) is None  # 2-byte floats: the op's float32 code
    x = np.ones((4, 3, 2, 2), np.float32)
    assert kbn.stats(x, (0, 1)) is None  # not BatchNorm's axes
    assert kbn.stats(np.ones((0, 3, 20), np.float32), (0, 2)) is None  # empty
    assert kbn.stats(np.ones((4, 3), np.float32), (0,)) is None  # rows of 1: NumPy's reductions
