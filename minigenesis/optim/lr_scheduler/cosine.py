"""Cosine annealing (SGDR, Loshchilov & Hutter 2017): without restarts (CosineAnnealingLR) and
with warm restarts whose period grows by ``T_mult`` (CosineAnnealingWarmRestarts)."""

from __future__ import annotations

import math

from ..._checks import check_real
from ..optimizer import Optimizer
from .base import LRScheduler


class CosineAnnealingLR(LRScheduler):
    r"""``lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``.

    The schedule keeps going past ``T_max`` (it rises again, a cosine of period ``2 * T_max``).
    ``step()`` uses PyTorch's recursive form, which multiplies the current lr by the ratio of two
    consecutive cosines, so it composes with other schedulers on the same optimizer::

        lr_t = eta_min + (lr_{t-1} - eta_min) * (1 + cos(pi t / T)) / (1 + cos(pi (t-1) / T))

    At ``t - 1 = T_max`` (mod ``2 T_max``) the denominator is zero, so that step adds the
    closed form's increment instead.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_max: int,
        eta_min: float = 0.0,  # noqa: N803
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        check_real(T_max, "T_max", gt=0)
        check_real(eta_min, "eta_min", ge=0)
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        groups = self.optimizer.param_groups
        t, T, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return [group["lr"] for group in groups]
        if self._step_count == 1 and t > 0:  # the first step of a resumed schedule
            return [
                eta_min + (base - eta_min) * (1 + math.cos(t * math.pi / T)) / 2
                for base in self.base_lrs
            ]
        if (t - 1 - T) % (2 * T) == 0:  # leaving the minimum: 0/0 in the ratio below
            return [
                group["lr"] + (base - eta_min) * (1 - math.cos(math.pi / T)) / 2
                for base, group in zip(self.base_lrs, groups)
            ]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (group["lr"] - eta_min) + eta_min for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        t, T, eta_min = self.last_epoch, self.T_max, self.eta_min
        return [
            eta_min + (base - eta_min) * (1 + math.cos(math.pi * t / T)) / 2
            for base in self.base_lrs
        ]


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""``lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``.

    ``T_cur`` counts epochs since the last restart; when it reaches ``T_i`` the lr jumps back to
    ``initial_lr`` and the next period is ``T_i * T_mult`` long (periods ``T_0``, ``T_0 T_mult``,
    ``T_0 T_mult^2`` ...). ``step(epoch)`` accepts fractional epochs, so the schedule can be
    stepped per batch: ``scheduler.step(epoch + i / iters_per_epoch)``.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,  # noqa: N803
        eta_min: float = 0.0,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min!r}")
        check_real(eta_min, "eta_min", ge=0)
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base in self.base_lrs
        ]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or jump to ``epoch`` (may be fractional; no deprecation here)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    # restarts happen at T_0 (T_mult^n - 1) / (T_mult - 1): solve for n
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._apply_lrs(values)
