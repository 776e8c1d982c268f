"""Gradient norms, non-finite gradient detection, NaN hunting, loss-curve diagnosis, curve plots."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.diagnostics import (
    check_finite_grads,
    diagnose_training,
    find_nan_source,
    find_nonfinite_grads,
    grad_norms,
    monitor_gradients,
    total_grad_norm,
)
from minigenesis.viz import plot_lr_history, plot_training_curves


def _model_with_grads(seed: int = 0):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    loss = model(mg.randn(5, 4)).pow(2).sum()
    loss.backward()
    return model


def test_grad_norms_match_numpy():
    model = _model_with_grads()
    norms = grad_norms(model)
    grads = {n: p.grad.numpy().astype(np.float64) for n, p in model.named_parameters()}
    assert set(norms) == set(grads) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    for name, g in grads.items():
        assert norms[name] == pytest.approx(np.linalg.norm(g.ravel()), rel=1e-6)
    flat = np.concatenate([g.ravel() for g in grads.values()])
    assert total_grad_norm(model) == pytest.approx(np.linalg.norm(flat), rel=1e-6)
    assert total_grad_norm(model.parameters(), norm_type=1) == pytest.approx(np.abs(flat).sum())
    assert total_grad_norm(model, norm_type=math.inf) == pytest.approx(np.abs(flat).max())
    assert grad_norms(nn.Linear(2, 2)) == {}  # no backward yet: nothing to report


def test_total_norm_agrees_with_clip_grad_norm():
    model = _model_with_grads(1)
    ours = total_grad_norm(model)
    returned = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e9)
    assert float(returned) == pytest.approx(ours, rel=1e-6)


def test_nonfinite_grads_are_named(capsys):
    model = _model_with_grads()
    assert find_nonfinite_grads(model) == []
    check_finite_grads(model)  # no error
    w = model[2].weight.grad
    w._data[0, 0] = np.nan
    w._data[1, 2] = np.inf
    model[0].bias.grad._data[1] = -np.inf
    bad = find_nonfinite_grads(model)
    assert bad == ["0.bias: 1 Inf (of 3)", "2.weight: 1 NaN, 1 Inf (of 6)"]
    with pytest.raises(FloatingPointError, match=r"0\.bias.*2\.weight"):
        check_finite_grads(model)
    assert math.isnan(grad_norms(model)["2.weight"])
    monitor_gradients(model)
    out = capsys.readouterr().out
    assert "2.weight" in out and "0.bias" in out


def test_monitor_warns_on_large_norm(capsys):
    p = nn.Parameter(mg.zeros(3))
    p.grad = mg.tensor([30.0, 40.0, 0.0])
    assert monitor_gradients([p], warn_above=10) == pytest.approx(50.0)
    assert "large gradient norm 50.00" in capsys.readouterr().out


def test_find_nan_source_names_the_module():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x, y = mg.randn(6, 3), mg.randn(6, 2)
    crit = lambda out, target: ((out - target) ** 2).mean()  # noqa: E731
    assert find_nan_source(model, x, y, crit) == "no NaN/Inf found"
    with mg.no_grad():
        model[2].weight[0, 0] = float("nan")
    assert "module 2 (Linear)" in find_nan_source(model, x, y, crit)
    bad_x = x.clone()
    bad_x[0, 0] = float("inf")
    assert "input" in find_nan_source(model, bad_x, y, crit)


# ------------------------------------------------------------------ loss curves
def test_too_short():
    assert diagnose_training([1.0, 0.9], [1.0, 0.95]).kinds == ["too_short"]


def test_overfitting():
    train = [1.0 - 0.05 * i for i in range(15)]
    val = [0.8 - 0.04 * i for i in range(8)] + [0.5 + 0.03 * i for i in range(7)]
    d = diagnose_training(train, val)
    assert "overfitting" in d and "underfitting" not in d and not d.healthy


def test_underfitting():
    train = [1.2 - 0.002 * i for i in range(12)]
    val = [1.25 - 0.002 * i for i in range(12)]
    d = diagnose_training(train, val)
    assert "underfitting" in d and "overfitting" not in d


def test_converged_and_healthy():
    train = [0.5 * math.exp(-i / 3) + 0.1 for i in range(40)]
    val = [t + 0.02 for t in train]
    d = diagnose_training(train, val)
    assert d.kinds == ["converged"] and d.healthy
    learning = [1.0 * math.exp(-i / 5) for i in range(12)]  # still falling, ends low
    d2 = diagnose_training(learning, [x + 0.01 for x in learning])
    assert d2.findings == [] and "healthy" in str(d2)


def test_diverging_and_oscillating(capsys):
    d = diagnose_training([1.0, 0.8, float("nan")], [1.0, 0.9, 0.9])
    assert d.kinds == ["diverging"]
    rising = [0.3 + 0.1 * i for i in range(12)]
    assert "diverging" in diagnose_training(rising, rising)
    saw = [0.8 + (0.3 if i % 2 else 0.0) for i in range(12)]
    d = diagnose_training(saw, saw, verbose=True)
    assert "oscillating" in d
    assert "[oscillating]" in capsys.readouterr().out


def test_accepts_tensors():
    train = [mg.tensor(1.0 - 0.05 * i) for i in range(12)]
    assert "too_short" not in diagnose_training(train, train).kinds


# ------------------------------------------------------------------ plots
def test_plot_training_curves_from_a_dict_or_from_lists():
    history = {"train_loss": [1.0, 0.6, 0.4], "val_loss": [1.1, 0.7, 0.6],
               "train_acc": [0.5, 0.7, 0.8], "val_acc": [0.45, 0.65, 0.7]}  # fmt: skip
    fig = plot_training_curves(history)
    assert len(fig.axes) == 2
    loss_ax, acc_ax = fig.axes
    curves = [line for line in loss_ax.get_lines() if line.get_gid() != "best"]  # not the mark
    assert [line.get_label() for line in curves] == ["Train", "Validation"]
    np.testing.assert_allclose(
        acc_ax.get_lines()[1].get_ydata(), [100 * a for a in history["val_acc"]]
    )  # in percent
    fig2 = plot_training_curves([1.0, 0.5], [1.2, 0.8])
    curves2 = [line for line in fig2.axes[0].get_lines() if line.get_gid() != "best"]
    assert len(fig2.axes) == 1 and len(curves2) == 2
    with pytest.raises(ValueError, match="no loss curve"):
        plot_training_curves({"foo": [1]})
    fig3 = plot_lr_history([0.0, 0.5, 1.0, 0.5])
    np.testing.assert_allclose(fig3.axes[0].get_lines()[0].get_ydata(), [0.0, 0.5, 1.0, 0.5])
