"""The gradient of x ** y is gz * (y * x^(y-1)), multiplied in that grouping (PyTorch's):
(gz * y) * x^(y-1) overflows float32 for a large upstream gradient gz (a loss scaled by a
GradScaler) where the true gradient is finite, and the scaler then skips a step PyTorch takes.
Oracle: the closed form 3 x^2 gz in float64."""

from __future__ import annotations

import numpy as np

import minigenesis as mg


def test_cube_gradient_under_a_huge_upstream_gradient_stays_finite_in_float32():
    x = np.array([0.7, -0.5], dtype=np.float32)
    gz = np.float32(1.5e38)  # 3 * gz overflows float32; 3 x^2 gz (< 2.3e38) does not
    t = mg.tensor(x, requires_grad=True)
    (t**3).backward(mg.tensor(np.full(2, gz)))
    want = 3.0 * x.astype(np.float64) ** 2 * float(gz)
    assert np.isfinite(want).all() and (np.abs(want) < np.finfo(np.float32).max).all()
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-6)


def test_tensor_exponent_gradient_is_grouped_the_same_way():
    x = mg.tensor(np.array([0.7, 0.5], dtype=np.float32), requires_grad=True)
    y = mg.tensor(np.array([3.0, 3.0], dtype=np.float32))
    (x**y).backward(mg.tensor(np.full(2, 1.5e38, dtype=np.float32)))
    want = 3.0 * np.array([0.7, 0.5]) ** 2 * 1.5e38
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)
