"""The error functions and the Bessel functions at NaN, +-inf and +-0, in every floating dtype:
NaN in gives NaN out, the infinities give the functions' limits (math.erf / math.erfc are the
oracle)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.special as S

EDGES = [math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -3.0, 30.0]
DTYPES = [mg.float64, mg.float32, mg.float16, mg.bfloat16]


def _same(ours: np.ndarray, expected: list) -> None:
    expected = np.array(expected)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(expected))
    keep = ~np.isnan(expected)
    np.testing.assert_allclose(ours[keep], expected[keep], rtol=1e-2)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize(
    "name, ours, truth",
    [("erf", mg.erf, math.erf), ("erfc", mg.erfc, math.erfc), ("special.erf", S.erf, math.erf)],
)
def test_error_functions_give_nan_for_nan_and_their_limits_at_infinity(dtype, name, ours, truth):
    y = ours(mg.tensor(EDGES, dtype=dtype)).float().numpy()
    _same(y, [truth(v) for v in EDGES])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_erfinv_of_nan_and_out_of_range_is_nan_and_of_plus_minus_one_infinite(dtype):
    y = mg.erfinv(mg.tensor([math.nan, 1.0, -1.0, 1.5, -math.inf, 0.0], dtype=dtype))
    _same(y.float().numpy(), [math.nan, math.inf, -math.inf, math.nan, math.nan, 0.0])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_bessel_functions_of_nan_are_nan_and_scaled_ones_vanish_at_infinity(dtype):
    x = mg.tensor([math.nan, math.inf, -math.inf, 0.0], dtype=dtype)
    _same(S.i1(x).float().numpy(), [math.nan, math.inf, -math.inf, 0.0])
    _same(S.i0e(x).float().numpy(), [math.nan, 0.0, 0.0, 1.0])
    _same(S.i1e(x).float().numpy(), [math.nan, 0.0, 0.0, 0.0])


def test_erf_gradient_at_nan_is_nan_and_at_infinity_zero():
    x = mg.tensor([math.nan, math.inf, -math.inf], dtype=mg.float64, requires_grad=True)
    mg.erf(x).sum().backward()
    _same(x.grad.numpy(), [math.nan, 0.0, 0.0])
