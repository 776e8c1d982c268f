"""A PyTorch-style program, after the classic tensor tutorial: fit sin(x) on [-pi, pi] with a
third-order polynomial y = a + b x + c x^2 + d x^3, by hand-written gradient descent: the
weights are leaf tensors, ``loss.backward()`` fills their ``.grad``, and the update is ``-=``
under ``no_grad``. Written with PyTorch's names only; run with PyTorch too when it is installed,
and the two runs agree."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as torch


def fit(torch, steps: int = 400, learning_rate: float = 1e-6) -> tuple[list, list]:
    """The program; ``torch`` is minigenesis (or PyTorch, for the comparison)."""
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = torch.sin(x)

    # fixed starting weights (the tutorial draws them with randn), so runs can be compared
    a = torch.tensor(0.1, dtype=dtype, requires_grad=True)
    b = torch.tensor(-0.2, dtype=dtype, requires_grad=True)
    c = torch.tensor(0.3, dtype=dtype, requires_grad=True)
    d = torch.tensor(-0.1, dtype=dtype, requires_grad=True)

    losses = []
    for _ in range(steps):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    return losses, [a.item(), b.item(), c.item(), d.item()]


def test_polynomial_fit_by_hand_written_gradient_descent():
    losses, coeffs = fit(torch)
    assert losses[0] > 5000 and losses[-1] < 0.02 * losses[0]
    assert all(later <= earlier for earlier, later in zip(losses, losses[1:]))
    # the least-squares cubic is about 0.86 x - 0.094 x^3: the fit heads there
    assert coeffs[1] > 0.3 and coeffs[3] < -0.02


def test_polynomial_fit_matches_pytorch():
    real_torch = pytest.importorskip("torch")
    ours, ours_coeffs = fit(torch, steps=200)
    theirs, theirs_coeffs = fit(real_torch, steps=200)
    # float32 sums over 2000 points round differently: agreement to ~1e-5 relative
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    np.testing.assert_allclose(ours_coeffs, theirs_coeffs, rtol=1e-4, atol=1e-6)
