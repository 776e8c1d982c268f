"""Named learning-rate schedules for ``python -m minigenesis plot-lr --scheduler NAME``.

Each name maps to a factory ``(optimizer, steps, warmup) -> scheduler`` whose settings are scaled
to the number of steps drawn, so every schedule shows its whole shape on one plot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..optim import lr_scheduler

Factory = Callable[[Any, int, int], Any]

SCHEDULES: dict[str, tuple[str, Factory]] = {
    "cosine_warmup": ("linear warm-up then cosine decay to 0 (the main job's schedule)",
                      lambda o, n, w: lr_scheduler.get_cosine_schedule_with_warmup(o, w, n)),
    "linear_warmup": ("linear warm-up then linear decay to 0",
                      lambda o, n, w: lr_scheduler.get_linear_schedule_with_warmup(o, w, n)),
    "cosine": ("CosineAnnealingLR(T_max=steps)",
               lambda o, n, w: lr_scheduler.CosineAnnealingLR(o, T_max=n)),
    # cycles of T_0, 2 T_0 and 4 T_0 steps: with T_0 just over steps/7 the third one ends after
    # the last step drawn, so the plot shows exactly 3 cycles (T_0 = steps // 7 began a 4th)
    "cosine_restarts": ("CosineAnnealingWarmRestarts(T_0=steps/7, T_mult=2): 3 cycles",
                        lambda o, n, w: lr_scheduler.CosineAnnealingWarmRestarts(
                            o, T_0=n // 7 + 1, T_mult=2)),
    "step": ("StepLR(step_size=steps/4, gamma=0.5)",
             lambda o, n, w: lr_scheduler.StepLR(o, step_size=max(1, n // 4), gamma=0.5)),
    "multistep": ("MultiStepLR(milestones=[30%, 80%], gamma=0.1)",
                  lambda o, n, w: lr_scheduler.MultiStepLR(
                      o, [int(0.3 * n), int(0.8 * n)], gamma=0.1)),
    "exponential": ("ExponentialLR, gamma chosen to end at 1% of the base lr",
                    lambda o, n, w: lr_scheduler.ExponentialLR(o, gamma=0.01 ** (1.0 / n))),
    "onecycle": ("OneCycleLR(max_lr=base lr, total_steps=steps)",
                 lambda o, n, w: lr_scheduler.OneCycleLR(
                     o, max_lr=o.param_groups[0]["lr"], total_steps=n)),
    "linear": ("LinearLR(start_factor=0.1, total_iters=warmup)",
               lambda o, n, w: lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=max(1, w))),
    "polynomial": ("PolynomialLR(total_iters=steps, power=2)",
                   lambda o, n, w: lr_scheduler.PolynomialLR(o, total_iters=n, power=2.0)),
}  # fmt: skip

ALIASES = {"warmup_cosine": "cosine_warmup", "cosine_with_warmup": "cosine_warmup",
           "one_cycle": "onecycle", "steplr": "step", "cosineannealinglr": "cosine"}  # fmt: skip


def schedule_factory(name: str, steps: int, warmup: int | None = None) -> Callable[[Any], Any]:
    """``optimizer -> scheduler`` for a named schedule (ValueError listing the names if unknown)."""
    key = name.lower().replace("-", "_")
    key = ALIASES.get(key, key)
    if key not in SCHEDULES:
        raise ValueError(f"unknown scheduler {name!r}; choose one of: {', '.join(SCHEDULES)}")
    warm = min(max(1, steps // 10), steps - 1) if warmup is None else int(warmup)
    if not 0 <= warm < steps:
        raise ValueError(f"--warmup must lie in [0, steps), got {warm} for {steps} steps")
    make = SCHEDULES[key][1]

    def factory(optimizer: Any) -> Any:
        return make(optimizer, steps, warm)

    factory.__name__ = key
    return factory
