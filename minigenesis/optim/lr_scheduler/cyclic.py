"""CyclicLR: the learning rate bounces between two bounds (Smith, "Cyclical Learning Rates for
Training Neural Networks", 2017), stepped per batch."""

from __future__ import annotations

import copy
import math
import types
from collections.abc import Callable
from typing import Any

from ..._checks import check_real
from ..optimizer import Optimizer
from .base import LRScheduler, check_optimizer, format_param, set_group_lr

_MODES = ("triangular", "triangular2", "exp_range")


class CyclicLR(LRScheduler):
    """A cycle of ``step_size_up`` steps from ``base_lr`` up to ``max_lr`` and ``step_size_down``
    steps back (default: the same), repeated. The amplitude is scaled per cycle or per step:

    - ``triangular``: constant amplitude;
    - ``triangular2``: halved every cycle (``1 / 2 ** (cycle - 1)``);
    - ``exp_range``: ``gamma ** step`` (per step);
    - or a custom ``scale_fn(x)`` of the cycle number or the step (``scale_mode``).

    With ``cycle_momentum`` the momentum (or Adam's ``beta1``) cycles the opposite way, between
    ``max_momentum`` (at ``base_lr``) and ``base_momentum`` (at ``max_lr``).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.8,
        max_momentum: float | list[float] = 0.9,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = format_param("base_lr", optimizer, base_lr, ge=0)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                set_group_lr(group, lr)
        self.max_lrs = format_param("max_lr", optimizer, max_lr, ge=0)
        up = check_real(step_size_up, "step_size_up", gt=0)
        down = up if step_size_down is None else check_real(step_size_down, "step_size_down", gt=0)
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in _MODES and scale_fn is None:
            raise ValueError(f"mode {mode!r} is invalid and scale_fn is None: use one of {_MODES}")
        self.mode = mode
        check_real(gamma, "gamma", gt=0)
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_mode()

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = format_param("base_momentum", optimizer, base_momentum, ge=0)
            self.max_momentums = format_param("max_momentum", optimizer, max_momentum, ge=0)
            if last_epoch == -1:
                for m_max, m_base, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    self._set_momentum(group, m_max)
                    group["max_momentum"] = m_max
                    group["base_momentum"] = m_base
        super().__init__(optimizer, last_epoch, verbose)
        self.base_lrs = base_lrs

    def _init_scale_mode(self) -> None:
        # The built-in modes fix their own scale mode (PyTorch ignores scale_mode for them).
        if self._scale_fn_custom is None:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def _set_momentum(self, group: dict[str, Any], value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def scale_fn(self, x: float) -> float:
        """The amplitude factor for cycle number (or step) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        """The lr at step ``last_epoch``; also sets each group's momentum (or beta1)."""
        self._warn_if_called_directly()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle  # position in the cycle, 0..1
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            base + (peak - base) * scale_factor * scale
            for base, peak in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for group, m_base, m_max in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
                self._set_momentum(group, m_max - (m_max - m_base) * scale_factor * scale)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """A custom ``scale_fn`` is saved only if it is a callable object (its ``__dict__``)."""
        fn = self.__dict__.pop("_scale_fn_custom")
        try:
            state = super().state_dict()
        finally:
            self._scale_fn_custom = fn
        saved = None
        if fn is not None and not isinstance(fn, types.FunctionType) and hasattr(fn, "__dict__"):
            saved = copy.deepcopy(fn.__dict__)
        state["_scale_fn_custom"] = saved
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop("_scale_fn_custom", None)
        super().load_state_dict(state)
        if saved is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(saved)
        self._init_scale_mode()
