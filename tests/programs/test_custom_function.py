"""A PyTorch-style program, after the tutorial on custom autograd Functions: the Legendre
polynomial P3(x) = (5x^3 - 3x) / 2 as an ``autograd.Function`` with a hand-written backward
(3/2 (5x^2 - 1)), used in the model y = a + b P3(c + d x) fitted to sin(x). Written with
PyTorch's names only; the backward is checked against finite differences, and the fit against a
PyTorch run when it is installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as torch


def make_legendre(torch):
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    return LegendrePolynomial3


def fit(torch, steps: int = 300, learning_rate: float = 5e-6) -> tuple[list, list]:
    P3 = make_legendre(torch).apply
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = torch.sin(x)
    a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
    losses = []
    for _ in range(steps):
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for w in (a, b, c, d):
                w -= learning_rate * w.grad
                w.grad = None
    return losses, [w.item() for w in (a, b, c, d)]


def test_the_custom_backward_is_the_derivative():
    P3 = make_legendre(torch).apply
    x = torch.linspace(-1.5, 1.5, 7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(P3, (x,))
    P3(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1.5 * (5 * x.detach().numpy() ** 2 - 1))


def test_fit_with_the_custom_function_reduces_the_loss():
    losses, _ = fit(torch)
    assert losses[-1] < 0.3 * losses[0]
    assert all(later <= earlier * (1 + 1e-6) for earlier, later in zip(losses, losses[1:]))


def test_fit_with_the_custom_function_matches_pytorch():
    real_torch = pytest.importorskip("torch")
    ours, ours_w = fit(torch, steps=150)
    theirs, theirs_w = fit(real_torch, steps=150)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    np.testing.assert_allclose(ours_w, theirs_w, rtol=1e-4, atol=1e-6)
