"""``amp.custom_fwd`` / ``custom_bwd`` on a user's autograd.Function, as PyTorch's: without
``cast_inputs`` forward runs under the caller's autocast (its matmul in bfloat16) and backward
under the same state; with ``cast_inputs=float32`` the inputs are cast and forward runs with
autocast off (its matmul in float32). Oracle: the dtypes autocast gives each op, and the
closed-form gradient of x @ w."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.amp import custom_bwd, custom_fwd, is_autocast_available

SEEN: dict = {}


def _matmul_function(cast_inputs):
    class MatMul(mg.autograd.Function):
        @staticmethod
        @custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            SEEN["forward inputs"] = (x.dtype, w.dtype)
            return x @ w

        @staticmethod
        @custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            SEEN["backward autocast"] = mg.is_autocast_enabled("cpu")
            return grad @ w.t(), x.t() @ grad

    return MatMul


X = np.linspace(-1, 1, 6).reshape(2, 3)
W = np.linspace(0.5, -0.5, 12).reshape(3, 4)


@pytest.mark.parametrize("cast_inputs", [None, mg.float32])
def test_forward_and_backward_follow_the_autocast_state(cast_inputs) -> None:
    x = mg.tensor(X, dtype=mg.float32, requires_grad=True)
    w = mg.tensor(W, dtype=mg.float32, requires_grad=True)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = _matmul_function(cast_inputs).apply(x, w)
    y.float().sum().backward()  # outside the region: custom_bwd restores forward's state
    if cast_inputs is None:
        assert y.dtype == mg.bfloat16 and SEEN["backward autocast"] is True
    else:
        assert y.dtype == mg.float32 and SEEN["backward autocast"] is False
        np.testing.assert_allclose(y.detach().numpy(), X @ W, rtol=1e-6)
    assert SEEN["forward inputs"] == (mg.float32, mg.float32)
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 4)) @ W.T, rtol=1e-2, atol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), X.T @ np.ones((2, 4)), rtol=1e-2, atol=1e-6)


def test_cast_inputs_casts_low_precision_inputs_up_and_leaves_float64() -> None:
    x = mg.tensor(X, dtype=mg.bfloat16, requires_grad=True)
    w = mg.tensor(W, dtype=mg.float64, requires_grad=True)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        _matmul_function(mg.float32).apply(x, w.float())
        assert SEEN["forward inputs"] == (mg.float32, mg.float32)

        class Identity(mg.autograd.Function):
            @staticmethod
            @custom_fwd(device_type="cpu", cast_inputs=mg.float32)
            def forward(ctx, a, b):
                SEEN["identity inputs"] = (a.dtype, b.dtype)
                return a * 1

        Identity.apply(x, w)
    assert SEEN["identity inputs"] == (mg.float32, mg.float64)


def test_outside_autocast_nothing_is_cast() -> None:
    x = mg.tensor(X, dtype=mg.bfloat16)
    _matmul_function(mg.float32).apply(x, mg.tensor(W, dtype=mg.bfloat16))
    assert SEEN["forward inputs"] == (mg.bfloat16, mg.bfloat16)


def test_device_type_is_required_as_a_string_and_availability() -> None:
    with pytest.raises(ValueError, match="device_type"):
        custom_fwd(device_type=None)
    assert is_autocast_available("cpu") and is_autocast_available("cuda")
    assert not is_autocast_available("meta")
