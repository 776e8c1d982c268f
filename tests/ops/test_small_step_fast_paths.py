"""The fast paths a small training step takes (makemore's shapes) compute what the plain paths
do: cross_entropy with every target a class (no validity mask), MatMul's input gradient of a
few-row g taken as (W g^T)^T, BatchNorm2d's forward on a C-contiguous input. Oracles: NumPy in
float64, and the other path of the same op."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.kernels import batch_norm as bn_kernels
from minigenesis.kernels import blas

F = mg.nn.functional


def _ce_reference(x, t, reduction):
    """cross_entropy and its gradient (for an all-ones upstream gradient) in float64."""
    m = x.max(axis=1, keepdims=True)
    lse = (m + np.log(np.exp(x - m).sum(axis=1, keepdims=True)))[:, 0]
    loss = lse - x[np.arange(len(t)), t]
    p = np.exp(x - lse[:, None])
    p[np.arange(len(t)), t] -= 1
    if reduction == "mean":
        return loss.mean(), p / len(t)
    if reduction == "sum":
        return loss.sum(), p
    return loss, p


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 3])
def test_cross_entropy_with_every_target_a_class_matches_float64_numpy(reduction, ignore_index):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 27)) * 3
    t = rng.integers(0, 27, 32)
    t[t == 3] = 4  # ignore_index=3 in range but never a target: the masked path, nothing ignored
    xt = mg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(xt, mg.tensor(t), ignore_index=ignore_index, reduction=reduction)
    loss.sum().backward()
    ref_loss, ref_grad = _ce_reference(x, t, reduction)
    np.testing.assert_allclose(loss.detach().numpy(), ref_loss, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(xt.grad.numpy(), ref_grad, rtol=1e-12, atol=1e-12)


def test_cross_entropy_unmasked_and_masked_paths_give_the_same_float32_numbers():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 27)).astype(np.float32)
    t = mg.tensor(rng.integers(1, 27, 32))
    results = []
    for ignore_index in (-100, 0):  # -100: no mask; 0 (a class no target has): the masked path
        xt = mg.tensor(x, requires_grad=True)
        loss = F.cross_entropy(xt, t, ignore_index=ignore_index)
        loss.backward()
        results.append((loss.item(), xt.grad.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(32, 200, 200), (16, 128, 70), (32, 27, 200), (64, 200, 200)])
def test_matmul_input_gradient_matches_float64_numpy(dtype, shape):
    n, k, m = shape  # a (n, k) @ b (k, m)
    rng = np.random.default_rng(2)
    a, b, g = (rng.standard_normal(s).astype(dtype) for s in ((n, k), (k, m), (n, m)))
    at, bt = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    (at @ bt).backward(mg.tensor(g))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    ref = g.astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_allclose(at.grad.numpy(), ref, rtol=tol, atol=tol * np.abs(ref).max())
    assert at.grad.numpy().flags.c_contiguous and at.grad.dtype == at.dtype
    np.testing.assert_allclose(
        bt.grad.numpy(), a.astype(np.float64).T @ g, rtol=tol, atol=tol * np.abs(ref).max()
    )


def test_times_transposed_serves_only_few_rows_and_wide_matrices():
    rng = np.random.default_rng(3)
    w = rng.standard_normal((200, 200)).astype(np.float32)
    assert blas.times_transposed(rng.standard_normal((32, 200)).astype(np.float32), w) is not None
    assert blas.times_transposed(rng.standard_normal((33, 200)).astype(np.float32), w) is None
    narrow = rng.standard_normal((27, 200)).astype(np.float32)
    assert blas.times_transposed(rng.standard_normal((32, 200)).astype(np.float32), narrow) is None
    assert blas.times_transposed(rng.standard_normal((32, 200)), w) is None  # float64 g, float32 w


@pytest.mark.parametrize("shape", [(8, 4, 6, 6), (4, 3, 5, 4, 4)])
def test_batch_norm_forward_is_the_same_for_contiguous_and_channels_first_inputs(shape):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(shape) * 2 + 1).astype(np.float32)
    c = shape[1]
    keep = (1, c) + (1,) * (len(shape) - 2)
    w = rng.uniform(0.5, 2, keep).astype(np.float32)
    b = rng.standard_normal(keep).astype(np.float32)
    axes = (0, *range(2, len(shape)))
    order = (1, 0, *range(2, len(shape)))
    channels_first = np.ascontiguousarray(x.transpose(order)).transpose(order)
    mu, var = bn_kernels.stats(x, axes)
    y, _ = bn_kernels.forward(x, w, b, mu, var, 1e-5, axes)
    y_cf, _ = bn_kernels.forward(channels_first, w, b, mu, var, 1e-5, axes)
    assert y.flags.c_contiguous
    np.testing.assert_array_equal(y, y_cf)
    x64 = x.astype(np.float64)
    m64, v64 = x64.mean(axis=axes, keepdims=True), x64.var(axis=axes, keepdims=True)
    ref = (x64 - m64) / np.sqrt(v64 + 1e-5) * w + b
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
