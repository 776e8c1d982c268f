"""The training curves a learner reads (loss on a log axis, accuracy in percent, the best epoch
marked) and the grad-flow summary a long run keeps instead of one dict per step. The figures are
read through their objects (axis scale, labels, line data, marker positions), never as pixels."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

from minigenesis.diagnostics import GradFlowSummary
from minigenesis.viz import grad_flow_stats, plot_grad_flow, plot_training_curves

matplotlib.use("Agg")

# A loss that falls 30-fold: on a linear axis its last 20 epochs would sit in the bottom 5%.
EPOCHS = 30
TRAIN_LOSS = [1.1 * 0.89**e for e in range(EPOCHS)]
VAL_LOSS = [1.0 * 0.9**e + 0.02 for e in range(EPOCHS)]
VAL_ACC = [min(0.9983, 0.4 + 0.03 * e) for e in range(EPOCHS)]  # first reaches 0.9983 at 21
VAL_ACC[24] = VAL_ACC[25] = 0.9983  # ties later on: the first one is the best
TRAIN_ACC = [min(0.999, 0.35 + 0.03 * e) for e in range(EPOCHS)]
HISTORY = {"train_loss": TRAIN_LOSS, "val_loss": VAL_LOSS, "train_acc": TRAIN_ACC,
           "val_acc": VAL_ACC}  # fmt: skip


def _best_artists(ax) -> list:
    return [a for a in [*ax.get_lines(), *ax.collections] if a.get_gid() == "best"]


def test_the_loss_is_drawn_on_a_log_axis_that_keeps_late_epochs_apart():
    fig = plot_training_curves(HISTORY)
    loss_ax = fig.axes[0]
    assert loss_ax.get_yscale() == "log"
    assert "log" in loss_ax.get_ylabel()
    train, val = loss_ax.get_lines()[:2]
    np.testing.assert_allclose(train.get_ydata(), TRAIN_LOSS)  # the values, not their logs
    np.testing.assert_allclose(val.get_ydata(), VAL_LOSS)
    # the tick labels are plain numbers (0.1, 0.3), not 10^-1 or 3e-01
    fig.canvas.draw()
    labels = [t.get_text() for t in loss_ax.get_yticklabels(minor=True) if t.get_text()]
    labels += [t.get_text() for t in loss_ax.get_yticklabels() if t.get_text()]
    assert labels and all(float(text) > 0 and "e" not in text for text in labels), labels


def test_a_linear_loss_axis_when_asked_or_when_a_loss_is_not_positive():
    assert plot_training_curves(HISTORY, log_loss=False).axes[0].get_yscale() == "linear"
    nll = {"train_loss": [0.5, -0.2, -0.4], "val_loss": [0.6, 0.1, -0.1]}  # a log-likelihood
    assert plot_training_curves(nll).axes[0].get_yscale() == "linear"


def test_accuracy_is_drawn_in_percent_as_the_console_prints_it():
    fig = plot_training_curves(HISTORY)
    acc_ax = fig.axes[1]
    assert acc_ax.get_ylabel() == "Accuracy (%)" and acc_ax.get_title() == "Accuracy Curves"
    train, val = acc_ax.get_lines()[:2]
    np.testing.assert_allclose(val.get_ydata(), [100 * a for a in VAL_ACC])
    np.testing.assert_allclose(train.get_ydata(), [100 * a for a in TRAIN_ACC])
    # accuracies already in percent are not multiplied again
    percent = plot_training_curves([1.0, 0.5], [1.1, 0.6], [40.0, 80.0], [35.0, 70.5])
    np.testing.assert_allclose(percent.axes[1].get_lines()[1].get_ydata(), [35.0, 70.5])


def test_the_best_epoch_is_marked_on_every_panel_with_its_accuracy():
    fig = plot_training_curves(HISTORY)
    best = 1 + VAL_ACC.index(max(VAL_ACC))  # epochs count from 1, the first of the ties
    assert best == 21
    for ax in fig.axes:
        (vline,) = [a for a in _best_artists(ax) if a.get_linestyle() == ":"]
        assert list(vline.get_xdata()) == [best, best]
    (star,) = [a for a in _best_artists(fig.axes[1]) if a.get_marker() == "*"]
    assert list(star.get_xdata()) == [best] and star.get_ydata()[0] == pytest.approx(99.83)
    assert star.get_label() == "best 99.83% at epoch 21"
    legend = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    assert "best 99.83% at epoch 21" in legend


def test_the_best_epoch_given_is_the_one_marked():
    fig = plot_training_curves(HISTORY, best_epoch=26)
    (star,) = [a for a in _best_artists(fig.axes[1]) if a.get_marker() == "*"]
    assert star.get_label() == "best 99.83% at epoch 26"
    with pytest.raises(ValueError, match="best_epoch 31 is not an epoch"):
        plot_training_curves(HISTORY, best_epoch=31)


def test_without_accuracies_the_lowest_validation_loss_is_marked():
    fig = plot_training_curves({"train_loss": [1.0, 0.5, 0.4], "val_loss": [1.0, 0.3, 0.35]})
    (star,) = [a for a in _best_artists(fig.axes[0]) if a.get_marker() == "*"]
    assert list(star.get_xdata()) == [2] and star.get_label() == "best val loss 0.3 at epoch 2"


def test_the_epoch_column_is_the_x_axis_of_the_curves_and_the_mark():
    history = {**HISTORY, "epoch": list(range(11, 11 + EPOCHS))}  # e.g. the later part of a run
    fig = plot_training_curves(history)
    (star,) = [a for a in _best_artists(fig.axes[1]) if a.get_marker() == "*"]
    assert list(star.get_xdata()) == [31]


# ------------------------------------------------------------------ the grad-flow summary
STEPS = [
    {"0.weight": 1e-3, "0.bias": 0.5, "2.weight": 2.0},
    {"0.weight": 4e-3, "0.bias": 0.1, "2.weight": 1.0},
    {"0.weight": 2e-3, "0.bias": 0.3, "2.weight": 6.0},
]


def test_the_summary_gives_the_mean_and_max_of_every_step():
    summary = GradFlowSummary()
    for step in STEPS:
        summary.add(step)
    for name in STEPS[0]:
        values = np.array([s[name] for s in STEPS])
        mean, top = summary.stats()[name]
        assert mean == pytest.approx(values.mean(), rel=1e-15) and top == values.max()
    assert summary.steps == 3
    listed = grad_flow_stats(STEPS)
    assert list(grad_flow_stats(summary)) == list(listed) == ["0.weight", "2.weight"]
    for name, pair in grad_flow_stats(summary).items():
        assert pair == pytest.approx(listed[name], rel=1e-15)
    assert list(grad_flow_stats(summary, include_bias=True)) == list(STEPS[0])


def test_the_summary_keeps_three_numbers_per_layer_however_many_steps():
    summary = GradFlowSummary()
    for i in range(5000):
        summary.add({"w": 1.0 + i % 7, "b": 0.5})
    state = summary.state_dict()
    assert state["steps"] == 5000 and {k: len(v) for k, v in state["layers"].items()} == {
        "w": 3, "b": 3}  # fmt: skip


def test_the_summary_round_trips_through_its_state_and_continues():
    first, whole = GradFlowSummary(), GradFlowSummary()
    for step in STEPS[:2]:
        first.add(step)
        whole.add(step)
    resumed = GradFlowSummary(first.state_dict())
    resumed.add(STEPS[2])
    whole.add(STEPS[2])
    assert resumed.state_dict() == whole.state_dict()


def test_a_nan_norm_makes_the_layer_nan_and_an_inf_one_its_max_inf():
    summary = GradFlowSummary()
    summary.add({"w": 1.0, "v": 1.0})
    summary.add({"w": math.nan, "v": math.inf})
    summary.add({"w": 2.0, "v": 1.0})
    stats = summary.stats()
    assert math.isnan(stats["w"][0]) and math.isnan(stats["w"][1])
    assert stats["v"] == (math.inf, math.inf)
    listed = grad_flow_stats([{"w": 1.0, "v": 1.0}, {"w": math.nan, "v": math.inf},
                              {"w": 2.0, "v": 1.0}], include_bias=True)  # fmt: skip
    assert math.isnan(listed["w"][0]) and listed["v"] == stats["v"]


def test_plot_grad_flow_draws_a_summary_as_it_draws_the_steps():
    summary = GradFlowSummary()
    for step in STEPS:
        summary.add(step)
    a, b = plot_grad_flow(summary).axes[0], plot_grad_flow(STEPS).axes[0]
    assert a.get_title() == b.get_title() == "Gradient flow over 3 steps"
    heights = [sorted(p.get_height() for p in ax.patches if p.get_gid() in ("max", "mean"))
               for ax in (a, b)]  # fmt: skip
    assert heights[0] == pytest.approx(heights[1])
