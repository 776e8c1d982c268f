"""ReLU of 2-byte floats (autocast's activations), computed on the bits without widening or
rounding: checked over every bit pattern against a float64 reference, and against PyTorch."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

LOW = {"bfloat16": (mg.bfloat16, ml_dtypes.bfloat16), "float16": (mg.float16, np.float16)}


def _every_value(low) -> np.ndarray:
    """All 65,536 values of a 2-byte float (both zeros, both infinities, NaNs of either sign,
    subnormals), as a 256 x 256 array."""
    return np.arange(2**16, dtype=np.uint16).view(low).reshape(256, 256)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values, NaN where NaN (a zero's sign not compared)."""
    with np.errstate(invalid="ignore"):  # ml_dtypes flags each NaN it widens
        a, b = a.astype(np.float64), b.astype(np.float64)
    return np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(
        a[~np.isnan(a)], b[~np.isnan(b)]
    )


@pytest.mark.parametrize("name", list(LOW))
def test_relu_of_every_two_byte_value_matches_float64_forward_and_backward(name):
    dtype, low = LOW[name]
    xn = _every_value(low)
    g = np.random.default_rng(0).standard_normal(xn.shape).astype(low)
    x = mg.tensor(xn, requires_grad=True)
    y = mg.relu(x)
    y.backward(mg.tensor(g))
    with np.errstate(invalid="ignore"):
        x64 = xn.astype(np.float64)
    passes = (x64 > 0) | np.isnan(x64)  # max(x, 0) propagates NaN; dy/dx = 1 where y > 0 or NaN
    assert y.dtype is dtype and x.grad.dtype is dtype
    assert _same(y.detach().numpy(), np.where(passes, x64, 0.0))
    assert _same(x.grad.numpy(), np.where(passes, g.astype(np.float64), 0.0))


def test_relu_of_an_autocast_linear_keeps_pytorch_dtypes_and_values():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    xn = rng.standard_normal((16, 12)).astype(np.float32)
    wn = rng.standard_normal((8, 12)).astype(np.float32)
    bn = rng.standard_normal(8).astype(np.float32)

    x = mg.tensor(xn)
    w, b = mg.tensor(wn, requires_grad=True), mg.tensor(bn, requires_grad=True)
    with mg.autocast(dtype=mg.bfloat16):
        h = mg.nn.functional.linear(x, w, b)
        y = mg.relu(h)
    y.float().sum().backward()

    tw, tb = torch.tensor(wn, requires_grad=True), torch.tensor(bn, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        th = torch.nn.functional.linear(torch.tensor(xn), tw, tb)
        ty = torch.relu(th)
    ty.float().sum().backward()

    assert h.dtype is y.dtype is mg.bfloat16 and th.dtype is ty.dtype is torch.bfloat16
    assert w.grad.dtype is mg.float32 and tw.grad.dtype is torch.float32
    assert np.array_equal(y.float().detach().numpy(), ty.float().detach().numpy())
    # PyTorch rounds the weight gradient to bfloat16 and back: within half a bfloat16 unit
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=2**-8, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=2**-8, atol=1e-6)
