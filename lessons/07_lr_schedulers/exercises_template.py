"""Chapter 7 exercises: learning-rate schedules as closed forms and as schedulers."""

from __future__ import annotations

import math  # noqa: F401
from collections.abc import Callable, Sequence

from minigenesis.optim import Optimizer
from minigenesis.optim.lr_scheduler import LRScheduler


def warmup_cosine_lambda(num_warmup_steps: int, num_training_steps: int) -> Callable[[int], float]:
    """Exercise 7.1: the multiplier of "linear warmup, then cosine decay to zero".

    Return a function ``lr_lambda(step)`` for ``LambdaLR``:
    - during warmup (``step < num_warmup_steps``): ``step / max(1, num_warmup_steps)``;
    - after: with ``progress = (step - num_warmup_steps) / max(1, num_training_steps -
      num_warmup_steps)``, the value ``max(0, 0.5 * (1 + cos(pi * progress)))``.
    """
    raise NotImplementedError(
        "Exercise 7.1: return lr_lambda(step): a linear warmup, then half a cosine down to 0"
    )


def cosine_annealing_lr(epoch: int, base_lr: float, T_max: int, eta_min: float = 0.0) -> float:  # noqa: N803
    """Exercise 7.2: the learning rate of ``CosineAnnealingLR`` after ``epoch`` steps.

    eta_t = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, for
    0 <= epoch <= T_max.
    """
    raise NotImplementedError(
        "Exercise 7.2: eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2"
    )


def warm_restarts_lr(
    epoch: int,
    base_lr: float,
    T_0: int,  # noqa: N803 (PyTorch's argument names)
    T_mult: int = 1,  # noqa: N803
    eta_min: float = 0.0,
) -> float:
    """Exercise 7.3: the learning rate of ``CosineAnnealingWarmRestarts`` after ``epoch`` steps.

    The first cycle lasts ``T_0`` steps, each next one ``T_mult`` times longer. Find the cycle
    length ``T_i`` and the position ``T_cur`` inside it, then return
    eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2.
    """
    raise NotImplementedError(
        "Exercise 7.3: find the cycle length T_i and the position T_cur, then use the cosine"
    )


def plateau_lrs(
    metrics: Sequence[float],
    lr: float,
    factor: float = 0.1,
    patience: int = 10,
    threshold: float = 1e-4,
) -> list[float]:
    """Exercise 7.4: the learning rates ``ReduceLROnPlateau(mode="min")`` sets, one per metric.

    Rules (threshold_mode "rel", no cooldown, no min_lr): ``best`` starts at +inf. A metric
    counts as an improvement when ``metric < best * (1 - threshold)``: then ``best = metric`` and
    the count of bad epochs returns to 0; otherwise the count grows by one. When the count
    exceeds ``patience``, multiply the lr by ``factor`` (unless that changes it by less than
    ``1e-8``, PyTorch's ``eps``) and reset the count to 0. Return the lr after each metric.
    """
    raise NotImplementedError(
        "Exercise 7.4: track the best metric, count bad epochs, cut the lr past patience"
    )


class WarmupExponentialLR(LRScheduler):
    """Exercise 7.5: your own scheduler: a linear warmup, then exponential decay.

    Subclass ``LRScheduler``: store your settings *before* calling ``super().__init__`` (the base
    constructor already performs step 0, which calls ``get_lr``), and write ``get_lr()``, which
    returns one lr per param group for epoch ``self.last_epoch`` from ``self.base_lrs``:

    - for ``e < warmup_steps``: ``base_lr * (s + (1 - s) * e / warmup_steps)``, s = start_factor;
    - afterwards: ``base_lr * gamma ** (e - warmup_steps)``.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        warmup_steps: int,
        gamma: float,
        start_factor: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        raise NotImplementedError(
            "Exercise 7.5: store the settings, then call super().__init__(optimizer, last_epoch)"
        )

    def get_lr(self) -> list[float]:
        raise NotImplementedError(
            "Exercise 7.5: each base lr times the warmup factor, then gamma ** (e - warmup_steps)"
        )


def quiz() -> dict[str, str]:
    """Exercise 7.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 3 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 7.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
