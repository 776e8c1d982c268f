"""Composing schedules: one after another (SequentialLR) or all at once (ChainedScheduler)."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from ..optimizer import Optimizer
from .base import LRList, LRScheduler, check_optimizer, group_lrs, set_group_lr
from .plateau import ReduceLROnPlateau


def _check_children(kind: str, optimizer: Optimizer, schedulers: Any) -> list:
    schedulers = list(schedulers)
    if len(schedulers) < 1:
        raise ValueError(f"{kind} expects at least one scheduler, but got none")
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{kind}: the scheduler at index {i} has no `optimizer` attribute")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(
                f"{kind} does not support ReduceLROnPlateau (its step() needs a metric), but got "
                f"one at index {i}"
            )
        if s.optimizer is not optimizer:
            raise ValueError(
                f"{kind} expects all schedulers to belong to the same optimizer, but the "
                f"{type(s).__name__} at index {i} has a different one"
            )
    return schedulers


class SequentialLR(LRScheduler):
    """Run ``schedulers[0]`` until ``milestones[0]``, then ``schedulers[1]`` (restarted at its own
    epoch 0) until ``milestones[1]``, and so on. The classic use is a warm-up followed by a decay::

        warmup = LinearLR(opt, start_factor=0.1, total_iters=5)
        decay = CosineAnnealingLR(opt, T_max=95)
        sched = SequentialLR(opt, [warmup, decay], milestones=[5])
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        check_optimizer(optimizer)
        schedulers = _check_children(type(self).__name__, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"SequentialLR expects one milestone fewer than schedulers, but got "
                f"{len(schedulers)} schedulers and {len(milestones)} milestones"
            )
        self._schedulers = schedulers
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        self.verbose = bool(verbose)
        # Each child's constructor already applied its step 0: undo that, then let only the
        # schedule that owns epoch 0 apply it.
        for group in optimizer.param_groups:
            set_group_lr(group, group["initial_lr"])
        self._undo_initial_steps()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = LRList(self._schedulers[idx].get_last_lr())

    def _undo_initial_steps(self, sched: Any = None) -> None:
        sched = self if sched is None else sched
        if hasattr(sched, "_schedulers"):
            for child in sched._schedulers:
                self._undo_initial_steps(child)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Advance one epoch; at a milestone the next schedule starts from its epoch 0."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = LRList(scheduler.get_last_lr())

    def state_dict(self) -> dict[str, Any]:
        children = self.__dict__.pop("_schedulers")
        try:
            state = super().state_dict()
        finally:
            self._schedulers = children
        state["_schedulers"] = [s.state_dict() for s in children]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        children = state.pop("_schedulers")
        super().load_state_dict(state)
        for s, saved in zip(self._schedulers, children):
            s.load_state_dict(saved)


class ChainedScheduler(SequentialLR):
    """Step several schedules on one optimizer together (their effects multiply, for chainable
    schedules): ``ChainedScheduler([ConstantLR(opt, 0.1, 2), ExponentialLR(opt, 0.9)])``."""

    def __init__(self, schedulers: list[LRScheduler], optimizer: Optimizer | None = None) -> None:
        schedulers = list(schedulers)
        if not schedulers:
            raise ValueError("ChainedScheduler expects at least one scheduler, but got none")
        optimizer = optimizer or schedulers[0].optimizer
        self._schedulers = _check_children(type(self).__name__, optimizer, schedulers)
        self.optimizer = optimizer
        self._last_lr = group_lrs(optimizer)

    def step(self) -> None:  # type: ignore[override]
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = group_lrs(self.optimizer)
