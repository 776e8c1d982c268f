"""corrcoef and matrix_power (n >= 2) of float16/bfloat16 compute in float32 and round once:
within half an ulp of float64, their gradients too. Composed in the 2-byte dtype (means,
covariances, square roots, quotients; a chain of rounded products) the gradients were up to
~150 (corrcoef) and ~3.7 (matrix_power) ulps off in float16."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_corrcoef_rounds_once(dtype):
    x = rounded(np.random.default_rng(0).standard_normal((4, 9)), dtype)
    y, y64, grads, grads64 = low_and_float64(mg.corrcoef, [x], 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 0.5 + 1e-2
    assert ulp_errors(grads[0], grads64[0], dtype).max() <= 0.5 + 1e-2


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n", [2, 3, 6])
def test_matrix_power_rounds_once(n, dtype):
    a = rounded(np.random.default_rng(1).standard_normal((2, 4, 4)) / 2, dtype)
    fn = lambda t: mg.linalg.matrix_power(t, n)  # noqa: E731
    y, y64, grads, grads64 = low_and_float64(fn, [a], 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 0.5 + 1e-2
    assert ulp_errors(grads[0], grads64[0], dtype).max() <= 0.5 + 1e-2
