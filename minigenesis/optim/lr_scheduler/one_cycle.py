"""OneCycleLR: the 1cycle policy (Smith & Topin, "Super-Convergence", 2017), stepped per batch."""

from __future__ import annotations

import math
from typing import Any

from ..._checks import check_real
from ..optimizer import Optimizer
from .base import LRScheduler, check_optimizer, format_param


def _anneal_cos(start: float, end: float, pct: float) -> float:
    """Cosine from ``start`` (pct = 0) to ``end`` (pct = 1)."""
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _anneal_linear(start: float, end: float, pct: float) -> float:
    """Straight line from ``start`` (pct = 0) to ``end`` (pct = 1)."""
    return (end - start) * pct + start


_ANNEAL = {"cos": _anneal_cos, "linear": _anneal_linear}


class OneCycleLR(LRScheduler):
    """Warm up from ``max_lr / div_factor`` to ``max_lr`` over the first ``pct_start`` of
    ``total_steps``, then anneal down to ``initial_lr / final_div_factor``.

    Phases (step numbers, ``N = total_steps``), each annealed by ``anneal_strategy``:

    - two phases (default, fastai's): ``initial -> max`` until ``pct_start*N - 1``, then
      ``max -> min`` until ``N - 1``;
    - ``three_phase=True`` (the paper's): ``initial -> max``, ``max -> initial`` (symmetric), then
      ``initial -> min`` until ``N - 1``.

    With ``cycle_momentum`` the momentum (or Adam's ``beta1``) moves the opposite way, between
    ``max_momentum`` (at low lr) and ``base_momentum`` (at ``max_lr``). Stepping past
    ``total_steps`` is an error. ``total_steps`` may instead be given as ``epochs *
    steps_per_epoch``.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        check_real(pct_start, "pct_start", ge=0, le=1)
        check_real(div_factor, "div_factor", gt=0)
        check_real(final_div_factor, "final_div_factor", gt=0)
        if anneal_strategy not in _ANNEAL:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy!r}"
            )
        n = self.total_steps
        if three_phase:
            self._schedule_phases = [
                dict(
                    end_step=float(pct_start * n) - 1,
                    start_lr="initial_lr",
                    end_lr="max_lr",
                    start_momentum="max_momentum",
                    end_momentum="base_momentum",
                ),
                dict(
                    end_step=float(2 * pct_start * n) - 2,
                    start_lr="max_lr",
                    end_lr="initial_lr",
                    start_momentum="base_momentum",
                    end_momentum="max_momentum",
                ),
                dict(
                    end_step=n - 1,
                    start_lr="initial_lr",
                    end_lr="min_lr",
                    start_momentum="max_momentum",
                    end_momentum="max_momentum",
                ),
            ]
        else:
            self._schedule_phases = [
                dict(
                    end_step=float(pct_start * n) - 1,
                    start_lr="initial_lr",
                    end_lr="max_lr",
                    start_momentum="max_momentum",
                    end_momentum="base_momentum",
                ),
                dict(
                    end_step=n - 1,
                    start_lr="max_lr",
                    end_lr="min_lr",
                    start_momentum="base_momentum",
                    end_momentum="max_momentum",
                ),
            ]
        self._anneal_func_type = anneal_strategy

        max_lrs = format_param("max_lr", optimizer, max_lr, ge=0)
        if last_epoch == -1:
            for group, group_max in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max / div_factor
                group["max_lr"] = group_max
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            defaults = optimizer.defaults
            if "momentum" not in defaults and "betas" not in defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in defaults
            max_moms = format_param("max_momentum", optimizer, max_momentum, ge=0)
            base_moms = format_param("base_momentum", optimizer, base_momentum, ge=0)
            if last_epoch == -1:
                for group, m_max, m_base in zip(optimizer.param_groups, max_moms, base_moms):
                    self._set_momentum(group, m_max)
                    group["max_momentum"] = m_max
                    group["base_momentum"] = m_base
        super().__init__(optimizer, last_epoch, verbose)

    def _set_momentum(self, group: dict[str, Any], value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def get_lr(self) -> list[float]:
        """The lr at step ``last_epoch``; also sets each group's momentum (or beta1)."""
        self._warn_if_called_directly()
        anneal = _ANNEAL[self._anneal_func_type]
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == last:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = anneal(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                self._set_momentum(group, momentum)
        return lrs
