"""addcmul / addcdiv compute x + value * t1 * t2 (t1 / t2) in the three operands' promoted dtype,
2-byte floats in float32 and rounded once, as PyTorch's kernel does. The oracle is the float64
value of the same inputs rounded once to the result's dtype (NumPy)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg


def test_addcmul_of_int8_operands_into_float16_does_not_wrap_the_product():
    x = np.array([0.5, -1.0, 2.0], dtype=np.float16)
    t1 = np.array([100, -128, 127], dtype=np.int8)
    t2 = np.array([100, 3, 2], dtype=np.int8)
    want = (x.astype(np.float64) + 2 * t1.astype(np.float64) * t2).astype(np.float16)
    got = mg.addcmul(mg.tensor(x), mg.tensor(t1), mg.tensor(t2), value=2)
    assert got.dtype == mg.float16
    np.testing.assert_array_equal(got.numpy(), want)
    inplace = mg.tensor(x).addcmul_(mg.tensor(t1), mg.tensor(t2), value=2)
    np.testing.assert_array_equal(inplace.numpy(), want)


def test_addcmul_of_bool_operands_keeps_the_integer_dtype_and_wraps_in_it():
    x = np.array([120, -5, 0], dtype=np.int8)
    b = np.array([True, True, False])
    got = mg.addcmul(mg.tensor(x), mg.tensor(b), mg.tensor(b), value=2)
    assert got.dtype == mg.int8
    want = ((x.astype(np.int64) + 2 * b) + 128) % 256 - 128  # int8 wraps: 122 stays, ...
    np.testing.assert_array_equal(got.numpy(), want.astype(np.int8))


@pytest.mark.parametrize("inplace", [False, True])
def test_float16_addcmul_rounds_once(inplace):
    # t1 * t2 = 1 + 2**-9 + 2**-20: rounded to float16 first, x + it would be exactly 0
    e = 2.0**-10
    x = np.array([-(1 + 2 * e)], dtype=np.float16)
    t = np.array([1 + e], dtype=np.float16)
    want = np.float16(np.float64(x[0]) + np.float64(t[0]) ** 2)
    assert want == np.float16(2.0**-20)
    a, b = mg.tensor(x), mg.tensor(t)
    got = a.addcmul_(b, b) if inplace else mg.addcmul(a, b, b)
    assert got.item() == float(want)


def test_addcdiv_of_bfloat16_operands_into_float32_is_not_rounded_to_bfloat16():
    x = np.array([1.0, 0.1, -3.3], dtype=np.float32)
    t1 = np.array([1.3, 2.7, 0.3], dtype=ml_dtypes.bfloat16)
    t2 = np.array([0.7, 1.9, 3.1], dtype=ml_dtypes.bfloat16)
    f64 = [a.astype(np.float64) for a in (x, t1, t2)]
    got = mg.addcdiv(
        mg.tensor(x),
        mg.tensor(t1.astype(np.float32)).bfloat16(),
        mg.tensor(t2.astype(np.float32)).bfloat16(),
    )
    assert got.dtype == mg.float32
    want = (f64[0] + f64[1] / f64[2]).astype(np.float32)
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-7)
    prod = mg.addcmul(
        mg.tensor(x),
        mg.tensor(t1.astype(np.float32)).bfloat16(),
        mg.tensor(t2.astype(np.float32)).bfloat16(),
    )
    np.testing.assert_allclose(
        prod.numpy(), (f64[0] + f64[1] * f64[2]).astype(np.float32), rtol=2e-7
    )
