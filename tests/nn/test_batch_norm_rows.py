"""BatchNorm on (N, C) input (ops/batch_norm_rows.py) and on (N, C, L) input (the general op):
values, gradients by float64 central differences, second derivatives, running statistics
(momentum, momentum=None), affine=False, eval mode and 2-byte floats, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck


def ref_train(x, w, b, eps=1e-5):
    """y of BatchNorm's training step in float64: per channel (dim 1) over the other dims."""
    axes = (0, *range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


def central_jacobian_vector(fn, arrays, k, v, h=1e-6):
    """d/d arrays[k] of sum(fn(*arrays) * v) by central differences (float64)."""
    base = [a.copy() for a in arrays]
    grad = np.zeros_like(base[k])
    for i in np.ndindex(base[k].shape):
        plus = [a.copy() for a in base]
        minus = [a.copy() for a in base]
        plus[k][i] += h
        minus[k][i] -= h
        grad[i] = ((fn(*plus) * v).sum() - (fn(*minus) * v).sum()) / (2 * h)
    return grad


@pytest.mark.parametrize("shape", [(7, 4), (5, 3, 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_training_step_values_and_gradients_match_float64_central_differences(shape, affine):
    rng = np.random.default_rng(0)
    c = shape[1]
    x = rng.standard_normal(shape) * 2 + 1
    w, b = (rng.uniform(0.5, 2, c), rng.standard_normal(c)) if affine else (None, None)
    g = rng.standard_normal(shape)
    xt = mg.tensor(x, requires_grad=True)
    wt = None if w is None else mg.tensor(w, requires_grad=True)
    bt = None if b is None else mg.tensor(b, requires_grad=True)
    y = mg.nn.functional.batch_norm(xt, None, None, wt, bt, training=True)
    np.testing.assert_allclose(y.detach().numpy(), ref_train(x, w, b), rtol=1e-12, atol=1e-12)
    y.backward(mg.tensor(g))
    f = lambda *a: ref_train(a[0], *(a[1:] if affine else (None, None)))  # noqa: E731
    arrays = [x, w, b] if affine else [x]
    tensors = [xt, wt, bt] if affine else [xt]
    for k, t in enumerate(tensors):
        np.testing.assert_allclose(
            t.grad.numpy(), central_jacobian_vector(f, arrays, k, g), rtol=1e-6, atol=1e-7
        )
        assert t.grad.shape == t.shape


@pytest.mark.parametrize("affine", [True, False])
def test_gradcheck_of_the_rows_op_in_float64(affine):
    rng = np.random.default_rng(1)
    x = mg.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    w = mg.tensor(rng.uniform(0.5, 2, 3), requires_grad=True)
    b = mg.tensor(rng.standard_normal(3), requires_grad=True)
    if affine:
        fn = lambda x, w, b: mg.nn.functional.batch_norm(x, None, None, w, b, training=True)  # noqa: E731
        assert gradcheck(fn, (x, w, b))
    else:
        fn = lambda x: mg.nn.functional.batch_norm(x, None, None, training=True)  # noqa: E731
        assert gradcheck(fn, (x,))


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 2)])
def test_second_derivative_matches_central_differences_of_the_first(shape):
    """d/dx <dL/dx, u> from create_graph=True equals the central difference of the first-order
    gradient (itself from the closed form) along each entry of x."""
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal(shape)
    w = mg.tensor(rng.uniform(0.5, 2, shape[1]), requires_grad=True)
    b = mg.tensor(rng.standard_normal(shape[1]), requires_grad=True)
    v = mg.tensor(rng.standard_normal(shape))
    u = mg.tensor(rng.standard_normal(shape))

    def first(x_np):
        x = mg.tensor(x_np, requires_grad=True)
        y = mg.nn.functional.batch_norm(x, None, None, w, b, training=True)
        (gx,) = mg.autograd.grad((y * v).sum(), x)
        return gx.numpy()

    x = mg.tensor(x0, requires_grad=True)
    y = mg.nn.functional.batch_norm(x, None, None, w, b, training=True)
    (gx,) = mg.autograd.grad((y * v).sum(), x, create_graph=True)
    (hx,) = mg.autograd.grad((gx * u).sum(), x)
    numeric = central_jacobian_vector(lambda a: first(a), [x0], 0, u.numpy())
    np.testing.assert_allclose(hx.numpy(), numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5)])
def test_running_statistics_follow_the_unbiased_batch_variance(momentum, shape):
    rng = np.random.default_rng(3)
    bn = mg.nn.BatchNorm1d(3, momentum=momentum).double()
    mean, var = np.zeros(3), np.ones(3)
    axes = (0, *range(2, len(shape)))
    for step in range(1, 4):
        x = rng.standard_normal(shape) * step + step
        bn(mg.tensor(x))
        m = 1.0 / step if momentum is None else momentum
        mean = (1 - m) * mean + m * x.mean(axis=axes)
        var = (1 - m) * var + m * x.var(axis=axes, ddof=1)
        np.testing.assert_allclose(bn.running_mean.numpy(), mean, rtol=1e-12)
        np.testing.assert_allclose(bn.running_var.numpy(), var, rtol=1e-12)
        assert int(bn.num_batches_tracked) == step
    bn.eval()
    x = rng.standard_normal(shape)
    shape_c = (1, 3) + (1,) * (len(shape) - 2)
    want = (x - mean.reshape(shape_c)) / np.sqrt(var.reshape(shape_c) + 1e-5)
    np.testing.assert_allclose(bn(mg.tensor(x)).detach().numpy(), want, rtol=1e-12)


def test_without_running_statistics_eval_uses_the_batch():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 4))
    bn = mg.nn.BatchNorm1d(4, affine=False, track_running_stats=False).double().eval()
    np.testing.assert_allclose(bn(mg.tensor(x)).numpy(), ref_train(x, None, None), rtol=1e-12)


@pytest.mark.parametrize("dtype", [mg.float16, mg.bfloat16])
def test_two_byte_inputs_are_normalised_in_float32_and_rounded_once(dtype):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((16, 4)).astype(np.float32)
    xt = mg.tensor(x).to(dtype).requires_grad_()
    y = mg.nn.functional.batch_norm(xt, None, None, None, None, training=True)
    assert y.dtype == dtype
    x_rounded = xt.detach().float().numpy().astype(np.float64)
    want = ref_train(x_rounded, None, None)
    np.testing.assert_allclose(y.detach().float().numpy(), want, atol=2e-2)
    y.float().sum().backward()
    assert xt.grad.dtype == dtype
    np.testing.assert_allclose(xt.grad.float().numpy(), 0.0, atol=2e-2)  # sum of xhat: flat


def test_gradient_reaches_only_what_requires_it():
    rng = np.random.default_rng(6)
    x = mg.tensor(rng.standard_normal((6, 3)))
    bn = mg.nn.BatchNorm1d(3).double()
    bn.bias.requires_grad_(False)
    bn(x).pow(2).sum().backward()
    assert x.grad is None and bn.bias.grad is None
    assert bn.weight.grad is not None and bn.weight.grad.shape == (3,)
