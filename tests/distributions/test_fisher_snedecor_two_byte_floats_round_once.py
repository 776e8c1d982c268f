"""FisherSnedecor's mode, variance and stddev of float16/bfloat16 degrees of freedom compute in
float32 and round once, as PyTorch's kernels do. In float16 the variance's backward divides by
(d1 (d2 - 2)^2 (d2 - 4))^2, which overflows 65504 for ordinary d: the gradients were thousands
of ulps off."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors


def _moment(name: str):
    return lambda d1, d2: getattr(mg.distributions.FisherSnedecor(d1, d2), name)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["mode", "variance", "stddev"])
def test_fisher_snedecor_moments_and_gradients_within_an_ulp_of_float64(name, dtype):
    rng = np.random.default_rng(0)
    d1, d2 = rounded(rng.uniform(3, 9, 8), dtype), rounded(rng.uniform(5, 9, 8), dtype)
    y, y64, grads, grads64 = low_and_float64(_moment(name), [d1, d2], 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 1.0
    for g, g64 in zip(grads, grads64):
        assert ulp_errors(g, g64, dtype).max() <= 1.5
