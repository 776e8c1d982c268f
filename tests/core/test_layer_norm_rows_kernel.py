"""LayerNorm and RMSNorm over rows on the CPU (kernels/layer_norm.py: the broadcasts as BLAS outer
products) against a float64 NumPy reference of the definition, values and all three gradients:
with and without weight and bias, rows not a multiple of anything, non-contiguous inputs and
gradients, float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import layer_norm as LN


def _reference(x, w, b, g, eps, center):
    """(y, dL/dx, dL/dw, dL/db) in float64 from the definition, normalising the last axis."""
    x, g = x.astype(np.float64), g.astype(np.float64)
    n = x.shape[-1]
    mu = x.mean(-1, keepdims=True) if center else 0.0
    d = x - mu
    r = 1 / np.sqrt((d * d).mean(-1, keepdims=True) + eps)
    xhat = d * r
    wv = np.ones(n) if w is None else w.astype(np.float64)
    y = xhat * wv + (0.0 if b is None else b.astype(np.float64))
    gh = g * wv
    gx = gh - xhat * (gh * xhat).mean(-1, keepdims=True)
    if center:
        gx -= gh.mean(-1, keepdims=True)
    gx *= r
    axes = tuple(range(x.ndim - 1))
    return y, gx, (g * xhat).sum(axes), g.sum(axes)


def _run(x, w, b, g, eps, center, contiguous=True):
    """Our (y, dL/dx, dL/dw, dL/db); not ``contiguous``: x and dL/dy reach the op as transposed
    views of contiguous tensors (the same values, strided)."""
    if contiguous:
        xt = mg.tensor(x, requires_grad=True)
        xin, gt = xt, mg.tensor(g)
    else:
        xt = mg.tensor(np.swapaxes(x, 0, -1).copy(), requires_grad=True)
        xin, gt = xt.transpose(0, -1), mg.tensor(np.swapaxes(g, 0, -1).copy()).transpose(0, -1)
        assert not xin._data.flags.c_contiguous and not gt._data.flags.c_contiguous
    wt = None if w is None else mg.tensor(w, requires_grad=True)
    bt = None if b is None else mg.tensor(b, requires_grad=True)
    if center:
        y = F.layer_norm(xin, x.shape[-1:], wt, bt, eps)
    else:
        y = F.rms_norm(xin, x.shape[-1:], wt, eps)
    y.backward(gt)
    gx = xt.grad.numpy() if contiguous else np.swapaxes(xt.grad.numpy(), 0, -1)
    grads = [None if t is None else t.grad.numpy() for t in (wt, bt)]
    return y.detach().numpy(), gx, *grads


CASES = [  # (shape, dtype, weight, bias, center)
    ((16, 64, 128), np.float32, True, True, True),
    ((7, 33), np.float64, True, True, True),
    ((5, 3, 10), np.float32, False, False, True),
    ((9, 17), np.float32, True, False, True),
    ((4, 6, 31), np.float32, True, False, False),
    ((4, 6, 31), np.float64, False, False, False),
    ((3, 5, 300), np.float32, True, True, True),  # rows past the rank-1 products' range
    ((4, 600), np.float64, True, True, True),
]


@pytest.mark.parametrize("shape, dtype, weight, bias, center", CASES)
@pytest.mark.parametrize("contiguous", [True, False])
def test_layer_norm_rows_match_the_float64_definition(
    shape, dtype, weight, bias, center, contiguous
):
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    x = (rng.standard_normal(shape) * 2 + 3).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal(shape[-1]).astype(dtype) if weight else None
    b = rng.standard_normal(shape[-1]).astype(dtype) if bias else None
    ours = _run(x, w, b, g, 1e-5, center, contiguous)
    truth = _reference(x, w, b, g, 1e-5, center)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for got, want in zip(ours, truth):
        if got is not None:
            scale = np.abs(want).max()
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def test_the_rows_path_runs_for_layer_norm_and_leaves_other_shapes_to_the_op(monkeypatch):
    calls = []
    forward = LN.forward
    monkeypatch.setattr(LN, "forward", lambda *a: calls.append(a) or forward(*a))
    x = mg.randn(6, 10)
    F.layer_norm(x, (10,), mg.ones(10), mg.zeros(10))
    assert calls and calls[-1][0].shape == (6, 10)
    # a weight that is not one number per column (another dtype) is the op's own code
    assert LN.forward(np.ones((2, 3), np.float32), np.ones(3), None, (1,), 1e-5, True) is None
