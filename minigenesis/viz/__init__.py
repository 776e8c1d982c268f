"""Plots: learning-rate schedules, LR range test, training curves (matplotlib)."""

from .curves import plot_lr_history, plot_training_curves  # noqa: E402,F401
from .lr import (  # noqa: F401
    LRRangeResult,
    lr_range_test,
    lr_schedule_values,
    plot_lr_range_test,
    plot_lr_schedule,
    plot_lr_schedules,
)
