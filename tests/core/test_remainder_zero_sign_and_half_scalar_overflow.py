"""Two floating-point details of the arithmetic operators, as PyTorch computes them.

remainder (``%``) is PyTorch's fmod-based kernel: a zero result keeps the sign of x (fmod's),
where NumPy's remainder gives it y's sign; the sign shows in 1 / (x % y). And a number past a
2-byte float's range (1e5 for float16) becomes inf silently when it meets the tensor, as in
PyTorch (NumPy's cast warned). Oracles: math.fmod's signed zero; IEEE inf arithmetic."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.float16, mg.bfloat16])
def test_remainder_zero_has_the_sign_of_the_dividend(dtype):
    a = [6.0, -6.0, 0.0, -0.0, 3.0, -4.5]
    b = [-3.0, 3.0, -3.0, 3.0, -3.0, 1.5]
    got = mg.remainder(mg.tensor(a).to(dtype), mg.tensor(b).to(dtype)).float().numpy()
    want = [math.fmod(x, y) for x, y in zip(a, b, strict=True)]  # all zeros here, signed as x
    assert np.signbit(got).tolist() == [math.copysign(1, w) < 0 for w in want]
    by_number = (mg.tensor(a).to(dtype) % -3.0).float().numpy()
    assert np.signbit(by_number).tolist() == [math.copysign(1, x) < 0 for x in a]


@pytest.mark.parametrize(("dtype", "big"), [(mg.float16, 1e5), (mg.bfloat16, 1e39)])
def test_number_past_a_two_byte_range_is_inf_without_a_warning(dtype, big):
    x = mg.tensor([1.0, -3.0]).to(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        total = (x + big).float().numpy()
        rest = (x % big).float().numpy()
    np.testing.assert_array_equal(total, [np.inf, np.inf])
    # x % inf: x for x >= 0, inf for x < 0 (floor(x / inf) = -1), as Python's % and PyTorch's
    np.testing.assert_array_equal(rest, [1.0, np.inf])
