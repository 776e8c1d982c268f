"""batch_norm in eval mode of float16/bfloat16 input computes the affine map
y = (x - running_mean) / sqrt(running_var + eps) * weight + bias in float32 and rounds once, as
PyTorch's CPU kernel does: within half an ulp of float64 (rounded after each of the scale, shift,
product and sum in the 2-byte dtype it was up to ~30 ulps off)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batch_norm_eval_output_and_gradients_round_once(dtype):
    rng = np.random.default_rng(0)
    x = rounded(rng.standard_normal((4, 6, 5)) * 3, dtype)
    mean, var = rounded(rng.standard_normal(6), dtype), rounded(rng.uniform(0.1, 4, 6), dtype)
    w, b = rounded(rng.standard_normal(6), dtype), rounded(rng.standard_normal(6), dtype)

    def bn(x, w, b, mean, var):
        return F.batch_norm(x, mean, var, w, b, training=False, eps=1e-3)

    y, y64, grads, grads64 = low_and_float64(bn, [x, w, b, mean, var], 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 0.5 + 1e-2
    for g, g64 in zip(grads, grads64):
        assert ulp_errors(g, g64, dtype).max() <= 0.5 + 1e-2
