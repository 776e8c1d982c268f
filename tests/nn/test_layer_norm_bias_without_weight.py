"""F.layer_norm with a bias but no weight, over several normalized dims: dL/db is g summed over
the leading dims in the bias's own shape, dL/dx the weightless LayerNorm gradient
(g - mean(g) - xhat mean(g xhat)) / sqrt(var + eps). NumPy oracle."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _reference(x: np.ndarray, g: np.ndarray, nd: int, eps: float) -> tuple:
    axes = tuple(range(x.ndim - nd, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    r = 1 / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    xhat = (x - mu) * r
    gx = g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True)
    return gx * r, g.sum(axis=tuple(range(x.ndim - nd)))


@pytest.mark.parametrize(
    ("shape", "nd"), [((1, 3), 2), ((2, 3), 2), ((2, 2, 3), 2), ((4, 5), 1), ((1, 1, 4), 3)]
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_bias_without_weight_has_gradients_in_the_normalized_shape(shape, nd, dtype):
    rng = np.random.default_rng(0)
    x0, g = rng.standard_normal(shape), rng.standard_normal(shape)
    ns = shape[len(shape) - nd :]
    b0 = rng.standard_normal(ns)
    x = mg.tensor(x0, dtype=getattr(mg, dtype), requires_grad=True)
    b = mg.tensor(b0, dtype=getattr(mg, dtype), requires_grad=True)
    y = F.layer_norm(x, list(ns), None, b, eps=1e-5)
    (y * mg.tensor(g, dtype=getattr(mg, dtype))).sum().backward()
    gx, gb = _reference(x0, g, nd, 1e-5)
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert tuple(b.grad.shape) == ns
    np.testing.assert_allclose(b.grad.numpy(), gb, rtol=tol, atol=tol)
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=tol, atol=tol)
