"""Simple decays of the initial lr: StepLR, MultiStepLR, ExponentialLR, ConstantLR, LinearLR,
PolynomialLR.

Each has a chainable ``get_lr`` (a ratio applied to the group's current lr, as PyTorch computes
it) and a ``_get_closed_form_lr`` from ``base_lrs`` (the formula in each class docstring).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..._checks import check_int, check_real
from ..optimizer import Optimizer
from .base import LRScheduler


class StepLR(LRScheduler):
    """``lr = initial_lr * gamma ** (epoch // step_size)``: decay by ``gamma`` every
    ``step_size`` epochs."""

    def __init__(
        self,
        optimizer: Optimizer,
        step_size: int,
        gamma: float = 0.1,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.step_size = check_int(step_size, "step_size", ge=1)
        check_real(gamma, "gamma", gt=0)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """``lr = initial_lr * gamma ** (number of milestones <= epoch)``: decay by ``gamma`` at each
    milestone (a milestone listed twice decays twice)."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.milestones = Counter(check_int(m, "milestones", ge=0) for m in milestones)
        check_real(gamma, "gamma", gt=0)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        groups = self.optimizer.param_groups
        if self.last_epoch not in self.milestones:
            return [group["lr"] for group in groups]
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [group["lr"] * factor for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        n = bisect_right(milestones, self.last_epoch)
        return [base * self.gamma**n for base in self.base_lrs]

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        self.milestones = Counter(self.milestones)  # saved as a plain dict


class ExponentialLR(LRScheduler):
    """``lr = initial_lr * gamma ** epoch``."""

    def __init__(
        self, optimizer: Optimizer, gamma: float, last_epoch: int = -1, verbose: bool = False
    ) -> None:
        check_real(gamma, "gamma", gt=0)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        groups = self.optimizer.param_groups
        if self._is_initial:  # resuming: the loaded lr already is this epoch's
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """``lr = initial_lr * factor`` for ``epoch < total_iters``, then ``initial_lr``."""

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        check_real(factor, "factor", ge=0, le=1, label="constant multiplicative factor")
        self.factor = factor
        self.total_iters = check_int(total_iters, "total_iters", ge=0)
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in groups]
        if self.last_epoch != self.total_iters:
            return [group["lr"] for group in groups]
        return [group["lr"] * (1.0 / self.factor) for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        # factor + (1 - factor) rather than 1.0: PyTorch's expression, so the numbers agree
        factor = self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)
        return [base * factor for base in self.base_lrs]


class LinearLR(LRScheduler):
    """``lr = initial_lr * (start + (end - start) * min(epoch, total_iters) / total_iters)``:
    a linear ramp of the factor from ``start_factor`` to ``end_factor`` (a warm-up when
    ``start_factor < end_factor``)."""

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        check_real(start_factor, "start_factor", gt=0, le=1, label="starting factor")
        check_real(end_factor, "end_factor", ge=0, le=1, label="ending factor")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = check_int(total_iters, "total_iters", ge=1)
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return [group["lr"] for group in groups]
        # factor(t) / factor(t - 1), written so it is exact at t = total_iters
        delta = self.end_factor - self.start_factor
        ratio = 1.0 + delta / (self.total_iters * self.start_factor + (self.last_epoch - 1) * delta)
        return [group["lr"] * ratio for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        t = min(self.total_iters, self.last_epoch)
        factor = self.start_factor + (self.end_factor - self.start_factor) * t / self.total_iters
        return [base * factor for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``lr = initial_lr * (1 - min(epoch, total_iters) / total_iters) ** power``."""

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.total_iters = check_int(total_iters, "total_iters", ge=1)
        check_real(power, "power", ge=0)
        self.power = power
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        groups = self.optimizer.param_groups
        if self._is_initial or self.last_epoch > self.total_iters:
            return [group["lr"] for group in groups]
        t, total = self.last_epoch, self.total_iters
        decay = ((1.0 - t / total) / (1.0 - (t - 1) / total)) ** self.power
        return [group["lr"] * decay for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        t = min(self.total_iters, self.last_epoch)
        return [base * (1.0 - t / self.total_iters) ** self.power for base in self.base_lrs]
