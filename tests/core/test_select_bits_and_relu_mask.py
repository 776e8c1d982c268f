"""The select behind ReLU's and max pooling's gradients from ``SELECT_BITS_MIN`` elements
(``kernels.elementwise.where_or_zero``, on the bits) gives np.where's elements bit for bit, and
ReLU's gradient, on either side of that size, passes exactly where x > 0 or x is NaN, never inf
or NaN elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.kernels.elementwise import where_or_zero


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_where_or_zero_gives_np_where_bits_for_inf_nan_and_signed_zeros(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1003).astype(dtype)  # (an odd length: SIMD bodies and tails)
    a[:6] = [np.inf, -np.inf, np.nan, -0.0, 0.0, -np.nan]
    keep = rng.random(1003) < 0.5
    keep[:6] = [False, True, False, True, True, True]
    got = where_or_zero(keep, a)
    assert got.dtype == a.dtype
    assert got.tobytes() == np.where(keep, a, dtype(0)).tobytes()


def test_relu_gradient_passes_where_x_is_positive_or_nan_and_is_plus_zero_elsewhere():
    x = mg.tensor(np.array([2.0, -1.0, 0.0, -0.0, np.nan, np.inf, -np.inf], np.float32))
    x.requires_grad_(True)
    gy = np.array([np.inf, np.inf, np.nan, -3.0, -0.0, 5.0, np.nan], np.float32)
    mg.relu(x).backward(mg.tensor(gy))
    expected = np.array([np.inf, 0.0, 0.0, 0.0, -0.0, 5.0, 0.0], np.float32)
    assert x.grad.numpy().tobytes() == expected.tobytes()


@pytest.mark.parametrize("value, expected", [(3.0, 1.0), (-2.0, 0.0), (np.nan, 1.0)])
def test_relu_gradient_of_a_zero_dim_tensor(value, expected):
    """A 0-d output is selected by the recorded op (the bit select takes arrays of 1+ dims)."""
    x = mg.tensor(np.float32(value), requires_grad=True)
    mg.relu(x).backward()
    assert x.grad.shape == () and x.grad.item() == expected


def test_relu_gradient_under_create_graph_is_the_plain_pass_gradient_and_stays_in_the_graph():
    x0 = np.array([[1.5, -2.0, 0.0], [-0.0, 3.0, np.nan]], np.float32)
    gy = np.array([[2.0, np.inf, 4.0], [5.0, -1.0, 7.0]], np.float32)
    x = mg.tensor(x0, requires_grad=True)
    mg.relu(x).backward(mg.tensor(gy))
    x2 = mg.tensor(x0, requires_grad=True)
    (g,) = mg.autograd.grad(mg.relu(x2), x2, mg.tensor(gy), create_graph=True)
    assert g.detach().numpy().tobytes() == x.grad.numpy().tobytes()
    assert g.requires_grad  # (differentiable again: zeros for x, as PyTorch's)
    (gg,) = mg.autograd.grad(g.sum(), x2, allow_unused=True)
    assert gg is None or not np.any(gg.numpy())


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("offset", [-1, 3])  # NumPy's where below the threshold, the bits from it
def test_relu_gradient_is_np_where_on_both_sides_of_the_bit_select_threshold(dtype, offset):
    from minigenesis import kernels

    n = kernels.elementwise.SELECT_BITS_MIN + offset
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal(n).astype(dtype)
    gy = rng.standard_normal(n).astype(dtype)
    x0[:4] = [np.nan, -0.0, 1.0, -1.0]
    gy[:8] = [np.inf, np.nan, -0.0, np.nan, -np.inf, 0.0, -0.0, np.inf]
    x = mg.tensor(x0, requires_grad=True)
    mg.relu(x).backward(mg.tensor(gy))
    with np.errstate(invalid="ignore"):
        keep = ~(x0 <= 0)  # y > 0, or NaN
    assert x.grad.numpy().dtype == dtype
    assert x.grad.numpy().tobytes() == np.where(keep, gy, dtype(0)).tobytes()
