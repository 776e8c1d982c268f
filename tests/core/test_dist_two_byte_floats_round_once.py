"""dist of float16/bfloat16 tensors computes the difference, the norm and the gradients in
float32 and rounds once: within half an ulp of float64 (the other operand's gradient, summed
over a broadcast dim, was up to ~4 ulps off in bfloat16)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.5])
def test_dist_with_a_broadcast_operand_rounds_once(p, dtype):
    rng = np.random.default_rng(0)
    a, b = rounded(rng.standard_normal((6, 5)), dtype), rounded(rng.standard_normal(5), dtype)
    y, y64, grads, grads64 = low_and_float64(lambda u, v: mg.dist(u, v, p), [a, b], 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 0.5 + 1e-2
    for g, g64 in zip(grads, grads64):
        assert ulp_errors(g, g64, dtype).max() <= 0.5 + 1e-2
