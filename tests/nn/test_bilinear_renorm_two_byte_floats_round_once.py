"""F.bilinear, renorm and trapezoid of float16/bfloat16 tensors compute in float32 and round
once: output and gradients within half an ulp (plus float32's own rounding) of the float64 result
of the same values. bilinear rounded x1 A before multiplying by x2 and summing (up to 9.5 ulps
off); renorm's norm, factor and product each rounded, its gradient up to 25 ulps off (PyTorch
4.5); trapezoid rounded the pair sums and their products with dx before summing (3 ulps off)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import assert_rounds_once, rounded

HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share where sums cancel


def _check(fn, shapes, dtype, scale=1.0):
    rng = np.random.default_rng(0)
    arrays = [rounded(rng.standard_normal(s) * scale, dtype) for s in shapes]
    assert_rounds_once(fn, arrays, dtype, HALF_ULP)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_bilinear_rounds_output_and_gradients_once(dtype):
    _check(mg.nn.functional.bilinear, [(6, 4), (6, 5), (3, 4, 5), (3,)], dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_renorm_rounds_output_and_gradient_once(dtype):
    _check(lambda x: x.renorm(2, 0, 3.0), [(5, 4, 3)], dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_trapezoid_with_dx_rounds_output_and_gradient_once(dtype):
    _check(lambda y: mg.trapezoid(y, dx=0.3), [(6, 40)], dtype)


def test_trapezoid_of_bfloat16_with_a_number_for_x_still_raises_type_error():
    with pytest.raises(TypeError, match="must be Tensor"):
        mg.trapezoid(mg.ones(4, dtype=mg.bfloat16), 2.0)
