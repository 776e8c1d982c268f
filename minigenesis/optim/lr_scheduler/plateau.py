"""ReduceLROnPlateau: cut the learning rate when a watched metric stops improving."""

from __future__ import annotations

import copy
import math
import warnings
from typing import Any

from ..._checks import check_int, check_real
from ..optimizer import Optimizer
from .base import (
    EPOCH_DEPRECATION_WARNING,
    LRList,
    LRScheduler,
    check_optimizer,
    group_lrs,
    set_group_lr,
)


class ReduceLROnPlateau(LRScheduler):
    """Multiply every group's lr by ``factor`` once the metric has failed to improve for more
    than ``patience`` consecutive epochs. Unlike the other schedulers, ``step(metric)`` needs the
    value being watched (a validation loss, an accuracy ...).

    - ``mode="min"``: lower is better; ``"max"``: higher is better.
    - An epoch *improves* when the metric beats the best so far by the threshold:
      ``rel``: ``metric < best * (1 - threshold)`` (min), ``metric > best * (1 + threshold)``
      (max);
      ``abs``: ``metric < best - threshold`` (min) / ``metric > best + threshold`` (max).
    - After a reduction, ``cooldown`` epochs pass in which bad epochs are not counted.
    - The lr never goes below ``min_lr`` (one value, or one per group), and a reduction smaller
      than ``eps`` is skipped.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: float | list[float] = 0,
        eps: float = 1e-8,
        verbose: bool = False,
    ) -> None:
        check_real(factor, "factor", ge=0, lt=1)
        check_optimizer(optimizer)
        self.factor = factor
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs (one per param group), got "
                    f"{len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        for i, value in enumerate(self.min_lrs):
            check_real(value, "min_lr" if self.default_min_lr is not None else f"min_lr[{i}]", ge=0)
        self.patience = check_int(patience, "patience", ge=0)
        self.cooldown = check_int(cooldown, "cooldown", ge=0)
        self.eps = check_real(eps, "eps", ge=0)
        self.verbose = bool(verbose)
        self.last_epoch = 0
        self._last_lr = group_lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode!r} is unknown: use 'min' or 'max'")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode!r} is unknown: use 'rel' or 'abs'")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        check_real(threshold, "threshold", ge=0)
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        """Whether metric ``a`` improves on ``best`` by more than the threshold."""
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics: Any = None, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record one epoch's ``metrics`` (a number or a one-element tensor) and reduce the lr if
        it has not improved for more than ``patience`` epochs."""
        if metrics is None:
            raise TypeError(
                "ReduceLROnPlateau.step() needs the metric it watches, e.g. "
                "scheduler.step(val_loss): it lowers the lr when that value stops improving"
            )
        try:
            current = float(metrics)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(
                f"ReduceLROnPlateau.step() needs a number (or a one-element tensor) as the metric, "
                f"got {type(metrics).__name__}: {err}"
            ) from None
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = group_lrs(self.optimizer)

    def _reduce_lr(self, epoch: int) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The optimizer has {len(groups)} param groups but ReduceLROnPlateau was "
                    f"given {len(self.min_lrs)} min_lrs (a group was added since): update "
                    f"scheduler.min_lrs to match"
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                set_group_lr(group, new_lr)
                if self.verbose:
                    print(f"Epoch {epoch}: reducing learning rate of group {i} to {new_lr:.4e}.")

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(copy.deepcopy(state_dict))
        self._last_lr = LRList(self._last_lr)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
