"""Training curves: loss and accuracy, train and validation, per epoch.

    fig = plot_training_curves(history)   # history = {"train_loss": [...], "val_loss": [...], ...}
    fig.savefig("curves.png")

The four-list call ``plot_training_curves(train_losses, val_losses, train_accs, val_accs)``
works too. The function returns a matplotlib figure (built without pyplot, so it works on headless
machines and in threads; a notebook cell that returns it draws it, see ``figure.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.ticker import FuncFormatter

from .figure import new_figure

__all__ = ["plot_training_curves", "plot_lr_history"]

# Accepted spellings of the four curves (ours, plural list names, and Keras' history keys).
_KEYS = {
    "train_loss": ("train_loss", "train_losses", "loss"),
    "val_loss": ("val_loss", "val_losses", "valid_loss"),
    "train_acc": ("train_acc", "train_accs", "train_accuracy", "accuracy", "acc"),
    "val_acc": ("val_acc", "val_accs", "val_accuracy", "valid_acc"),
}


def _pick(history: Mapping[str, Any], role: str) -> list[float] | None:
    for key in _KEYS[role]:
        if key in history and history[key] is not None and len(history[key]):
            return [float(v.item() if hasattr(v, "item") else v) for v in history[key]]
    return None


def _figure(ncols: int, width: float = 6.0, height: float = 4.0):
    fig = new_figure(width * ncols, height)
    return fig, [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]


def plot_training_curves(
    history: Mapping[str, Sequence[float]] | Sequence[float],
    val_losses: Sequence[float] | None = None,
    train_accs: Sequence[float] | None = None,
    val_accs: Sequence[float] | None = None,
    title: str | None = None,
    best_epoch: int | None = None,
    log_loss: bool = True,
):
    """Loss curves on the left and, when accuracies are given, accuracy curves on the right.

    ``history`` is a dict of lists (keys ``train_loss``, ``val_loss``, ``train_acc``, ``val_acc``
    and optionally ``epoch`` for the x axis) or the train losses themselves.

    Read for a learner, not just drawn:

    - the loss is on a log axis (``log_loss=False`` for a linear one): a loss that falls from 1
      to 0.03 spends most of the run below 0.1, which a linear axis flattens into the floor;
      on a log axis each factor of 10 gets the same height. Losses that are not all positive
      (a log axis has no place for them) are drawn on a linear axis.
    - accuracies are fractions in [0, 1] and are drawn in percent, as training logs print
      them (accuracies already above 1 are taken to be percentages and drawn as they are).
    - the best epoch is marked on every panel by a dotted vertical line (``gid="best"``) and a
      star on the validation curve, labelled "best 99.83% at epoch 23": the epoch of
      ``best_epoch`` if given (1-based, like the x axis), else the first epoch of the highest
      validation accuracy, else of the lowest validation loss.
    """
    if not isinstance(history, Mapping):
        history = {"train_loss": history, "val_loss": val_losses, "train_acc": train_accs,
                   "val_acc": val_accs}  # fmt: skip
    curves = {role: _pick(history, role) for role in _KEYS}
    if curves["train_loss"] is None and curves["val_loss"] is None:
        raise ValueError(
            "plot_training_curves: no loss curve found; expected keys like 'train_loss' and "
            f"'val_loss', got {sorted(history)}"
        )
    for key in ("train_acc", "val_acc"):
        curves[key] = _as_percent(curves[key])
    has_acc = curves["train_acc"] is not None or curves["val_acc"] is not None
    fig, axes = _figure(2 if has_acc else 1)
    epochs = history.get("epoch")
    panels = [("Loss", "train_loss", "val_loss")]
    if has_acc:
        panels.append(("Accuracy (%)", "train_acc", "val_acc"))
    xs_of: dict[str, list] = {}
    for ax, (name, train_key, val_key) in zip(axes, panels):
        for key, label in ((train_key, "Train"), (val_key, "Validation")):
            ys = curves[key]
            if ys is None:
                continue
            xs = list(epochs)[: len(ys)] if epochs is not None and len(epochs) >= len(ys) else None
            xs_of[key] = list(xs) if xs is not None else list(range(1, len(ys) + 1))
            ax.plot(xs_of[key], ys, marker=".", label=label)
        ax.set_xlabel("Epoch")
        ax.set_ylabel(name)
        ax.set_title(f"{name.split(' ')[0]} Curves")
        ax.grid(alpha=0.3)
    losses = [v for key in ("train_loss", "val_loss") for v in curves[key] or []]
    if log_loss and losses and all(math.isfinite(v) and v > 0 for v in losses):
        axes[0].set_yscale("log")
        axes[0].yaxis.set_major_formatter(FuncFormatter(_plain))  # 0.1, not 10^-1
        axes[0].yaxis.set_minor_formatter(FuncFormatter(_plain_235))
        axes[0].set_ylabel("Loss (log scale)")
        axes[0].grid(alpha=0.3, which="both")
    best = _best_point(curves, xs_of, best_epoch)
    if best is not None:
        key, x, y, label = best
        for ax in axes:
            ax.axvline(x, color="0.35", linestyle=":", linewidth=1.2, gid="best", zorder=1)
        star_ax = axes[1] if key == "val_acc" else axes[0]
        star_ax.plot([x], [y], marker="*", markersize=13, color="#d62728", linestyle="none",
                     label=label, gid="best", zorder=4)  # fmt: skip
    for ax in axes:
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _plain(value: float, _: Any = None) -> str:
    return f"{value:g}"


def _plain_235(value: float, _: Any = None) -> str:
    """Between the powers of 10 of a log axis, label 2, 3 and 5 x 10^k only (0.2, 0.3, 0.5)."""
    if value <= 0:
        return ""
    digit = round(value / 10 ** math.floor(math.log10(value) + 1e-9))
    return f"{value:g}" if digit in (2, 3, 5) else ""


def _as_percent(values: list[float] | None) -> list[float] | None:
    """Fractions -> percent; values above 1 are percentages already."""
    if values is None or any(v > 1 for v in values if math.isfinite(v)):
        return values
    return [100 * v for v in values]


def _best_point(
    curves: dict[str, list[float] | None], xs_of: dict[str, list], best_epoch: int | None
) -> tuple[str, float, float, str] | None:
    """(curve, x, y, label) of the best epoch's point on the validation curve, or None."""
    key = "val_acc" if curves["val_acc"] is not None else "val_loss"
    ys = curves[key]
    if ys is None:
        return None
    xs = xs_of[key]
    if best_epoch is None:
        finite = [i for i, v in enumerate(ys) if math.isfinite(v)]
        if not finite:
            return None
        pick = max if key == "val_acc" else min
        i = pick(finite, key=lambda j: (ys[j], -j) if key == "val_acc" else (ys[j], j))
    elif best_epoch in xs:
        i = xs.index(best_epoch)
    else:
        raise ValueError(f"plot_training_curves: best_epoch {best_epoch} is not an epoch of the "
                         f"curves ({xs[0]} to {xs[-1]})")  # fmt: skip
    value = f"{ys[i]:.2f}%" if key == "val_acc" else f"val loss {ys[i]:.4g}"
    return key, xs[i], ys[i], f"best {value} at epoch {xs[i]:g}"


def plot_lr_history(
    lrs: Sequence[float], steps: Sequence[int] | None = None, title: str = "Learning rate"
):
    """The learning rate actually used at each optimizer step (e.g. recorded during training)."""
    if len(lrs) == 0:
        raise ValueError("plot_lr_history: no learning rates to plot")
    fig, (ax,) = _figure(1)
    ax.plot(list(steps) if steps is not None else range(len(lrs)), [float(v) for v in lrs])
    ax.set_xlabel("Step")
    ax.set_ylabel("Learning Rate")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
