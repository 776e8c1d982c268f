"""BatchNorm of float32 inputs near float32's largest value (~1e38): the squares of the
deviations overflow float32, so statistics taken in float32 are inf and y = (x - mu) * 0 gives
NaN or 0 where the float64 truth is an ordinary normalised value. The statistics are then
retaken in float64 and y computed from them and rounded once (BatchNorm2d and BatchNorm1d's
(N, C) op alike): y matches the float64 truth and nothing is NaN, on the NumPy path
(MINIGENESIS_NUMBA=0) and the compiled one."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import cpu_jit


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("shape", [(8, 3, 2, 2), (4, 3, 8, 8), (2, 3, 4, 4), (16, 3)])
def test_float32_batch_norm_of_values_near_the_largest_float_matches_float64(
    monkeypatch, compiled, shape
):
    if not compiled:
        monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    elif not cpu_jit.available():
        pytest.skip("compiled kernels switched off")
    rng = np.random.default_rng(0)
    x = rng.uniform(-3e38, 3e38, shape).astype(np.float32)  # finite, all of them
    w = rng.standard_normal(3).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    xd = x.astype(np.float64)
    axes = (0, *range(2, x.ndim))
    per_channel = (1, 3) + (1,) * (x.ndim - 2)
    d = xd - xd.mean(axes, keepdims=True)
    xhat = d / np.sqrt((d * d).mean(axes, keepdims=True) + 1e-5)
    truth = xhat * w.reshape(per_channel) + b.reshape(per_channel)
    xt = mg.tensor(x, requires_grad=True)
    wt, bt = mg.tensor(w, requires_grad=True), mg.tensor(b, requires_grad=True)
    y = F.batch_norm(xt, None, None, wt, bt, training=True)
    np.testing.assert_allclose(y.detach().numpy(), truth, rtol=1e-5, atol=1e-5)
    g = rng.standard_normal(shape).astype(np.float32)
    y.backward(mg.tensor(g))
    assert np.isfinite(xt.grad.numpy()).all()
    assert wt.grad.dtype == mg.float32 and bt.grad.dtype == mg.float32
    np.testing.assert_allclose(wt.grad.numpy(), (g * xhat).sum(axes), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bt.grad.numpy(), g.astype(np.float64).sum(axes), rtol=1e-5)
