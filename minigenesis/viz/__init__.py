"""Plots (matplotlib): the autograd graph, gradient flow, attention maps, learning-rate schedules,
the LR range test, training curves."""

from .attention import plot_attention  # noqa: F401
from .autograd_graph import Graph, draw_graph, graph  # noqa: F401
from .curves import plot_lr_history, plot_training_curves  # noqa: E402,F401
from .grad_flow import grad_flow_stats, plot_grad_flow  # noqa: F401
from .lr import (  # noqa: F401
    LRRangeResult,
    lr_range_test,
    lr_schedule_values,
    plot_lr_range_test,
    plot_lr_schedule,
    plot_lr_schedules,
)
