"""The gradients of atan2, hypot, copysign and erfinv for float16/bfloat16 tensors are computed in
float32 and rounded once, as PyTorch's CPU kernels do: within half an ulp (plus float32's own
rounding) of the float64 gradient of the same values. Their backward formulas ran in the low
dtype, rounding after every step: up to 1.5-6.7 ulps off."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors

HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share


def _inputs(name, dtype):
    rng = np.random.default_rng(0)
    if name == "erfinv":
        return [rounded(rng.uniform(-0.95, 0.95, (30, 20)), dtype)]
    return [rounded(rng.standard_normal((30, 20)) * 3, dtype) for _ in range(2)]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["atan2", "hypot", "copysign", "erfinv"])
def test_pointwise_gradient_is_rounded_once(name, dtype):
    y, y64, grads, grads64 = low_and_float64(getattr(mg, name), _inputs(name, dtype), 1, dtype)
    assert ulp_errors(y, y64, dtype).max() <= HALF_ULP
    for g, g64 in zip(grads, grads64):
        assert g.dtype == getattr(mg, dtype)
        assert ulp_errors(g, g64, dtype).max() <= HALF_ULP
