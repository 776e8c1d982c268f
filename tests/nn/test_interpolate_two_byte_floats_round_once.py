"""interpolate of float16 and bfloat16 tensors is computed in float32 and rounded once, at the
output, as PyTorch's CPU kernels do: each output and input gradient is within half an ulp (plus
float32's own rounding) of the float64 result of the same values. Resampling one dim at a time
rounded to the low dtype after each dim (and the weights were low-dtype numbers), several ulps
off; the gradients, sums of such terms, tens of ulps."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors

F = mg.nn.functional
HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share where sums cancel


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((2, 3, 5, 4), {"size": (9, 7), "mode": "bilinear"}),
        ((2, 3, 5, 4), {"size": (9, 7), "mode": "bilinear", "align_corners": True}),
        ((1, 2, 9, 8), {"size": (4, 3), "mode": "bilinear"}),
        ((2, 1, 3, 4), {"size": (5, 3), "mode": "bilinear"}),
        ((1, 2, 3, 4), {"scale_factor": 2, "mode": "bilinear", "align_corners": True}),
        ((1, 2, 3, 4, 5), {"scale_factor": 1.7, "mode": "trilinear"}),
        ((2, 3, 6), {"size": 13, "mode": "linear"}),
        ((1, 2, 5, 6), {"size": (8, 9), "mode": "bicubic"}),
        ((1, 2, 9, 10), {"size": (4, 3), "mode": "bilinear", "antialias": True}),
        ((1, 2, 9, 10), {"size": (4, 5), "mode": "area"}),
        ((2, 2, 5, 3), {"scale_factor": 1.5, "mode": "nearest"}),
    ],
    ids=[
        "bilinear",
        "bilinear-aligned",
        "bilinear-down",
        "bilinear-up-down",
        "bilinear-x2-aligned",
        "trilinear",
        "linear",
        "bicubic",
        "antialias",
        "area",
        "nearest",
    ],  # fmt: skip
)
def test_interpolate_rounds_output_and_input_gradient_once(shape, kwargs, dtype):
    x0 = rounded(np.random.default_rng(0).standard_normal(shape), dtype)
    y, y64, (gx,), (gx64,) = low_and_float64(F.interpolate, [x0], 1, dtype, **kwargs)
    assert y.dtype == gx.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= HALF_ULP
    assert ulp_errors(gx, gx64, dtype).max() <= HALF_ULP
