"""BatchNorm on a bfloat16 input with float32 weight and bias (mixed precision, as autocast
leaves it): dL/dbias is the per-channel sum of the bfloat16 upstream gradient, accumulated in
float32 and kept in the bias's float32, as PyTorch computes it; it was summed or rounded in
bfloat16 (errors of ~1%). Oracle: the float64 sum of the rounded gradient."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (40, 3)], ids=["NCHW", "NC rows"])
def test_bias_grad_of_a_bfloat16_batch_norm_is_a_float32_sum(shape):
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal(shape), dtype=mg.bfloat16, requires_grad=True)
    w = mg.ones(3, requires_grad=True)
    b = mg.zeros(3, requires_grad=True)
    gy = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    y = mg.nn.functional.batch_norm(x, None, None, w, b, training=True)
    y.backward(mg.tensor(gy.astype(np.float32), dtype=mg.bfloat16))
    axes = (0,) + tuple(range(2, len(shape)))
    want = gy.astype(np.float64).sum(axis=axes)
    assert b.grad.dtype == mg.float32
    np.testing.assert_allclose(b.grad.numpy(), want, rtol=1e-6)
