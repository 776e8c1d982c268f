"""+, -, *, / of two bfloat16 tensors on the CPU: computed as float32 array passes and rounded
once (ops/elementwise.py), bit for bit the numbers of ml_dtypes' own bfloat16 loops, specials
included, and as silent as they are; float16 (NumPy's loops) for comparison."""

from __future__ import annotations

import operator
import warnings

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

LOW = {"bfloat16": (mg.bfloat16, ml_dtypes.bfloat16), "float16": (mg.float16, np.float16)}
OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}


def _operands(low, shape, seed):
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 6, shape))
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 3e38, -7.0]
    flat = a.reshape(-1)
    n = min(len(specials), flat.size)
    flat[:n] = rng.choice(specials, n, replace=False)
    rng.shuffle(flat)
    with np.errstate(over="ignore"):
        return a.astype(np.float32).astype(low)


@pytest.mark.parametrize("name", list(LOW))
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("shapes", [((64, 33), (64, 33)), ((8, 1, 5), (3, 5)), ((), ())])
def test_two_byte_arithmetic_is_the_two_byte_loop_bit_for_bit(name, op, shapes):
    dtype, low = LOW[name]
    a, b = _operands(low, shapes[0], 1), _operands(low, shapes[1], 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's float16 loops warn about inf - inf, 0 / 0
        expected = np.asarray(OPS[op](a, b))  # ml_dtypes' / NumPy's own 2-byte loop
    with warnings.catch_warnings():
        if name == "bfloat16":
            warnings.simplefilter("error")  # ml_dtypes' loops never warn: neither do we
        else:
            warnings.simplefilter("ignore")
        got = OPS[op](mg.from_numpy(a), mg.from_numpy(b))
    assert got.dtype is dtype and got.shape == expected.shape
    assert np.array_equal(got.numpy().view(np.uint16), expected.view(np.uint16))


def test_gradients_of_a_bfloat16_product_are_bfloat16_products():
    a, b = _operands(ml_dtypes.bfloat16, (6, 7), 3), _operands(ml_dtypes.bfloat16, (6, 7), 4)
    a[~np.isfinite(a.astype(np.float32))] = 1
    b[~np.isfinite(b.astype(np.float32))] = 1
    x, y = mg.from_numpy(a).requires_grad_(), mg.from_numpy(b).requires_grad_()
    g = _operands(ml_dtypes.bfloat16, (6, 7), 5)
    g[~np.isfinite(g.astype(np.float32))] = 1
    (x * y).backward(mg.from_numpy(g))
    assert x.grad.dtype is mg.bfloat16
    assert np.array_equal(x.grad.numpy().view(np.uint16), (g * b).view(np.uint16))
    assert np.array_equal(y.grad.numpy().view(np.uint16), (g * a).view(np.uint16))
