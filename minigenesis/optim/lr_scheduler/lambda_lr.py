"""Schedules given by a user function of the epoch: LambdaLR (absolute) and MultiplicativeLR
(relative)."""

from __future__ import annotations

import copy
import types
from collections.abc import Callable
from typing import Any

from ..optimizer import Optimizer
from .base import LRScheduler


def _lambdas(optimizer: Optimizer, lr_lambda: Any) -> list[Callable[[int], float]]:
    """One function per param group (a single function is shared by all of them)."""
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != len(optimizer.param_groups):
            raise ValueError(
                f"Expected {len(optimizer.param_groups)} lr_lambdas (one per param group), but "
                f"got {len(lr_lambda)}"
            )
        fns = list(lr_lambda)
    else:
        fns = [lr_lambda] * len(optimizer.param_groups)
    for fn in fns:
        if not callable(fn):
            raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
    return fns


def _saved_attributes(fn: Callable) -> dict | None:
    """A callable object's attributes (its state); None for functions and lambdas."""
    if isinstance(fn, types.FunctionType) or not hasattr(fn, "__dict__"):
        return None
    return copy.deepcopy(fn.__dict__)


class _FunctionSchedule(LRScheduler):
    """Shared state handling: plain functions and lambdas are not saved (they cannot be pickled
    reliably); a callable *object* saves its ``__dict__``, which ``load_state_dict`` restores."""

    lr_lambdas: list[Callable[[int], float]]

    def state_dict(self) -> dict[str, Any]:
        saved_fns = self.__dict__.pop("lr_lambdas")
        try:
            state = super().state_dict()
        finally:
            self.lr_lambdas = saved_fns
        state["lr_lambdas"] = [_saved_attributes(fn) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved_fns = state.pop("lr_lambdas", [None] * len(self.lr_lambdas))
        super().load_state_dict(state)
        for fn, saved in zip(self.lr_lambdas, saved_fns):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_FunctionSchedule):
    """``lr = initial_lr * lr_lambda(epoch)`` (one function, or one per param group).

    Example: linear warm-up over 10 epochs, ``LambdaLR(opt, lambda e: min(1.0, (e + 1) / 10))``.
    """

    def __init__(
        self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1, verbose: bool = False
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_FunctionSchedule):
    """``lr <- lr * lr_lambda(epoch)`` at every step after the first (a running product)."""

    def __init__(
        self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1, verbose: bool = False
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, groups)]
