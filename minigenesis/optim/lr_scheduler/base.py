"""LRScheduler: the base of every learning-rate schedule, with PyTorch's stepping protocol.

The protocol, which every subclass follows:

- the constructor records ``initial_lr`` in each param group (``base_lrs``) and performs step 0,
  so right after construction ``group["lr"]`` already holds the schedule's value at epoch 0;
- each ``step()`` advances ``last_epoch`` by one and writes the new value into every group;
- ``get_last_lr()`` returns the values the last step wrote, one per param group;
- ``last_epoch=k`` (k >= 0) resumes a schedule whose optimizer already carries ``initial_lr``.

Most schedules are *chainable*: ``get_lr()`` computes the next lr from the group's current lr (so
two schedulers on one optimizer compose), and ``_get_closed_form_lr()`` computes it from
``base_lrs`` and the epoch alone (used by the deprecated ``step(epoch)``). Both are kept, as in
PyTorch, because they round differently and code in the wild relies on each.
"""

from __future__ import annotations

import copy
import types
import warnings
from collections import Counter
from typing import Any

from ..._checks import check_real
from ..._compat import LRList
from ..._tensor import Tensor
from ..optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available."
)


def format_param(name: str, optimizer: Optimizer, value: Any, **bounds: float) -> list:
    """One value per param group: a list/tuple is checked for length, a scalar is repeated.
    Each value must be a finite number within ``bounds`` (``check_real``'s ``ge=0`` ...)."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups: {name} has "
                f"{len(value)} values, param_groups has {len(optimizer.param_groups)}"
            )
        for i, v in enumerate(value):
            check_real(v, f"{name}[{i}]", **bounds)
        return list(value)
    check_real(value, name, **bounds)
    return [value] * len(optimizer.param_groups)


def group_lrs(optimizer: Optimizer) -> LRList:
    """Each group's lr; a Tensor lr is cloned, so the list does not change with the group's."""
    return LRList(_unaliased(group["lr"]) for group in optimizer.param_groups)


def _unaliased(value: Any) -> Any:
    return value.clone() if isinstance(value, Tensor) else value


def set_group_lr(group: dict[str, Any], lr: Any) -> None:
    """Write ``lr`` into a param group: into its Tensor lr's memory when it holds one (PyTorch's
    ``fill_``, so code holding that tensor sees the schedule), otherwise as a new value."""
    if isinstance(group["lr"], Tensor):
        group["lr"].fill_(float(lr))
    else:
        group["lr"] = lr


def check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(
            f"a learning-rate scheduler needs an Optimizer (e.g. mg.optim.SGD(...)), got "
            f"{type(optimizer).__name__}"
        )


def _record_step_calls(optimizer: Optimizer) -> None:
    """Make sure ``optimizer.step()`` notes that it ran (``optimizer._opt_called``), so that
    ``step`` below can warn when the schedule is stepped first (PyTorch's warning).

    ``Optimizer.step`` notes it itself; an optimizer whose class writes its own ``step`` (LBFGS,
    one a learner writes) gets its bound ``step`` wrapped on the instance, as PyTorch does when a
    scheduler is built. The wrapper is a module-level function bound to the optimizer, so a
    deep copy rebinds it to the copy (and pickling leaves it out: see Optimizer.__getstate__)."""
    if type(optimizer).step is Optimizer.step or "step" in vars(optimizer):
        return
    optimizer.step = types.MethodType(_step_and_record, optimizer)  # type: ignore[method-assign]


def _step_and_record(optimizer: Optimizer, *args: Any, **kwargs: Any) -> Any:
    optimizer._opt_called = True
    return type(optimizer).step(optimizer, *args, **kwargs)


# Attributes that are bookkeeping of a call in progress, never part of a saved state.
_TRANSIENT = ("optimizer", "_is_initial", "_get_lr_called_within_step")


class LRScheduler:
    """Base class: subclasses implement ``get_lr()`` (and ``_get_closed_form_lr()`` if they have
    one). ``verbose=True`` prints each new learning rate (PyTorch removed the flag; it is kept here
    because older code, including our docs' examples, passes it)."""

    _is_initial = False
    _get_lr_called_within_step = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1, verbose: bool = False) -> None:
        check_optimizer(optimizer)
        _record_step_calls(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _unaliased(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        f"a scheduler with last_epoch={last_epoch}: load the optimizer's "
                        f"state_dict first (it carries initial_lr), or use last_epoch=-1 for a "
                        f"fresh run"
                    )
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.verbose = bool(verbose)
        self._initial_step()

    def _initial_step(self) -> None:
        """Step 0: done by the constructor (and by SequentialLR when a schedule takes over)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    # ------------------------------------------------------------------ the protocol
    def get_lr(self) -> list[float]:
        """The learning rates for ``last_epoch`` (called by ``step``; use ``get_last_lr``)."""
        raise NotImplementedError

    def get_last_lr(self) -> LRList:
        """The learning rates the last ``step()`` set, one per param group (a list)."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance the schedule by one epoch (or batch) and write the new lr into each group.

        Call it after ``optimizer.step()``. Passing ``epoch`` is deprecated (as in PyTorch): it
        jumps to that epoch using the closed form where the schedule has one.
        """
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. Call them in "
                "the opposite order: `optimizer.step()` before `lr_scheduler.step()`; otherwise "
                "the first value of the learning rate schedule is skipped.",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._apply_lrs(values)

    def _apply_lrs(self, values: list[float]) -> None:
        """Write the new learning rates into the param groups and remember them."""
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_lr(group, lr)
        self._last_lr = group_lrs(self.optimizer)
        if getattr(self, "verbose", False):
            for i, lr in enumerate(self._last_lr):
                print(f"Epoch {self.last_epoch}: adjusting learning rate of group {i} to {lr:.4e}.")

    def _warn_if_called_directly(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )

    # ------------------------------------------------------------------ state
    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer, as plain Python values (lists, dicts, numbers),
        so a checkpoint holding it loads with the safe unpickler."""
        return {k: _plain(v) for k, v in self.__dict__.items() if k not in _TRANSIENT}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a ``state_dict()``; the optimizer's own state is loaded separately."""
        self.__dict__.update(copy.deepcopy(state_dict))
        if "_last_lr" in self.__dict__:
            self._last_lr = LRList(self._last_lr)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(last_epoch={getattr(self, 'last_epoch', None)})"


def _plain(value: Any) -> Any:
    """A copy of ``value`` made of builtin containers (an LRList becomes a list)."""
    if isinstance(value, LRList):
        return list(value)
    if isinstance(value, Counter):
        return dict(value)
    return copy.deepcopy(value)
