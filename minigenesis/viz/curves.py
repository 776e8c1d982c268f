"""Training curves: loss and accuracy, train and validation, per epoch.

    fig = plot_training_curves(history)   # history = {"train_loss": [...], "val_loss": [...], ...}
    fig.savefig("curves.png")

The four-list call ``plot_training_curves(train_losses, val_losses, train_accs, val_accs)``
works too. The function returns a matplotlib figure (built without pyplot, so it works on headless
machines and in threads; a notebook cell that returns it draws it, see ``figure.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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
):
    """Loss curves on the left and, when accuracies are given, accuracy curves on the right.

    ``history`` is a dict of lists (keys ``train_loss``, ``val_loss``, ``train_acc``, ``val_acc``
    and optionally ``epoch`` for the x axis) or the train losses themselves.
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
    has_acc = curves["train_acc"] is not None or curves["val_acc"] is not None
    fig, axes = _figure(2 if has_acc else 1)
    epochs = history.get("epoch")
    panels = [("Loss", "train_loss", "val_loss")]
    if has_acc:
        panels.append(("Accuracy", "train_acc", "val_acc"))
    for ax, (name, train_key, val_key) in zip(axes, panels):
        for key, label in ((train_key, "Train"), (val_key, "Validation")):
            ys = curves[key]
            if ys is None:
                continue
            xs = list(epochs)[: len(ys)] if epochs is not None and len(epochs) >= len(ys) else None
            ax.plot(xs if xs is not None else range(1, len(ys) + 1), ys, marker=".", label=label)
        ax.set_xlabel("Epoch")
        ax.set_ylabel(name)
        ax.set_title(f"{name} Curves")
        ax.grid(alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


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
