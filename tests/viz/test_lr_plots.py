"""LR plots: a PNG of every schedule drawn by plot_lr_schedule (file written, axes labelled,
plotted values equal to the scheduler's), the comparison figure, and the LR range test."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn as nn
from minigenesis.optim import lr_scheduler as S
from minigenesis.viz import (
    lr_range_test,
    lr_schedule_values,
    plot_lr_range_test,
    plot_lr_schedule,
    plot_lr_schedules,
)

matplotlib.use("Agg")

STEPS = 100

SCHEDULES = {
    "LambdaLR": lambda o: S.LambdaLR(o, lambda e: 0.95 ** (e // 10)),
    "MultiplicativeLR": lambda o: S.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda o: S.StepLR(o, step_size=30, gamma=0.1),
    "MultiStepLR": lambda o: S.MultiStepLR(o, milestones=[30, 80], gamma=0.1),
    "ExponentialLR": lambda o: S.ExponentialLR(o, gamma=0.95),
    "CosineAnnealingLR": lambda o: S.CosineAnnealingLR(o, T_max=STEPS, eta_min=1e-4),
    "CosineAnnealingWarmRestarts": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=10, T_mult=2),
    "LinearLR": lambda o: S.LinearLR(o, start_factor=0.1, total_iters=20),
    "ConstantLR": lambda o: S.ConstantLR(o, factor=0.5, total_iters=10),
    "PolynomialLR": lambda o: S.PolynomialLR(o, total_iters=80, power=2.0),
    "OneCycleLR": lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=STEPS),
    "SequentialLR": lambda o: S.SequentialLR(
        o,
        [S.LinearLR(o, start_factor=0.1, total_iters=10), S.CosineAnnealingLR(o, T_max=90)],
        milestones=[10],
    ),
    "ChainedScheduler": lambda o: S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.1, total_iters=5), S.ExponentialLR(o, gamma=0.97)]
    ),
    "ReduceLROnPlateau": lambda o: S.ReduceLROnPlateau(o, patience=5, factor=0.5),
    "CyclicLR": lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=15),
    "cosine_with_warmup": lambda o: S.get_cosine_schedule_with_warmup(o, 10, STEPS),
    "linear_with_warmup": lambda o: S.get_linear_schedule_with_warmup(o, 10, STEPS),
}
METRICS = [1.0 / (1 + t) if t < 30 else 0.03 for t in range(STEPS)]  # improves, then plateaus


def reference_lrs(factory, base_lr=0.1):
    """The schedule's lrs, stepped by hand as a training loop would (the independent oracle)."""
    w = mg.zeros(1, requires_grad=True)
    opt = mg.optim.SGD([w], lr=base_lr, momentum=0.9)
    sched = factory(opt)
    out = []
    for t in range(STEPS):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step(METRICS[t]) if isinstance(sched, S.ReduceLROnPlateau) else sched.step()
    return out


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_png_of_every_schedule(name, tmp_path):
    factory = SCHEDULES[name]
    fig = plot_lr_schedule(factory, STEPS, metrics=METRICS)
    path = tmp_path / f"{name}.png"
    fig.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 2000
    (ax,) = fig.axes
    assert ax.get_xlabel() == "Step" and ax.get_ylabel() == "Learning rate" and ax.get_title()
    (line,) = ax.get_lines()
    want = reference_lrs(factory)
    assert len(set(want)) > 1  # the schedule moves, so equality below means something
    np.testing.assert_array_equal(line.get_xdata(), np.arange(STEPS))
    np.testing.assert_array_equal(line.get_ydata(), want)


