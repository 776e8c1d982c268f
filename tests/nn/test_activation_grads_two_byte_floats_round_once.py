"""The gradients of silu, hardswish, softplus, softmax and log_softmax for float16 and bfloat16
tensors are computed in float32 and rounded once, as PyTorch's CPU kernels do. Written as a chain
of tensor ops in the low dtype, each step rounded: silu's gradient was up to 3 ulps off the
float64 value, softmax's up to hundreds of ulps where its row sum cancels.

softmax and log_softmax's backward use the (rounded) saved output, as PyTorch's do, so their
oracle is the float64 formula evaluated on that output: y (g - sum g y) and g - e^y sum g."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors

F = mg.nn.functional
HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share where sums cancel


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "fn",
    [F.silu, F.hardswish, lambda x: F.softplus(x, beta=1.5, threshold=4.0)],
    ids=["silu", "hardswish", "softplus"],
)
def test_elementwise_activation_gradient_is_rounded_once(fn, dtype):
    x0 = rounded(np.random.default_rng(0).standard_normal((40, 25)) * 3, dtype)
    y, y64, (gx,), (gx64,) = low_and_float64(fn, [x0], 1, dtype)
    assert gx.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= HALF_ULP
    assert ulp_errors(gx, gx64, dtype).max() <= HALF_ULP


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_gradient_is_rounded_once(log, dtype):
    rng = np.random.default_rng(2)
    x0, g0 = (rounded(rng.standard_normal((30, 40)), dtype) for _ in range(2))
    x = mg.tensor(x0).to(getattr(mg, dtype)).requires_grad_(True)
    y = (F.log_softmax if log else F.softmax)(x, dim=1)
    (gx,) = mg.autograd.grad(y, [x], mg.tensor(g0).to(x.dtype))
    yb = y.detach().double().numpy()
    if log:
        truth = g0 - np.exp(yb) * g0.sum(1, keepdims=True)
    else:
        truth = yb * (g0 - (g0 * yb).sum(1, keepdims=True))
    assert gx.dtype == x.dtype
    assert ulp_errors(gx, truth, dtype).max() <= HALF_ULP


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_tanh_and_sigmoid_gradients_from_the_saved_output_are_rounded_once(name, dtype):
    rng = np.random.default_rng(3)
    x0, g0 = (
        rounded(rng.standard_normal((50, 40)) * 2, dtype),
        rounded(rng.standard_normal((50, 40)), dtype),
    )
    x = mg.tensor(x0).to(getattr(mg, dtype)).requires_grad_(True)
    y = getattr(mg, name)(x)
    (gx,) = mg.autograd.grad(y, [x], mg.tensor(g0).to(x.dtype))
    yb = y.detach().double().numpy()  # PyTorch's backward also uses the rounded output
    truth = g0 * (1 - yb * yb) if name == "tanh" else g0 * (1 - yb) * yb
    assert gx.dtype == x.dtype
    assert ulp_errors(gx, truth, dtype).max() <= HALF_ULP
