"""Chapter 8 exercises: gradient clipping by hand, gradient accumulation, gradient monitoring."""

from __future__ import annotations

import math  # noqa: F401
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
    raise NotImplementedError(
        "Exercise 8.1: the total norm, then scale each gradient by min(1, max_norm / (norm + 1e-6))"
    )


def clip_grad_value(parameters: Iterable[mg.Tensor], clip_value: float) -> None:
    """Exercise 8.2: ``clip_grad_value_`` by hand: clamp every gradient element, in place, into
    ``[-clip_value, clip_value]``. Parameters without a gradient are skipped."""
    raise NotImplementedError(
        "Exercise 8.2: clamp every gradient element into [-clip_value, clip_value], in place"
    )


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
    raise NotImplementedError(
        "Exercise 8.3: zero the grads, then backward loss / micro_batches for each chunk"
    )


def grad_norms(model: mg.nn.Module) -> dict[str, float]:
    """Exercise 8.4: the L2 norm of each parameter's gradient, keyed by parameter name.

    Skip parameters whose ``.grad`` is None. Add a key ``"total"``: the norm of all gradients
    together, sqrt(sum of squared per-parameter norms), i.e. what ``clip_grad_norm_`` reports.
    """
    raise NotImplementedError(
        "Exercise 8.4: the L2 norm of each parameter's gradient by name, plus 'total'"
    )


def nonfinite_grads(model: mg.nn.Module) -> list[str]:
    """Exercise 8.5: the names, in ``named_parameters`` order, of every parameter whose gradient
    holds at least one NaN or Inf."""
    raise NotImplementedError(
        "Exercise 8.5: the names of the parameters whose gradient holds NaN or Inf"
    )


def quiz() -> dict[str, str]:
    """Exercise 8.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 3 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 8.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
