"""Learning-rate plots: a schedule, several schedules side by side, and the LR range test.

    fig = plot_lr_schedule(lambda opt: CosineAnnealingLR(opt, T_max=100), steps=100)
    fig = plot_lr_schedules({"step": lambda o: StepLR(o, 30), "cos": lambda o: ...}, steps=100)
    lrs, losses = lr_range_test(model, optimizer, criterion, loader, plot=True)

Figures are matplotlib figures built without pyplot (see ``figure.py``: they work headless, in
threads and in tests); ``fig.savefig("lr.png")`` writes a file, and a notebook cell that returns
one draws it. Pass ``ax=`` to draw into an existing axes instead.

A schedule is given either as a *factory* (a function ``optimizer -> scheduler``, run on a
throw-away optimizer) or as a live scheduler, which is stepped and then put back exactly as it
was (its state and its optimizer's hyper-parameters), so plotting never disturbs training.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..creation import zeros
from ..optim.lr_scheduler import LRScheduler, ReduceLROnPlateau
from ..optim.optimizer import Optimizer
from ..optim.sgd import SGD
from .figure import new_figure

__all__ = [
    "LRRangeResult",
    "lr_range_test",
    "lr_schedule_values",
    "plot_lr_range_test",
    "plot_lr_schedule",
    "plot_lr_schedules",
]


def _new_axes(ax: Any = None, figsize: tuple[float, float] = (7.0, 4.0)):
    if ax is not None:
        return ax.figure, ax
    fig = new_figure(*figsize)
    return fig, fig.add_subplot(1, 1, 1)


def _is_scheduler(obj: Any) -> bool:
    return isinstance(obj, (LRScheduler, ReduceLROnPlateau))


def lr_schedule_values(
    scheduler_or_factory: Any,
    steps: int,
    base_lr: float = 0.1,
    metrics: Sequence[float] | None = None,
) -> list[list[float]]:
    """The learning rate of every param group before each of ``steps`` steps: ``out[t][g]``.

    ``scheduler_or_factory`` is a scheduler, or a function ``optimizer -> scheduler`` that is
    given an SGD optimizer with one group at ``base_lr``. ReduceLROnPlateau needs ``metrics``
    (one value per step). A live scheduler is restored afterwards.
    """
    if not isinstance(steps, int) or steps <= 0:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    if _is_scheduler(scheduler_or_factory):
        scheduler, restore = scheduler_or_factory, _snapshot_scheduler(scheduler_or_factory)
    elif callable(scheduler_or_factory):
        optimizer = SGD([zeros(1, requires_grad=True)], lr=base_lr, momentum=0.9)
        scheduler, restore = scheduler_or_factory(optimizer), None
        if not _is_scheduler(scheduler):
            raise TypeError(
                f"the factory must return a learning-rate scheduler, got {type(scheduler).__name__}"
            )
    else:
        raise TypeError(
            "expected a scheduler or a function optimizer -> scheduler, got "
            f"{type(scheduler_or_factory).__name__}"
        )
    plateau = isinstance(scheduler, ReduceLROnPlateau)
    if plateau and (metrics is None or len(metrics) < steps):
        raise ValueError(
            f"ReduceLROnPlateau follows a metric: pass metrics= with at least {steps} values "
            f"(one per step)"
        )
    values = []
    try:
        with warnings.catch_warnings():
            # stepping a schedule without training is the point here, not a mistake
            warnings.filterwarnings("ignore", message="Detected call of `lr_scheduler.step")
            for t in range(steps):
                values.append([float(g["lr"]) for g in scheduler.optimizer.param_groups])
                scheduler.step(metrics[t]) if plateau else scheduler.step()
    finally:
        if restore is not None:
            restore()
    return values


def _snapshot_scheduler(scheduler: Any) -> Callable[[], None]:
    """A function that puts ``scheduler`` and its optimizer's hyper-parameters back as they are."""
    state = scheduler.state_dict()
    optimizer = scheduler.optimizer
    groups = [
        {k: copy.deepcopy(v) for k, v in g.items() if k != "params"} for g in optimizer.param_groups
    ]
    opt_called = optimizer.__dict__.get("_opt_called")

    def restore() -> None:
        scheduler.load_state_dict(state)
        for group, saved in zip(optimizer.param_groups, groups):
            for key in [k for k in group if k != "params" and k not in saved]:
                del group[key]
            group.update(copy.deepcopy(saved))
        if opt_called is None:
            optimizer.__dict__.pop("_opt_called", None)
        else:
            optimizer._opt_called = opt_called

    return restore


def _name(scheduler_or_factory: Any) -> str:
    if _is_scheduler(scheduler_or_factory):
        return type(scheduler_or_factory).__name__
    return getattr(scheduler_or_factory, "__name__", "schedule").replace("<lambda>", "schedule")


