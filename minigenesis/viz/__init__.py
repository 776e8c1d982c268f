"""Plots: learning-rate schedules, LR range test, training curves (matplotlib)."""

from .curves import plot_lr_history, plot_training_curves  # noqa: E402,F401  (issue 7)
