"""A PyTorch-style program: Gaussian-process regression on noisy sin(x), with the kernel's length
scale, amplitude and noise learned by minimising the negative log marginal likelihood with Adam,

    NLL = 1/2 y^T K^-1 y + 1/2 log det K + n/2 log(2 pi),
    K = s^2 exp(-|x - x'|^2 / (2 l^2)) + sigma^2 I,

through a Cholesky factor K = L L^T (cholesky_solve for K^-1 y, the diagonal of L for log det K);
then the posterior mean at new points with linalg.solve. Written with PyTorch's names only; run
with PyTorch too when it is installed, and the two runs agree."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as torch


def data(torch):
    gen = np.random.default_rng(0)
    x = np.sort(gen.uniform(-3, 3, 30))
    y = np.sin(x) + 0.1 * gen.standard_normal(30)
    return torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)


def kernel(a, b, log_length, log_amplitude):
    sq_dist = (a.unsqueeze(1) - b.unsqueeze(0)) ** 2
    return (2 * log_amplitude).exp() * (-0.5 * sq_dist / (2 * log_length).exp()).exp()


def fit(torch, steps: int = 150) -> tuple[list, list, list]:
    """The program; ``torch`` is minigenesis (or PyTorch, for the comparison)."""
    x, y = data(torch)
    # log length scale, log amplitude, log noise
    log_params = torch.tensor(
        [math.log(0.3), 0.0, math.log(0.5)], dtype=torch.float64, requires_grad=True
    )
    optimizer = torch.optim.Adam([log_params], lr=0.05)
    n = x.shape[0]
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        log_length, log_amplitude, log_noise = log_params
        K = kernel(x, x, log_length, log_amplitude)
        K = K + torch.exp(2 * log_noise) * torch.eye(n, dtype=torch.float64)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(1), L)  # K^-1 y
        nll = (
            0.5 * (y.unsqueeze(1) * alpha).sum()
            + L.diagonal().log().sum()
            + 0.5 * n * math.log(2 * math.pi)
        )
        nll.backward()
        optimizer.step()
        losses.append(nll.item())

    with torch.no_grad():
        log_length, log_amplitude, log_noise = log_params
        x_new = torch.linspace(-2.5, 2.5, 7, dtype=torch.float64)
        K = kernel(x, x, log_length, log_amplitude)
        K = K + torch.exp(2 * log_noise) * torch.eye(n, dtype=torch.float64)
        mean = kernel(x_new, x, log_length, log_amplitude) @ torch.linalg.solve(K, y)
    return losses, mean.tolist(), log_params.tolist()


def test_gaussian_process_learns_its_kernel_and_predicts_sin():
    losses, mean, (log_length, _, log_noise) = fit(torch)
    assert losses[-1] < losses[0] - 10
    # the noise was 0.1 and sin varies on a scale of ~1: the fit finds both
    assert 0.5 < math.exp(log_length) < 3.0 and 0.03 < math.exp(log_noise) < 0.3
    np.testing.assert_allclose(mean, np.sin(np.linspace(-2.5, 2.5, 7)), atol=0.15)


def test_gaussian_process_matches_pytorch():
    real_torch = pytest.importorskip("torch")
    ours = fit(torch, steps=60)
    theirs = fit(real_torch, steps=60)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
