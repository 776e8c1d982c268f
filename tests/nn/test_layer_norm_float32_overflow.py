"""LayerNorm, RMSNorm and GroupNorm of float32 inputs far from 1 (|x| from ~1e19 to ~3e38): the
squares of x - mu (or x - mu itself) overflow float32, so a variance taken in float32 is inf,
r = 1 / sqrt(var + eps) is 0 and y came out 0 (or the bias) where the float64 truth is an ordinary
normalised value. The rows are then retaken in float64 and y rounded once; the backward works in
float64 from those statistics. Checked against the float64 closed form on the NumPy/BLAS path
(MINIGENESIS_NUMBA=0), on the op's own NumPy code (BLAS path off) and on the compiled loops."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import kernels
from minigenesis.kernels import cpu_jit


def _truth(x, w, b, g, n: int, eps: float, center: bool) -> tuple:
    """(y, dL/dx, dL/dw) in float64 for rows of n elements: xhat = (x - mu) r,
    y = xhat w + b, dL/dx = r (g w - mean(g w) - xhat mean(g w xhat)), dL/dw = sum(g xhat)."""
    x, g = x.astype(np.float64).reshape(-1, n), g.astype(np.float64).reshape(-1, n)
    mu = np.array([[math.fsum(row) / n] for row in x]) if center else 0.0
    d = x - mu
    r = 1.0 / np.sqrt((d * d).mean(1, keepdims=True) + eps)
    xhat = d * r
    gw_ = g * w
    gx = gw_ - xhat * (gw_ * xhat).mean(1, keepdims=True)
    if center:
        gx -= gw_.mean(1, keepdims=True)
    return xhat * w + b, r * gx, (g * xhat).sum(0)


def _path(monkeypatch, path: str) -> None:
    if path == "numpy":
        monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    elif path == "own":  # neither the compiled loops nor the BLAS outer products
        monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
        monkeypatch.setattr(kernels.layer_norm, "forward", lambda *a: None)
        monkeypatch.setattr(kernels.layer_norm, "backward", lambda *a: None)
    elif not cpu_jit.available():
        pytest.skip("compiled kernels switched off")


def _inputs(scale: float):
    rng = np.random.default_rng(0)
    x = np.clip(rng.standard_normal((6, 32)) * scale, -3.4e38, 3.4e38).astype(np.float32)
    x[0, ::2], x[0, 1::2] = np.float32(3e38), np.float32(-3e38)  # the squares overflow
    x[1], x[1, 0] = np.float32(3e38), np.float32(-3e38)  # and x - mu (~ -5.8e38) too
    return x, rng.standard_normal((6, 32)).astype(np.float32)


@pytest.mark.parametrize("path", ["numpy", "own", "compiled"])
@pytest.mark.parametrize("scale", [1e20, 1e30, 1e38])
@pytest.mark.parametrize("center", [True, False])
def test_float32_layer_and_rms_norm_of_huge_values_match_float64(monkeypatch, path, scale, center):
    _path(monkeypatch, path)
    x, g = _inputs(scale)
    w = np.linspace(0.5, 1.5, 32).astype(np.float32)
    b = np.linspace(-1.0, 1.0, 32).astype(np.float32) if center else np.zeros(32, np.float32)
    xt, wt = mg.tensor(x, requires_grad=True), mg.tensor(w, requires_grad=True)
    if center:
        y = F.layer_norm(xt, (32,), wt, mg.tensor(b), eps=1e-5)
    else:
        y = F.rms_norm(xt, (32,), wt, eps=1e-5)
    y.backward(mg.tensor(g))
    y_true, gx_true, gw_true = _truth(x, w, b, g, 32, 1e-5, center)
    assert y.dtype == mg.float32 and xt.grad.dtype == mg.float32 and wt.grad.dtype == mg.float32
    np.testing.assert_allclose(y.detach().numpy(), y_true, rtol=1e-5, atol=1e-5)
    # dL/dx ~ r ~ 1 / scale: compared relative to its largest element per row
    gx = xt.grad.numpy().astype(np.float64)
    top = np.abs(gx_true).max(1, keepdims=True)
    np.testing.assert_allclose(gx / top, gx_true / top, rtol=0, atol=1e-5)
    np.testing.assert_allclose(wt.grad.numpy(), gw_true, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("path", ["numpy", "own", "compiled"])
def test_float32_group_norm_of_huge_values_matches_float64(monkeypatch, path):
    _path(monkeypatch, path)
    x, g = _inputs(1e30)
    x4, g4 = x.reshape(6, 4, 8), g.reshape(6, 4, 8)  # 2 groups of 2 channels x 8
    w = np.array([0.5, 1.0, 1.5, 2.0], np.float32)
    xt = mg.tensor(x4, requires_grad=True)
    y = F.group_norm(xt, 2, mg.tensor(w), None)
    y.backward(mg.tensor(g4))
    wc = np.repeat(w, 8).reshape(4, 8)
    xhat, _, _ = _truth(x4, 1.0, 0.0, g4, 16, 1e-5, True)
    _, gx_true, _ = _truth(x4, 1.0, 0.0, (g4 * wc).reshape(-1, 16), 16, 1e-5, True)
    np.testing.assert_allclose(y.detach().numpy(), xhat.reshape(6, 4, 8) * wc, rtol=1e-5, atol=1e-5)
    gx = xt.grad.numpy().astype(np.float64).reshape(-1, 16)
    top = np.abs(gx_true).max(1, keepdims=True)
    np.testing.assert_allclose(gx / top, gx_true / top, rtol=0, atol=1e-5)
