"""A PyTorch-style program: fit a decaying exponential y = a exp(-b t) + c to noisy samples with
``optim.LBFGS`` and the strong Wolfe line search, through the ``step(closure)`` protocol. Written
with PyTorch's names only; in float64 it follows PyTorch's iterates when PyTorch is installed."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as torch
from minigenesis import nn, optim

rng = np.random.default_rng(7)
T = np.linspace(0.0, 4.0, 60)
Y = 2.5 * np.exp(-1.3 * T) + 0.4 + 0.01 * rng.standard_normal(T.shape)


def make_model(torch, nn):
    class Decay(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Parameter(torch.tensor(1.0, dtype=torch.float64))
            self.b = nn.Parameter(torch.tensor(0.5, dtype=torch.float64))
            self.c = nn.Parameter(torch.tensor(0.0, dtype=torch.float64))

        def forward(self, t):
            return self.a * (-self.b * t).exp() + self.c

    return Decay()


def fit(torch, nn, optim, steps: int = 5) -> tuple[list, list]:
    """The program; ``torch``, ``nn``, ``optim`` are minigenesis's (or PyTorch's)."""
    model = make_model(torch, nn)
    t, y = torch.tensor(T), torch.tensor(Y)
    optimizer = optim.LBFGS(model.parameters(), lr=1, max_iter=20, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(t), y)
        loss.backward()
        return loss

    losses = [optimizer.step(closure).item() for _ in range(steps)]
    with torch.no_grad():
        final = nn.functional.mse_loss(model(t), y).item()
    return losses + [final], [p.item() for p in model.parameters()]


def test_lbfgs_fits_the_curve():
    losses, (a, b, c) = fit(torch, nn, optim)
    assert losses[0] > 0.3 and losses[-1] < 2e-4  # down to the noise (variance 1e-4)
    np.testing.assert_allclose([a, b, c], [2.5, 1.3, 0.4], atol=0.05)


def test_lbfgs_fit_follows_pytorch():
    real_torch = pytest.importorskip("torch")
    ours, ours_p = fit(torch, nn, optim)
    theirs, theirs_p = fit(real_torch, real_torch.nn, real_torch.optim)
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(ours_p, theirs_p, rtol=1e-7)