def test_live_scheduler_is_restored_after_plotting():
    w = mg.zeros(1, requires_grad=True)
    opt = mg.optim.Adam([w], lr=0.1)
    sched = S.OneCycleLR(opt, max_lr=0.1, total_steps=50)
    opt.step()
    for _ in range(5):
        sched.step()
    before_state = sched.state_dict()
    before_groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    fig = plot_lr_schedule(sched, 40)
    assert fig.axes[0].get_title() == "OneCycleLR"
    # the plot starts from where the live schedule is
    assert fig.axes[0].get_lines()[0].get_ydata()[0] == before_groups[0]["lr"]
    assert sched.state_dict() == before_state
    assert [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups] == (
        before_groups
    )
    # and it goes on exactly as an unplotted twin
    w2 = mg.zeros(1, requires_grad=True)
    opt2 = mg.optim.Adam([w2], lr=0.1)
    twin = S.OneCycleLR(opt2, max_lr=0.1, total_steps=50)
    opt2.step()
    for _ in range(5):
        twin.step()
    for _ in range(10):
        sched.step()
        twin.step()
        assert sched.get_last_lr() == twin.get_last_lr()
        assert opt.param_groups[0]["betas"] == opt2.param_groups[0]["betas"]


def test_several_param_groups_get_one_line_each():
    w1, w2 = mg.zeros(1, requires_grad=True), mg.zeros(1, requires_grad=True)
    opt = mg.optim.SGD([{"params": [w1], "lr": 0.1}, {"params": [w2], "lr": 0.01}], lr=0.1)
    fig = plot_lr_schedule(S.ExponentialLR(opt, gamma=0.9), 20, log_scale=True)
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["group 0", "group 1"]
    np.testing.assert_allclose(lines[1].get_ydata(), 0.01 * 0.9 ** np.arange(20), rtol=1e-12)
    assert ax.get_yscale() == "log"


def test_comparison_figure(tmp_path):
    chosen = {
        k: SCHEDULES[k] for k in ("StepLR", "CosineAnnealingLR", "OneCycleLR", "cosine_with_warmup")
    }
    fig = plot_lr_schedules(chosen, STEPS)
    fig.savefig(tmp_path / "compare.png")
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.get_lines()] == list(chosen)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(chosen)
    for line, factory in zip(ax.get_lines(), chosen.values()):
        np.testing.assert_array_equal(line.get_ydata(), reference_lrs(factory))
    assert ax.get_xlabel() == "Step" and ax.get_ylabel() == "Learning rate"


def test_drawing_into_given_axes():
    from matplotlib.figure import Figure

    fig = Figure()
    axes = fig.subplots(1, 2)
    out = plot_lr_schedule(SCHEDULES["StepLR"], 50, ax=axes[1])
    assert out is fig and len(axes[1].get_lines()) == 1 and not axes[0].get_lines()


def test_schedule_plot_errors():
    with pytest.raises(ValueError, match="metrics="):
        lr_schedule_values(SCHEDULES["ReduceLROnPlateau"], 10)
    with pytest.raises(TypeError, match="scheduler or a function"):
        plot_lr_schedule(3, 10)
    with pytest.raises(TypeError, match="must return a learning-rate scheduler"):
        plot_lr_schedule(lambda o: o, 10)
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        plot_lr_schedule(SCHEDULES["StepLR"], 0)


# ---------------------------------------------------------------------------- LR range test
def regression_problem(seed=0):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    X = mg.randn(32, 3)
    y = X.sum(dim=1, keepdim=True) * 0.5
    batches = [(X[i : i + 8], y[i : i + 8]) for i in range(0, 32, 8)]
    return model, batches


