"""LayerNorm and GroupNorm of constant and near-constant rows against float64: a row of one
repeated value c normalises to exactly 0 (y = w 0 + b = b), not to the few ulps of a rounded
mean times 1 / sqrt(eps); a float32 near-constant row is off the float64 truth by no more than
the rounding of its mean to float32 (half an ulp, times r |w|) and an ulp of y. Each on the
three CPU paths: the compiled loops, the NumPy/BLAS kernel (MINIGENESIS_NUMBA=0) and the op's
own NumPy code (where the kernel does not apply). (RMSNorm takes no mean: nothing to cancel.)"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import cpu_jit
from minigenesis.kernels import layer_norm as LN

PATHS = ["compiled", "numpy", "op"]


def _path(monkeypatch, path: str) -> None:
    """Route LayerNorm's rows through one CPU path."""
    if path == "compiled":
        if not cpu_jit.available():
            pytest.skip("compiled kernels switched off")
        return
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    if path == "op":
        monkeypatch.setattr(LN, "forward", lambda *a: None)
        monkeypatch.setattr(LN, "backward", lambda *a: None)


def _truth(x, w, b, eps=1e-5):
    """(y, r) in float64 from the definition, over the last axis."""
    x = x.astype(np.float64)
    d = x - x.mean(-1, keepdims=True)
    r = 1 / np.sqrt((d * d).mean(-1, keepdims=True) + eps)
    return d * r * w.astype(np.float64) + b.astype(np.float64), r


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [100, 128, 512])
def test_layer_norm_of_a_constant_row_is_exactly_the_bias(monkeypatch, path, dtype, n):
    _path(monkeypatch, path)
    rng = np.random.default_rng(n)
    dt = getattr(mg, dtype)
    w = mg.tensor(rng.standard_normal(n).astype(np.float32)).to(dt)
    b = mg.tensor(rng.standard_normal(n).astype(np.float32)).to(dt)
    x = mg.full((8, n), 7.1, dtype=dt)
    y = F.layer_norm(x, (n,), w, b)
    assert y.dtype == dt
    np.testing.assert_array_equal(y.float().numpy(), np.broadcast_to(b.float().numpy(), (8, n)))
    # and without an affine: exactly 0, the bias's absence
    assert not F.layer_norm(x, (n,)).float().numpy().any()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("n", [100, 128, 512])
@pytest.mark.parametrize("c", [7.1, -300.3, 0.01])
def test_float32_layer_norm_of_a_near_constant_row_is_within_the_mean_rounding(
    monkeypatch, path, n, c
):
    # (float32 only: float64 rows would need an oracle finer than float64)
    _path(monkeypatch, path)
    dtype = np.float32
    rng = np.random.default_rng(n)
    w = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    x = (c + abs(c) * 1e-6 * rng.standard_normal((64, n))).astype(dtype)
    t, r = _truth(x, w, b)
    y = F.layer_norm(mg.tensor(x), (n,), mg.tensor(w), mg.tensor(b)).numpy().astype(np.float64)
    # the mean rounded to the dtype (half an ulp of c) moves y by that times r |w|; y itself
    # rounds by half an ulp (the float64 oracle's own error is far below both)
    ulp_c = float(np.spacing(dtype(abs(c))))
    bound = 0.5 * ulp_c * r * np.abs(w) + np.spacing(np.abs(t).astype(dtype)).astype(np.float64)
    assert np.all(np.abs(y - t) <= 1.5 * bound)


@pytest.mark.parametrize("path", PATHS)
def test_group_norm_of_constant_groups_is_exactly_the_bias(monkeypatch, path):
    _path(monkeypatch, path)
    rng = np.random.default_rng(0)
    x = mg.full((2, 6, 5, 7), 7.1)
    w = mg.tensor(rng.standard_normal(6).astype(np.float32))
    b = mg.tensor(rng.standard_normal(6).astype(np.float32))
    y = F.group_norm(x, 3, w, b).numpy()
    np.testing.assert_array_equal(y, np.broadcast_to(b.numpy()[:, None, None], y.shape))
    assert not F.group_norm(x, 3).numpy().any()
    assert not F.instance_norm(x).numpy().any()


@pytest.mark.parametrize("path", PATHS)
def test_layer_norm_gradient_of_a_constant_row_matches_float64(monkeypatch, path):
    # x - mu = 0 exactly, so xhat = 0: dL/dx = r (g - mean(g)), dL/dw = 0, dL/db = sum of g
    _path(monkeypatch, path)
    rng = np.random.default_rng(3)
    n = 128
    w = rng.standard_normal(n).astype(np.float32)
    g = rng.standard_normal((8, n)).astype(np.float32)
    xt = mg.full((8, n), 7.1, requires_grad=True)
    wt, bt = mg.tensor(w, requires_grad=True), mg.tensor(w.copy(), requires_grad=True)
    F.layer_norm(xt, (n,), wt, bt).backward(mg.tensor(g))
    gh = g.astype(np.float64) * w
    gx = (gh - gh.mean(-1, keepdims=True)) / np.sqrt(1e-5)
    np.testing.assert_allclose(xt.grad.numpy(), gx, rtol=1e-5, atol=1e-5 * np.abs(gx).max())
    assert not wt.grad.numpy().any()
    np.testing.assert_allclose(bt.grad.numpy(), g.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)
