"""Chapter 8 solutions: gradient clipping by hand, gradient accumulation, gradient monitoring."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import minigenesis as mg


def clip_grad_norm(
    parameters: Iterable[mg.Tensor], max_norm: float, norm_type: float = 2.0
) -> float:
    """Exercise 8.1: ``clip_grad_norm_`` by hand. Return the total norm *before* clipping.

    The total norm treats all gradients as one long vector: (sum over parameters of
    sum |g|^p)^(1/p), or max |g| when ``norm_type`` is ``math.inf``. Parameters whose ``.grad``
    is None are skipped. Then multiply every gradient in place by
    ``min(1, max_norm / (total_norm + 1e-6))`` (the 1e-6 avoids dividing by zero).
    """
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return 0.0
    if norm_type == math.inf:
        total = max(g.abs().max().item() for g in grads)
    else:
        total = sum((g.abs() ** norm_type).sum().item() for g in grads) ** (1.0 / norm_type)
    coef = min(1.0, max_norm / (total + 1e-6))
    for g in grads:
        g.mul_(coef)
    return total


def clip_grad_value(parameters: Iterable[mg.Tensor], clip_value: float) -> None:
    """Exercise 8.2: ``clip_grad_value_`` by hand: clamp every gradient element, in place, into
    ``[-clip_value, clip_value]``. Parameters without a gradient are skipped."""
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(-clip_value, clip_value)


def accumulate_gradients(
    model: mg.nn.Module,
    loss_fn: Callable[[mg.Tensor, mg.Tensor], mg.Tensor],
    inputs: mg.Tensor,
    targets: mg.Tensor,
    micro_batches: int,
) -> float:
    """Exercise 8.3: gradients of a big batch, computed ``micro_batches`` pieces at a time.

    Clear the model's gradients, split ``inputs``/``targets`` into ``micro_batches`` equal
    chunks along dim 0, and for each chunk back-propagate ``loss_fn(model(x), y) /
    micro_batches`` (``.grad`` accumulates). With a mean-reduced loss the result equals one
    backward over the whole batch. Return the full-batch loss: the sum of the divided losses.
    A batch that does not split into equal chunks is a ValueError.
    """
    if inputs.shape[0] % micro_batches:
        raise ValueError(
            f"batch of {inputs.shape[0]} does not split into {micro_batches} equal micro-batches"
        )
    model.zero_grad()
    total = 0.0
    for x, y in zip(inputs.chunk(micro_batches), targets.chunk(micro_batches)):
        loss = loss_fn(model(x), y) / micro_batches
        loss.backward()
        total += loss.item()
    return total


def grad_norms(model: mg.nn.Module) -> dict[str, float]:
    """Exercise 8.4: the L2 norm of each parameter's gradient, keyed by parameter name.

    Skip parameters whose ``.grad`` is None. Add a key ``"total"``: the norm of all gradients
    together, sqrt(sum of squared per-parameter norms), i.e. what ``clip_grad_norm_`` reports.
    """
    norms = {
        name: math.sqrt((p.grad * p.grad).sum().item())
        for name, p in model.named_parameters()
        if p.grad is not None
    }
    norms["total"] = math.sqrt(sum(n * n for n in norms.values()))
    return norms


def nonfinite_grads(model: mg.nn.Module) -> list[str]:
    """Exercise 8.5: the names, in ``named_parameters`` order, of every parameter whose gradient
    holds at least one NaN or Inf."""
    return [
        name
        for name, p in model.named_parameters()
        if p.grad is not None and not bool(mg.isfinite(p.grad).all())
    ]


def quiz() -> dict[str, str]:
    """Exercise 8.6: the answers to the self-check questions, each with the reason."""
    return {
        # The total norm is sqrt(9 + 16) = 5 (returned, before clipping); every gradient is scaled
        # by 1/5, keeping the direction.
        "q1": "d",
        # Summing 4 means of 16 is 4 x the mean of 64; dividing each micro-batch loss by the number
        # of micro-batches gives the big batch's gradient.
        "q2": "a",
        # Clamping elementwise shrinks only the large components, so the clipped vector points
        # elsewhere; norm clipping scales all components by one factor.
        "q3": "c",
    }
