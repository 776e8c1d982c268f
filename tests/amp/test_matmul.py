"""The CPU low-precision matmul under autocast: bit for bit "round the inputs to the low dtype,
multiply in float32, round the output", and close to the float32 product."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

LOW = {"bfloat16": (mg.bfloat16, ml_dtypes.bfloat16), "float16": (mg.float16, np.float16)}


def _reference(a: np.ndarray, b: np.ndarray, low) -> np.ndarray:
    """Tensor-core numerics written out with NumPy alone: low-precision inputs, float32
    accumulation (BLAS), one rounding of the result."""
    a32 = a.astype(low).astype(np.float32)
    b32 = b.astype(low).astype(np.float32)
    return np.matmul(a32, b32).astype(low)


@pytest.mark.parametrize("name", list(LOW))
@pytest.mark.parametrize(
    "shape_a, shape_b",
    [((7, 33), (33, 5)), ((64, 128), (128, 32)), ((3, 8, 16), (16, 4)), ((2, 1, 5, 6), (3, 6, 2))],
)
def test_autocast_matmul_is_bit_exact(name, shape_a, shape_b):
    dtype, low = LOW[name]
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape_a).astype(np.float32)
    b = rng.standard_normal(shape_b).astype(np.float32)
    with mg.autocast(dtype=dtype):
        y = mg.tensor(a) @ mg.tensor(b)
    assert y.dtype is dtype
    expected = _reference(a, b, low)
    # compare the raw bits: equal values, equal NaN/sign patterns
    assert np.array_equal(y.numpy().view(np.uint16), expected.view(np.uint16))


@pytest.mark.parametrize("name", list(LOW))
def test_backward_matmuls_are_bit_exact_too(name):
    dtype, low = LOW[name]
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 9)).astype(np.float32)
    w = mg.tensor(rng.standard_normal((9, 4)).astype(np.float32), requires_grad=True)
    g = rng.standard_normal((6, 4)).astype(np.float32)
    with mg.autocast(dtype=dtype):
        y = mg.tensor(a) @ w
    y.backward(mg.tensor(g).to(dtype))
    # dL/dw = A^T G in the low dtype, then cast to float32 for the float32 parameter
    expected = _reference(a.T, g, low).astype(np.float32)
    assert w.grad.dtype is mg.float32
    assert np.array_equal(w.grad.numpy(), expected)


def test_bfloat16_matmul_relative_error_is_small():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((128, 256)).astype(np.float32)
    b = rng.standard_normal((256, 64)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    with mg.autocast(dtype=mg.bfloat16):
        y = (mg.tensor(a) @ mg.tensor(b)).float().numpy()
    rel = np.linalg.norm(y - exact) / np.linalg.norm(exact)
    assert rel < 2e-2
    # and the float32 product is far closer: the error is bfloat16's 8-bit mantissa, not a bug
    rel32 = np.linalg.norm(a @ b - exact) / np.linalg.norm(exact)
    assert rel32 < 1e-5 < rel


def test_low_precision_tensors_multiply_the_same_way_without_autocast():
    # Already-bf16 operands take the same float32-accumulation path outside autocast.
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 12)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((12, 3)).astype(ml_dtypes.bfloat16)
    y = mg.tensor(a) @ mg.tensor(b)
    assert y.dtype is mg.bfloat16
    assert np.array_equal(
        y.numpy().view(np.uint16), _reference(a, b, ml_dtypes.bfloat16).view(np.uint16)
    )


@pytest.mark.parametrize("name", list(LOW))
def test_linear_adds_its_bias_before_the_one_rounding(name):
    # As PyTorch's addmm: x W^T + b accumulated in float32, rounded once to the low dtype.
    dtype, low = LOW[name]
    rng = np.random.default_rng(4)
    x = rng.standard_normal((9, 20)).astype(np.float32)
    lin = mg.nn.Linear(20, 7)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    with mg.autocast(dtype=dtype):
        y = lin(mg.tensor(x))
    assert y.dtype is dtype
    a32, w32 = x.astype(low).astype(np.float32), w.astype(low).astype(np.float32)
    expected = (a32 @ w32.T + b.astype(low).astype(np.float32)).astype(low)
    assert np.array_equal(y.detach().numpy().view(np.uint16), expected.view(np.uint16))


@pytest.mark.parametrize("name", list(LOW))
def test_relu_on_low_precision_is_exact_forward_and_backward(name):
    dtype, low = LOW[name]
    rng = np.random.default_rng(5)
    x = mg.tensor(rng.standard_normal((6, 8)).astype(low), requires_grad=True)
    g = rng.standard_normal((6, 8)).astype(low)
    y = mg.relu(x)
    y.backward(mg.tensor(g))
    xn = x.detach().numpy()
    assert y.dtype is dtype and x.grad.dtype is dtype
    assert np.array_equal(y.detach().numpy(), np.maximum(xn, low(0)))
    assert np.array_equal(x.grad.numpy(), np.where(xn > 0, g, low(0)))