def params_of(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def test_lr_range_test_sweeps_exponentially_and_restores_everything():
    model, batches = regression_problem()
    opt = mg.optim.Adam(model.parameters(), lr=3e-3)
    # some real training first, so there is optimizer state and a gradient to restore
    for x, y in batches:
        opt.zero_grad()
        nn.MSELoss()(model(x), y).backward()
        opt.step()
    before = params_of(model)
    grads = [p.grad for p in model.parameters()]
    opt_before = opt.state_dict()
    state_before = {
        i: {k: (v.numpy().copy() if isinstance(v, mg.Tensor) else v) for k, v in s.items()}
        for i, s in opt_before["state"].items()
    }

    lrs, losses = lr_range_test(
        model, opt, nn.MSELoss(), batches, start_lr=1e-6, end_lr=1e-2, num_iter=30
    )
    assert len(lrs) == len(losses) == 30  # no divergence at these small lrs
    assert lrs[0] == pytest.approx(1e-6) and lrs[-1] == pytest.approx(1e-2)
    ratios = np.array(lrs[1:]) / np.array(lrs[:-1])
    np.testing.assert_allclose(ratios, (1e4) ** (1 / 29), rtol=1e-12)

    after = params_of(model)
    assert after.keys() == before.keys()
    for k in before:
        np.testing.assert_array_equal(after[k], before[k])
    assert all(p.grad is g for p, g in zip(model.parameters(), grads))
    assert opt.param_groups[0]["lr"] == 3e-3
    for i, s in opt.state_dict()["state"].items():
        for k, v in s.items():
            np.testing.assert_array_equal(
                v.numpy() if isinstance(v, mg.Tensor) else v, state_before[i][k]
            )


def test_lr_range_test_records_the_losses_it_trains_on():
    model, batches = regression_problem(1)
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    x, y = batches[0]
    first_loss = nn.MSELoss()(model(x), y).item()
    lrs, losses = lr_range_test(
        model, opt, nn.MSELoss(), (x, y), 1e-4, 1e-1, num_iter=5, smooth_f=0.0
    )
    assert losses[0] == pytest.approx(first_loss, rel=1e-6)

    # the same sweep by hand: raw losses of SGD steps at the swept lrs
    model2, _ = regression_problem(1)
    opt2 = mg.optim.SGD(model2.parameters(), lr=0.1)
    hand = []
    for lr in lrs:
        opt2.param_groups[0]["lr"] = lr
        opt2.zero_grad()
        loss = nn.MSELoss()(model2(x), y)
        loss.backward()
        opt2.step()
        hand.append(loss.item())
    np.testing.assert_allclose(losses, hand, rtol=1e-6)


def test_lr_range_test_stops_when_the_loss_blows_up(tmp_path):
    model, batches = regression_problem(2)
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    result = lr_range_test(model, opt, nn.MSELoss(), batches, 1e-4, 1e3, num_iter=100, plot=True)
    lrs, losses = result
    assert len(lrs) < 100
    best = [min(losses[: i + 1]) for i in range(len(losses))]
    assert not (losses[-1] <= 4 * best[-2]) or not math.isfinite(losses[-1])
    assert all(loss <= 4 * b for loss, b in zip(losses[:-1], best[:-1]))
    assert result.suggested_lr is not None and lrs[0] < result.suggested_lr < lrs[-1]
    ax = result.figure.axes[0]
    assert ax.get_xscale() == "log" and ax.get_xlabel().startswith("Learning rate")
    assert ax.get_ylabel() == "Loss"
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), losses)
    result.figure.savefig(tmp_path / "range.png")
    assert (tmp_path / "range.png").stat().st_size > 2000


def test_lr_range_test_with_a_data_loader_and_plot_function():
    from minigenesis.utils.data import DataLoader, TensorDataset

    model, _ = regression_problem(3)
    X = mg.randn(20, 3)
    loader = DataLoader(TensorDataset(X, X.sum(dim=1, keepdim=True)), batch_size=8)
    opt = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    lrs, losses = lr_range_test(model, opt, nn.MSELoss(), loader, num_iter=12)
    assert len(lrs) == 12  # three batches per pass, cycled
    fig = plot_lr_range_test(lrs, losses)
    assert fig.axes[0].get_xscale() == "log"
    assert opt.state == {} or all(len(s) == 0 for s in opt.state.values())


def test_lr_range_test_errors():
    model, batches = regression_problem()
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="start_lr < end_lr"):
        lr_range_test(model, opt, nn.MSELoss(), batches, start_lr=1.0, end_lr=0.1)
    with pytest.raises(ValueError, match="num_iter"):
        lr_range_test(model, opt, nn.MSELoss(), batches, num_iter=1)
    with pytest.raises(TypeError, match="needs an Optimizer"):
        lr_range_test(model, object(), nn.MSELoss(), batches)
    with pytest.raises(TypeError, match="batches of \\(inputs, targets\\)"):
        lr_range_test(model, opt, nn.MSELoss(), [mg.randn(2, 3)])
    with pytest.raises(ValueError, match="yielded no batches"):
        lr_range_test(model, opt, nn.MSELoss(), iter([]))
    with pytest.raises(ValueError, match="as many losses as lrs"):
        plot_lr_range_test([1e-3], [])