def plot_lr_schedule(
    scheduler_or_factory: Any,
    steps: int,
    ax: Any = None,
    *,
    base_lr: float = 0.1,
    metrics: Sequence[float] | None = None,
    title: str | None = None,
    log_scale: bool = False,
):
    """Plot the learning rate a schedule gives at each of ``steps`` steps; returns the Figure.

    One line per param group (labelled ``group i`` when there are several). The y-values are
    exactly ``lr_schedule_values(...)``. The title names the scheduler class unless ``title``.
    """
    values = lr_schedule_values(scheduler_or_factory, steps, base_lr, metrics)
    fig, ax = _new_axes(ax)
    n_groups = len(values[0])
    for g in range(n_groups):
        label = f"group {g}" if n_groups > 1 else None
        ax.plot(range(steps), [row[g] for row in values], label=label)
    if title is None:
        title = (
            _name(scheduler_or_factory)
            if _is_scheduler(scheduler_or_factory)
            else ("Learning-rate schedule")
        )
    _label(ax, title, log_scale)
    if n_groups > 1:
        ax.legend()
    fig.tight_layout()
    return fig


def _label(ax: Any, title: str, log_scale: bool) -> None:
    ax.set_xlabel("Step")
    ax.set_ylabel("Learning rate")
    ax.set_title(title)
    if log_scale:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)


def plot_lr_schedules(
    schedules: Mapping[str, Any] | Iterable[Any],
    steps: int,
    ax: Any = None,
    *,
    base_lr: float = 0.1,
    title: str = "Learning-rate schedules",
    log_scale: bool = False,
):
    """Several schedules on one axes, one labelled line each (first param group); returns the
    Figure. ``schedules`` maps a label to a scheduler or factory (a plain list is labelled by
    scheduler class)."""
    if not isinstance(schedules, Mapping):
        items = list(schedules)
        labels = [_name(s) for s in items]
        schedules = (
            dict(zip(labels, items))
            if len(set(labels)) == len(labels)
            else {f"{label} {i}": s for i, (label, s) in enumerate(zip(labels, items))}
        )
    if not schedules:
        raise ValueError("plot_lr_schedules needs at least one schedule")
    fig, ax = _new_axes(ax, figsize=(8.0, 4.5))
    for label, schedule in schedules.items():
        values = lr_schedule_values(schedule, steps, base_lr)
        ax.plot(range(steps), [row[0] for row in values], label=str(label))
    _label(ax, title, log_scale)
    ax.legend()
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- LR range test
class LRRangeResult(tuple):
    """``(lrs, losses)`` from ``lr_range_test`` (unpacks as a pair), with ``suggested_lr`` (the
    steepest descent of the loss against log lr, None if undecidable) and ``figure`` (when
    plotted)."""

    def __new__(
        cls, lrs: list[float], losses: list[float], suggested_lr: float | None, figure: Any = None
    ) -> LRRangeResult:
        self = super().__new__(cls, (lrs, losses))
        self.lrs, self.losses, self.suggested_lr, self.figure = lrs, losses, suggested_lr, figure
        return self


