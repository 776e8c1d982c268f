"""scaled_dot_product_attention with a float mask that requires grad (a learned additive bias)
goes through composed ops; for float16/bfloat16 they now run in float32 and round once, as
SDPA's own op and PyTorch's kernel do: output and the gradients of query, key, value and the mask
within half an ulp (plus float32's own rounding) of the float64 result of the same values. In
the low dtype each step rounded: up to 6 ulps in the output and the mask's gradient."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors

HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share where sums cancel


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_attention_with_a_learned_float_mask_is_rounded_once(dtype):
    rng = np.random.default_rng(0)
    shapes = [(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4), (5, 6)]
    arrays = [rounded(rng.standard_normal(s), dtype) for s in shapes]
    fn = mg.nn.functional.scaled_dot_product_attention
    y, y64, grads, grads64 = low_and_float64(fn, arrays, 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= HALF_ULP
    for g, g64 in zip(grads, grads64):
        assert g.dtype == getattr(mg, dtype)
        assert ulp_errors(g, g64, dtype).max() <= HALF_ULP
