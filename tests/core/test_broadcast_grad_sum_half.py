"""The gradient of a broadcast half-precision input (a bfloat16 bias added to a batch) is the sum
of the upstream gradient over the broadcast dims, accumulated in float32 and rounded once to the
input's dtype, as PyTorch's reductions do; it was accumulated in bfloat16 (relative errors of
~1% over a few hundred rows). Oracle: the float64 sum, rounded once."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_bias_grad_of_a_broadcast_add_is_rounded_once(dtype):
    low = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16
    rng = np.random.default_rng(0)
    gy = rng.standard_normal((512, 8)).astype(low)
    x = mg.zeros((512, 8), dtype=getattr(mg, dtype))
    b = mg.zeros(8, dtype=getattr(mg, dtype), requires_grad=True)
    (x + b).backward(mg.tensor(gy.astype(np.float32), dtype=getattr(mg, dtype)))
    want = gy.astype(np.float64).sum(0).astype(low).astype(np.float64)
    got = b.grad.float().numpy().astype(np.float64)
    # the exact sum rounded once; float32 accumulation may land one half-ulp off a tie
    np.testing.assert_allclose(got, want, rtol=2.0**-8)
