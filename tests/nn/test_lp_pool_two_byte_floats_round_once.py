"""lp_pool1d/2d of float16/bfloat16 input computes (sum over the window of x^p)^(1/p) in float32
and rounds once: output and gradient within half an ulp of float64. Composed in the 2-byte dtype
(a power, an average pool, sign, relu, a scale, a root, each rounded) the gradient was up to
~2 ulps off."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "pool, shape, p",
    [
        (F.lp_pool1d, (2, 3, 12), 1.5),
        (F.lp_pool1d, (2, 3, 12), 3.0),
        (F.lp_pool2d, (2, 2, 6, 6), 2.0),
    ],
)
def test_lp_pool_output_and_gradient_round_once(pool, shape, p, dtype):
    x = rounded(np.random.default_rng(0).uniform(0.1, 3, shape), dtype)
    y, y64, grads, grads64 = low_and_float64(lambda t: pool(t, p, 2), [x], 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 0.5 + 1e-2
    assert ulp_errors(grads[0], grads64[0], dtype).max() <= 0.5 + 1e-2
