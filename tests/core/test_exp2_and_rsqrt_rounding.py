"""exp2 and rsqrt round once: the float64 result rounded to the tensor's dtype (the oracle), for
2-byte floats and float32; and their gradients."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

X = np.random.default_rng(0).standard_normal(4000) * 3
NP = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}


def _in(name: str) -> tuple:
    t = mg.tensor(X).to(getattr(mg, name))
    return t, t.to(mg.float64).numpy()


def _rounded(values: np.ndarray, name: str) -> np.ndarray:
    with np.errstate(over="ignore"):
        return values.astype(NP[name]).astype(np.float64)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32"])
def test_exp2_is_the_power_of_two_rounded_once(name):
    t, a = _in(name)
    got = t.exp2()
    assert got.dtype == getattr(mg, name)
    np.testing.assert_array_equal(got.to(mg.float64).numpy(), _rounded(np.exp2(a), name))


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_rsqrt_of_a_two_byte_float_is_rounded_once(name):
    t, a = _in(name)
    got = t.abs().rsqrt()
    assert got.dtype == getattr(mg, name)
    want = _rounded(1 / np.sqrt(np.abs(a)), name)
    np.testing.assert_array_equal(got.to(mg.float64).numpy(), want)


def test_exp2_and_rsqrt_gradients():
    x = mg.tensor([0.3, -1.2, 2.0], dtype=mg.float64, requires_grad=True)
    (x.exp2() + x.abs().rsqrt()).sum().backward()
    a = np.array([0.3, -1.2, 2.0])
    want = np.exp2(a) * math.log(2) - 0.5 * np.sign(a) * np.abs(a) ** -1.5
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-14)
    assert mg.tensor([1, 2]).exp2().dtype == mg.float32  # integers: the default float
