"""group_norm of a bfloat16 input with float32 weight and bias (mixed precision): normalised
and scaled in float32 and rounded once, as PyTorch's kernel; rounding xhat to bfloat16 before
the affine step put ~0.2% errors into dL/dweight and dL/dx. Oracle: float64 closed forms from
the bfloat16-rounded input and upstream gradient."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import minigenesis as mg


def _round(a):
    return a.astype(ml_dtypes.bfloat16).astype(np.float64)


def test_group_norm_weight_and_input_grads_of_a_bfloat16_input_are_float32_accurate():
    rng = np.random.default_rng(0)
    n, c, s, groups, eps = 10, 6, 4, 3, 1e-5
    x0, gy0 = _round(rng.standard_normal((n, c, s))), _round(rng.standard_normal((n, c, s)))
    w0 = np.linspace(0.5, 1.5, c)
    x = mg.tensor(x0, dtype=mg.bfloat16, requires_grad=True)
    w = mg.tensor(w0, dtype=mg.float32, requires_grad=True)
    b = mg.zeros(c, requires_grad=True)
    y = mg.nn.functional.group_norm(x, groups, w, b, eps)
    assert y.dtype == mg.bfloat16
    y.backward(mg.tensor(gy0, dtype=mg.bfloat16))

    g = x0.reshape(n, groups, -1)
    xhat = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + eps)).reshape(
        x0.shape
    )
    np.testing.assert_allclose(w.grad.numpy(), (gy0 * xhat).sum((0, 2)), rtol=1e-5)
    # dL/dx = r (gxh - mean(gxh) - xhat mean(gxh xhat)) per group, gxh = gy w
    gxh = (gy0 * w0[None, :, None]).reshape(n, groups, -1)
    xh = xhat.reshape(n, groups, -1)
    r = 1 / np.sqrt(g.var(2, keepdims=True) + eps)
    gx = r * (gxh - gxh.mean(2, keepdims=True) - xh * (gxh * xh).mean(2, keepdims=True))
    got = x.grad.float().numpy().reshape(n, groups, -1)
    np.testing.assert_allclose(got, gx, rtol=2**-8, atol=2**-8 * np.abs(gx).max())
