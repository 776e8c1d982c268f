"""isin compares in the two operands' promoted dtype, as ``==`` does (PyTorch promotes them):
an int32 2049 is 2048 in float16, 2**31 - 1 is inf there. The oracle is NumPy's isin on the
operands cast to the promoted dtype by hand."""

from __future__ import annotations

import numpy as np

import minigenesis as mg


def test_float16_elements_in_int32_tests_compare_in_float16():
    a = np.array([2048.0, 3.0, 0.5, 65504.0, np.inf], dtype=np.float16)
    b = np.array([2049, 3, 65519, 2**31 - 1, -(2**31)], dtype=np.int32)
    with np.errstate(over="ignore"):
        b16 = b.astype(np.float16)
    np.testing.assert_array_equal(mg.isin(mg.tensor(a), mg.tensor(b)).numpy(), np.isin(a, b16))
    np.testing.assert_array_equal(mg.isin(mg.tensor(b), mg.tensor(a)).numpy(), np.isin(b16, a))
    assert mg.isin(mg.tensor(a), mg.tensor(b)).tolist() == [True, True, False, True, True]


def test_isin_agrees_with_any_of_equality():
    a = mg.tensor(np.array([16777217, 3, -1], dtype=np.int64))
    b = mg.tensor(np.array([16777216.0, 2.0], dtype=np.float32))
    # int64 16777217 and float32 16777216 are equal once both are float32
    want = (a[:, None] == b[None, :]).any(1)
    assert mg.isin(a, b).tolist() == want.tolist() == [True, False, False]
    assert mg.isin(a, b, invert=True).tolist() == [False, True, True]
