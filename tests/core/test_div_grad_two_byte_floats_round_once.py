"""The gradient of x / y with respect to y, -g x / y^2, of float16/bfloat16 tensors is computed
in float32 and rounded once (after the sum over a broadcast dim), as PyTorch's kernels round
each step's float32 result: within half an ulp of float64. In the 2-byte dtype its product,
square and quotient each rounded, up to ~2.2 ulps off."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shapes", [((64,), (64,)), ((16, 8), (8,))], ids=["same", "broadcast"])
def test_div_gradients_round_once(shapes, dtype):
    rng = np.random.default_rng(0)
    x = rounded(rng.standard_normal(shapes[0]), dtype)
    y = rounded(rng.uniform(0.5, 2, shapes[1]) * rng.choice([-1, 1], shapes[1]), dtype)
    z, z64, grads, grads64 = low_and_float64(lambda a, b: a / b, [x, y], 1, dtype)
    assert ulp_errors(z, z64, dtype).max() <= 0.5 + 1e-3
    for g, g64 in zip(grads, grads64):
        assert g.dtype == getattr(mg, dtype)
        assert ulp_errors(g, g64, dtype).max() <= 0.5 + 1e-2
