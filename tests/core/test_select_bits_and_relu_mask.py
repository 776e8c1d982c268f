"""The select behind ReLU's and max pooling's gradients (``kernels.elementwise.where_or_zero``, on
the bits) gives np.where's elements bit for bit, and ReLU's gradient passes exactly where x > 0
or x is NaN, never inf or NaN elsewhere."""

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
