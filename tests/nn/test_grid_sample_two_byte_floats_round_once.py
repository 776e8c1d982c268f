"""grid_sample of float16/bfloat16 input and grid computes in float32 and rounds once, as
PyTorch's CPU kernel does: output and the gradients of input and grid within half an ulp (plus
float32's own rounding) of the float64 result of the same values. In the low dtype the
unnormalised coordinates, weights and products each rounded: the grid's gradient was up to 14
ulps off (PyTorch 1.4), and hundreds where the float64 value is small."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors

HALF_ULP = 1.0  # the one rounding, plus float32 coordinates (the grid gradient scales them)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "mode, padding_mode, align_corners",
    [("bilinear", "zeros", False), ("bilinear", "reflection", False), ("bicubic", "border", True)],
)
def test_grid_sample_rounds_output_and_gradients_once(mode, padding_mode, align_corners, dtype):
    rng = np.random.default_rng(0)
    x0 = rounded(rng.standard_normal((2, 3, 5, 6)), dtype)
    grid0 = rounded(rng.uniform(-1.1, 1.1, (2, 4, 3, 2)), dtype)

    def fn(x, grid):
        return mg.nn.functional.grid_sample(x, grid, mode, padding_mode, align_corners)

    y, y64, grads, grads64 = low_and_float64(fn, [x0, grid0], 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= HALF_ULP
    for g, g64 in zip(grads, grads64):
        assert g.dtype == getattr(mg, dtype)
        assert ulp_errors(g, g64, dtype).max() <= HALF_ULP