def lr_range_test(
    model: Any,
    optimizer: Optimizer,
    criterion: Callable[[Any, Any], Tensor],
    data: Any,
    start_lr: float = 1e-7,
    end_lr: float = 10.0,
    num_iter: int = 100,
    *,
    smooth_f: float = 0.05,
    diverge_th: float = 4.0,
    plot: bool = False,
    ax: Any = None,
) -> LRRangeResult:
    """Leslie Smith's LR range test: train for ``num_iter`` steps while the lr grows
    exponentially from ``start_lr`` to ``end_lr``, recording the loss at each lr.

    At step ``i`` every param group gets ``lr_i = start_lr * (end_lr / start_lr) ** (i / (num_iter
    - 1))``. The recorded loss is exponentially smoothed, ``s_i = f * loss_i + (1 - f) * s_{i-1}``
    (``smooth_f=0`` keeps the raw loss), and the sweep stops early once ``s_i > diverge_th *
    min(s)`` (the loss has blown up) or is not finite. A good lr lies where the loss falls
    fastest, well before the minimum.

    ``data`` is a DataLoader, a list of ``(inputs, targets)`` batches (reused in a cycle if
    shorter than the sweep) or a single ``(inputs, targets)`` batch. The loss is
    ``criterion(model(inputs), targets)``. Afterwards the model's parameters and buffers, their
    gradients, and the optimizer's state and hyper-parameters are restored exactly, so the test
    can run before training. Returns ``(lrs, losses)``; ``plot=True`` (or ``ax=``) also draws the
    loss against the lr on a log axis (``result.figure``).
    """
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"lr_range_test needs an Optimizer, got {type(optimizer).__name__}")
    if not start_lr > 0 or not end_lr > start_lr:
        raise ValueError(f"need 0 < start_lr < end_lr, got start_lr={start_lr}, end_lr={end_lr}")
    if not isinstance(num_iter, int) or num_iter < 2:
        raise ValueError(f"num_iter must be an integer >= 2, got {num_iter!r}")
    if not 0 <= smooth_f < 1:
        raise ValueError(f"smooth_f must be in [0, 1), got {smooth_f}")
    if not hasattr(model, "state_dict") or not hasattr(model, "load_state_dict"):
        raise TypeError(
            "lr_range_test needs a model with state_dict()/load_state_dict() (a Module)"
        )

    # Snapshot everything the sweep changes, as copies (state dicts share memory with the model).
    model_state = {k: v._data.copy() for k, v in model.state_dict().items()}
    params = [p for group in optimizer.param_groups for p in group["params"]]
    grads = [p.grad for p in params]
    optimizer_state = _copy_optimizer_state(optimizer)

    lrs: list[float] = []
    losses: list[float] = []
    batches = _cycle_batches(data)
    best = math.inf
    try:
        for i in range(num_iter):
            lr = start_lr * (end_lr / start_lr) ** (i / (num_iter - 1))
            for group in optimizer.param_groups:
                group["lr"] = lr
            inputs, targets = next(batches)
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            value = float(loss.item())
            if losses and smooth_f > 0:
                value = smooth_f * value + (1 - smooth_f) * losses[-1]
            lrs.append(lr)
            losses.append(value)
            if not math.isfinite(value):
                break
            best = min(best, value)
            if value > diverge_th * best:
                break
    finally:
        with no_grad():
            model.load_state_dict({k: Tensor._make(v, False) for k, v in model_state.items()})
        for p, g in zip(params, grads):
            p.grad = g
        optimizer.load_state_dict(optimizer_state)

    result = LRRangeResult(lrs, losses, _steepest_descent(lrs, losses))
    if plot or ax is not None:
        result.figure = plot_lr_range_test(lrs, losses, ax, suggested_lr=result.suggested_lr)
    return result


def _copy_optimizer_state(optimizer: Optimizer) -> dict[str, Any]:
    saved = optimizer.state_dict()

    def copy_value(v: Any) -> Any:
        return Tensor._make(v._data.copy(), False) if isinstance(v, Tensor) else copy.deepcopy(v)

    return {
        "state": {k: {n: copy_value(v) for n, v in s.items()} for k, s in saved["state"].items()},
        "param_groups": copy.deepcopy(saved["param_groups"]),
    }


def _cycle_batches(data: Any):
    """Yield ``(inputs, targets)`` forever from a batch, a list of batches or a DataLoader."""
    if isinstance(data, (tuple, list)) and len(data) == 2 and isinstance(data[0], Tensor):
        while True:
            yield data[0], data[1]
    while True:
        produced = False
        for batch in data:
            if not isinstance(batch, (tuple, list)) or len(batch) != 2:
                raise TypeError(
                    "lr_range_test expects batches of (inputs, targets), got "
                    f"{type(batch).__name__}"
                )
            produced = True
            yield batch[0], batch[1]
        if not produced:
            raise ValueError("lr_range_test: the data yielded no batches (an exhausted iterator?)")


def _steepest_descent(lrs: list[float], losses: list[float]) -> float | None:
    """The lr where the loss falls fastest per decade of lr, before the loss minimum."""
    if len(lrs) < 3:
        return None
    end = min(range(len(losses)), key=losses.__getitem__) + 1  # up to the minimum
    if end < 3:
        return None
    logs = [math.log10(lr) for lr in lrs[:end]]
    slopes = [
        (losses[i + 1] - losses[i - 1]) / (logs[i + 1] - logs[i - 1]) for i in range(1, end - 1)
    ]
    i = min(range(len(slopes)), key=slopes.__getitem__)
    return lrs[i + 1]


def plot_lr_range_test(
    lrs: Sequence[float],
    losses: Sequence[float],
    ax: Any = None,
    *,
    suggested_lr: float | None = None,
    title: str = "LR range test",
):
    """Loss against learning rate on a log x-axis; marks ``suggested_lr`` if given. Returns the
    Figure."""
    if len(lrs) == 0 or len(lrs) != len(losses):
        raise ValueError(
            f"need as many losses as lrs (and at least one), got {len(lrs)} lrs and "
            f"{len(losses)} losses"
        )
    fig, ax = _new_axes(ax)
    ax.plot(list(lrs), list(losses), label="loss")
    ax.set_xscale("log")
    ax.set_xlabel("Learning rate (log scale)")
    ax.set_ylabel("Loss")
    ax.set_title(title)
    if suggested_lr is not None:
        ax.axvline(
            suggested_lr,
            color="tab:red",
            linestyle="--",
            label=f"steepest descent: {suggested_lr:.2e}",
        )
        ax.legend()
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    return fig
