"""A convolution's bias gradient, sum of dL/dy over (N, H, W), as BLAS row sums
(kernels.sums.channel_sums): the float64 reference's sums for NCHW and channels-first layouts,
NumPy's reduction (None) for small or other-layout arrays, and the conv ops' bias gradients
that float64 central differences give."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels.sums import CHANNEL_SUMS_MIN, channel_sums


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("channels_first", [False, True])
def test_channel_sums_are_the_float64_sums_over_n_h_w(dtype, channels_first):
    rng = np.random.default_rng(2)
    g = rng.standard_normal((8, 16, 12, 12)).astype(dtype) + 3.0
    if channels_first:
        g = np.ascontiguousarray(g.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)
    got = channel_sums(g)
    assert got.dtype == dtype and got.shape == (16,)
    exact = g.astype(np.float64).sum(axis=(0, 2, 3))
    np.testing.assert_allclose(got, exact, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_channel_sums_leave_small_strided_and_other_arrays_to_numpy():
    g = np.ones((8, 16, 12, 12), np.float32)
    assert g.size >= CHANNEL_SUMS_MIN
    assert channel_sums(g[:, :, ::2]) is None  # neither layout
    assert channel_sums(np.ones((2, 3, 4, 4), np.float32)) is None  # below the break-even
    assert channel_sums(g.astype(np.float16)) is None
    assert channel_sums(g.reshape(8, 16, 144)) is None


@pytest.mark.parametrize("stride", [1, 2])
def test_conv_bias_gradient_is_the_sum_of_the_output_gradient(stride):
    rng = np.random.default_rng(3)
    x = mg.tensor(rng.standard_normal((16, 4, 16, 16)))
    w = mg.tensor(rng.standard_normal((16, 4, 3, 3)))
    b = mg.tensor(rng.standard_normal(16), requires_grad=True)
    gy = rng.standard_normal((16, 16, 16 // stride, 16 // stride))
    assert gy.size >= CHANNEL_SUMS_MIN
    (F.conv2d(x, w, b, stride=stride, padding=1) * mg.tensor(gy)).sum().backward()
    # y is linear in b with dy/db[o] = 1 at every (n, h, w) of channel o: a float64 central
    # difference of L = sum(y * gy) in b is exact up to rounding
    eps, numeric = 1e-3, np.empty(16)
    for o in range(16):
        db = np.zeros(16)
        db[o] = eps
        up = (F.conv2d(x, w, mg.tensor(b._data + db), stride=stride, padding=1)._data * gy).sum()
        dn = (F.conv2d(x, w, mg.tensor(b._data - db), stride=stride, padding=1)._data * gy).sum()
        numeric[o] = (up - dn) / (2 * eps)
    np.testing.assert_allclose(b.grad._data, numeric, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(b.grad._data, gy.sum(axis=(0, 2, 3)), rtol=1e-12)
