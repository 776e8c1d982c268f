"""Warm-up schedules as in Hugging Face ``transformers``: a linear ramp from 0 to the initial lr,
then a cosine or linear decay. Each returns a ``LambdaLR`` and is stepped once per batch.

The lambdas are ``functools.partial`` objects over module-level functions, so a scheduler state
dict stays plain data and the schedule can be rebuilt from its arguments.
"""

from __future__ import annotations

import math
from functools import partial

from ..optimizer import Optimizer
from .lambda_lr import LambdaLR


def _cosine_with_warmup(
    step: int, *, num_warmup_steps: int, num_training_steps: int, num_cycles: float
) -> float:
    if step < num_warmup_steps:
        return float(step) / float(max(1, num_warmup_steps))
    progress = float(step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progress)))


def _linear_with_warmup(step: int, *, num_warmup_steps: int, num_training_steps: int) -> float:
    if step < num_warmup_steps:
        return float(step) / float(max(1, num_warmup_steps))
    return max(
        0.0, float(num_training_steps - step) / float(max(1, num_training_steps - num_warmup_steps))
    )


def _check_steps(num_warmup_steps: int, num_training_steps: int) -> None:
    if num_warmup_steps < 0:
        raise ValueError(f"num_warmup_steps must be >= 0, got {num_warmup_steps}")
    if num_training_steps < num_warmup_steps:
        raise ValueError(
            f"num_training_steps ({num_training_steps}) must be >= num_warmup_steps "
            f"({num_warmup_steps})"
        )


def get_cosine_schedule_with_warmup(
    optimizer: Optimizer,
    num_warmup_steps: int,
    num_training_steps: int,
    num_cycles: float = 0.5,
    last_epoch: int = -1,
) -> LambdaLR:
    """``factor(t) = t / W`` for ``t < W``, then ``max(0, (1 + cos(2 pi c p)) / 2)`` with
    ``p = (t - W) / (T - W)`` (``W`` warm-up steps, ``T`` training steps, ``c = num_cycles``; the
    default 0.5 is half a cosine, from 1 down to 0 at step ``T``)."""
    _check_steps(num_warmup_steps, num_training_steps)
    fn = partial(
        _cosine_with_warmup,
        num_warmup_steps=num_warmup_steps,
        num_training_steps=num_training_steps,
        num_cycles=num_cycles,
    )
    return LambdaLR(optimizer, fn, last_epoch)


def get_linear_schedule_with_warmup(
    optimizer: Optimizer, num_warmup_steps: int, num_training_steps: int, last_epoch: int = -1
) -> LambdaLR:
    """``factor(t) = t / W`` for ``t < W``, then ``max(0, (T - t) / (T - W))``: linear up, then
    linear down to 0 at step ``T``."""
    _check_steps(num_warmup_steps, num_training_steps)
    fn = partial(
        _linear_with_warmup,
        num_warmup_steps=num_warmup_steps,
        num_training_steps=num_training_steps,
    )
    return LambdaLR(optimizer, fn, last_epoch)
