"""avg_pool2d / avg_pool1d and adaptive_avg_pool2d / adaptive_avg_pool1d of float16 and bfloat16
tensors are computed in float32 and rounded once, as PyTorch's CPU kernels do: output and input
gradient within half an ulp (plus float32's own rounding) of the float64 result of the same
values. The adaptive pool multiplied by averaging matrices of low-dtype weights (1/3 is no
bfloat16 number) and rounded after each product, up to 5 ulps off; avg_pool's gradient rounded
dL/dy / divisor before spreading it over the windows."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors

F = mg.nn.functional
HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share where sums cancel
CASES = {
    "adaptive2d": (F.adaptive_avg_pool2d, (2, 3, 7, 9), {"output_size": (3, 4)}),
    "adaptive1d": (F.adaptive_avg_pool1d, (2, 3, 10), {"output_size": 3}),
    "avg2d-padded": (F.avg_pool2d, (2, 3, 7, 6), {"kernel_size": 3, "stride": 1, "padding": 1}),
    "avg2d-no-pad-count": (
        F.avg_pool2d,
        (1, 2, 7, 7),
        {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    ),
    "avg1d": (F.avg_pool1d, (2, 3, 11), {"kernel_size": 3, "stride": 1}),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", list(CASES))
def test_average_pooling_rounds_output_and_gradient_once(case, dtype):
    fn, shape, kwargs = CASES[case]
    x0 = rounded(np.random.default_rng(0).standard_normal(shape), dtype)
    y, y64, (gx,), (gx64,) = low_and_float64(fn, [x0], 1, dtype, **kwargs)
    assert y.dtype == gx.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= HALF_ULP
    assert ulp_errors(gx, gx64, dtype).max() <= HALF_ULP
