"""Chapter 5 exercises: loss functions and the training loop.

Losses are written with Tensor ops (autograd supplies their backward); the checks compare them
with ``minigenesis.nn.functional``. The loop exercises are checked against ``mg.optim.SGD`` and
against the closed-form least-squares solution.

    python -m pytest lessons/05_losses_and_training_loop
"""

from __future__ import annotations

from collections.abc import Callable

import minigenesis as mg
from minigenesis import nn


def log_softmax(x: mg.Tensor, dim: int = -1) -> mg.Tensor:
    """Exercise 5.1: log(softmax(x)) along ``dim``, without overflow.

    log softmax(x)_i = x_i - log(sum_j e^{x_j}). Subtract m = max(x) along dim first:
    x_i - m - log(sum_j e^{x_j - m}). The shift is a constant, so take it from the detached
    tensor: ``m = x.detach().max(dim=dim, keepdim=True).values`` (as in PyTorch, ``max`` along a
    dim returns values and indices). Logits of 1000 must give finite results.
    """
    raise NotImplementedError("Exercise 5.1: shift by the max, then x - m - log(sum(exp(x - m)))")


def cross_entropy(
    logits: mg.Tensor, target: mg.Tensor, ignore_index: int = -100, label_smoothing: float = 0.0
) -> mg.Tensor:
    """Exercise 5.2: mean cross-entropy of logits (N, C) against class indices target (N,).

    PyTorch's semantics:

    - per example: -log p[target] with log p = log_softmax(logits);
    - with label_smoothing = s: (1 - s) * (-log p[target]) + s * mean_over_classes(-log p);
    - examples whose target == ignore_index contribute nothing, and the mean is over the others.

    Hint: ``mg.nn.functional.one_hot`` or advanced indexing ``logp[mg.arange(N), target]`` picks
    the target column (map ignored targets to class 0 first, then mask them out).
    """
    raise NotImplementedError("Exercise 5.2: pick -log p[target], smooth, mask ignored, average")


def bce_with_logits(logits: mg.Tensor, targets: mg.Tensor) -> mg.Tensor:
    """Exercise 5.3: mean binary cross-entropy on logits, stable for any logit.

    -[y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))] = max(x, 0) - x * y + log(1 + e^{-|x|}).
    The right-hand form never overflows; logits of +-100 must give finite, correct losses.
    """
    raise NotImplementedError("Exercise 5.3: max(x, 0) - x*y + log(1 + exp(-|x|)), then mean")


def train_step(
    model: nn.Module,
    loss_fn: Callable[[mg.Tensor, mg.Tensor], mg.Tensor],
    x: mg.Tensor,
    y: mg.Tensor,
    lr: float,
) -> float:
    """Exercise 5.4: one step of plain gradient descent; return the loss (a Python float).

    Clear the old gradients (``model.zero_grad()``), compute ``loss_fn(model(x), y)``, call
    ``backward()``, then update every parameter in place, without recording a graph:
    ``with mg.no_grad(): p -= lr * p.grad`` (``p.sub_(lr * p.grad)``). Skip parameters whose
    ``.grad`` is None.
    """
    raise NotImplementedError("Exercise 5.4: zero_grad, forward, loss, backward, p -= lr * grad")


def fit(
    model: nn.Module, x: mg.Tensor, y: mg.Tensor, epochs: int, batch_size: int, lr: float
) -> list[float]:
    """Exercise 5.5: mini-batch training with mean squared error; return each epoch's mean loss.

    Every epoch: shuffle with ``perm = mg.randperm(len(x))``, walk the permutation in batches of
    ``batch_size`` (the last one may be smaller), call ``train_step`` with
    ``mg.nn.functional.mse_loss`` on each batch, and record the average of the batch losses
    weighted by batch size. Put the model in training mode first (``model.train()``).
    """
    raise NotImplementedError("Exercise 5.5: epochs x (randperm, batches, train_step)")


def quiz() -> dict[str, str]:
    """Exercise 5.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 4 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 5.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
