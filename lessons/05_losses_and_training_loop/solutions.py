"""Chapter 5 solutions: loss functions and the training loop."""

from __future__ import annotations

from collections.abc import Callable

import minigenesis as mg
from minigenesis import nn


def log_softmax(x: mg.Tensor, dim: int = -1) -> mg.Tensor:
    """Exercise 5.1: log(softmax(x)) along ``dim``, without overflow."""
    m = x.detach().max(dim=dim, keepdim=True).values  # a constant shift: no gradient needed
    shifted = x - m
    return shifted - shifted.exp().sum(dim=dim, keepdim=True).log()


def cross_entropy(
    logits: mg.Tensor, target: mg.Tensor, ignore_index: int = -100, label_smoothing: float = 0.0
) -> mg.Tensor:
    """Exercise 5.2: mean cross-entropy of logits (N, C) against class indices target (N,)."""
    n, _ = logits.shape
    logp = log_softmax(logits, dim=-1)
    keep = target != ignore_index
    safe_target = mg.where(keep, target, mg.zeros_like(target))
    nll = -logp[mg.arange(n), safe_target]
    if label_smoothing > 0:
        nll = (1 - label_smoothing) * nll + label_smoothing * (-logp.mean(dim=-1))
    weights = keep.to(logits.dtype)
    return (nll * weights).sum() / weights.sum()


def bce_with_logits(logits: mg.Tensor, targets: mg.Tensor) -> mg.Tensor:
    """Exercise 5.3: mean binary cross-entropy on logits, stable for any logit."""
    x, y = logits, targets
    loss = x.relu() - x * y + (1 + (-x.abs()).exp()).log()
    return loss.mean()


def train_step(
    model: nn.Module,
    loss_fn: Callable[[mg.Tensor, mg.Tensor], mg.Tensor],
    x: mg.Tensor,
    y: mg.Tensor,
    lr: float,
) -> float:
    """Exercise 5.4: one step of plain gradient descent; return the loss (a Python float)."""
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with mg.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p.sub_(lr * p.grad)
    return loss.item()


def fit(
    model: nn.Module, x: mg.Tensor, y: mg.Tensor, epochs: int, batch_size: int, lr: float
) -> list[float]:
    """Exercise 5.5: mini-batch training with mean squared error; return each epoch's mean loss."""
    model.train()
    n = len(x)
    history = []
    for _ in range(epochs):
        perm = mg.randperm(n)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = perm[start : start + batch_size]
            loss = train_step(model, mg.nn.functional.mse_loss, x[idx], y[idx], lr)
            total += loss * len(idx)
        history.append(total / n)
    return history


def quiz() -> dict[str, str]:
    """Exercise 5.6: the answers to the self-check questions, each with the reason."""
    return {
        # log_softmax is unchanged by adding a constant to every logit; choosing -max keeps exp in
        # (0, 1], so nothing overflows and the largest term is exactly 1.
        "q1": "b",
        # d/dz_j of -z_y + logsumexp(z) is softmax(z)_j - [j = y]: the predicted probabilities minus
        # the target.
        "q2": "c",
        # Gradients accumulate in .grad across backward() calls; without zeroing them, step k
        # follows g_1 + ... + g_k.
        "q3": "a",
        # The probability rounds to 1 long before the loss is negligible; writing the loss in terms
        # of z keeps it finite and accurate for any logit.
        "q4": "c",
    }
