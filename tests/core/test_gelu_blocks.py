"""The exact float32 GELU evaluated block by block (kernels/gelu.py) gives the bits of the
whole-array evaluation: values and slopes, across block edges, with inf, NaN and the tails."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import gelu as G


@pytest.mark.parametrize("size", [G._GELU_BLOCK * 3 + 17, G._GELU_BLOCK, 1000])
def test_blocked_gelu_is_bit_identical_to_the_whole_array_passes(size):
    x = (np.random.default_rng(size).standard_normal(size) * 6).astype(np.float32)
    x[[0, size // 2, -1]] = [np.inf, -np.inf, np.nan]
    x[1:9] = [-20.0, -14.9, -5.6, -0.0, 0.0, 1e-30, 15.1, 40.0]
    for want_slope in (False, True):
        y, slope = G._gelu_float32_blocks(x, want_slope)
        y_ref, slope_ref = G._gelu_float32_numpy(x, want_slope)
        assert np.array_equal(y.view(np.uint32), y_ref.view(np.uint32))
        if want_slope:
            assert np.array_equal(slope.view(np.uint32), slope_ref.view(np.uint32))
        else:
            assert slope is None


def test_gelu_of_a_large_tensor_matches_the_float64_definition():
    x64 = np.linspace(-8, 8, G._GELU_BLOCK * 2 + 5)
    t = mg.tensor(x64.astype(np.float32), requires_grad=True)
    y = F.gelu(t)
    y.sum().backward()
    erf = np.vectorize(__import__("math").erf)
    phi = 0.5 * (1 + erf(x64 / np.sqrt(2)))
    np.testing.assert_allclose(y.detach().numpy(), x64 * phi, rtol=1e-5, atol=1e-7)
    slope = phi + x64 * np.exp(-(x64**2) / 2) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(t.grad.numpy(), slope, rtol=1e-5, atol=1e-6)
