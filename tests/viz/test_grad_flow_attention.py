"""plot_grad_flow: per-layer mean/max against closed forms, bars on a log axis, the vanishing and
exploding bands, a too-deep tanh network's gradients shrinking towards the input; plot_attention:
one heatmap per head holding the weights, tokens on the axes, shapes checked."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.diagnostics import grad_norms
from minigenesis.viz import grad_flow_stats, plot_attention, plot_grad_flow

matplotlib.use("Agg")

HISTORY = [
    {"0.weight": 1e-7, "0.bias": 5.0, "2.weight": 0.5, "2.bias": 0.1},
    {"0.weight": 3e-7, "0.bias": 5.0, "2.weight": 1.5, "2.bias": 0.1},
]


def test_stats_are_mean_and_max_per_layer_over_steps():
    stats = grad_flow_stats(HISTORY)
    assert list(stats) == ["0.weight", "2.weight"]  # biases left out, order kept
    assert stats["0.weight"] == pytest.approx((2e-7, 3e-7))
    assert stats["2.weight"] == pytest.approx((1.0, 1.5))
    assert list(grad_flow_stats(HISTORY, include_bias=True)) == list(HISTORY[0])
    by_name = {k: [h[k] for h in HISTORY] for k in HISTORY[0]}  # {name: [norm per step]}
    assert grad_flow_stats(by_name) == stats


def test_nan_and_inf_norms_show_as_such():
    stats = grad_flow_stats([{"w": 1.0, "v": 1.0}, {"w": math.nan, "v": math.inf}])
    assert math.isnan(stats["w"][0]) and stats["v"][1] == math.inf


def test_figure_has_bars_on_a_log_axis_and_both_bands():
    fig = plot_grad_flow(HISTORY, vanishing=1e-6, exploding=10.0)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    bars = [p for p in ax.patches if p.get_gid() in ("max", "mean")]
    heights = sorted(p.get_height() for p in bars)
    assert heights == pytest.approx(sorted([2e-7, 3e-7, 1.0, 1.5]))
    assert {p.get_gid() for p in ax.patches} >= {"vanishing", "exploding"}
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.weight", "2.weight"]
    assert "2 steps" in ax.get_title()


def test_a_module_gives_its_current_gradients():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    model(mg.randn(8, 3)).sum().backward()
    stats = grad_flow_stats(model)
    want = grad_norms(model)
    assert {k: v[0] for k, v in stats.items()} == pytest.approx(
        {k: v for k, v in want.items() if k.endswith("weight")}
    )


def test_deep_tanh_network_gradients_shrink_towards_the_input():
    """The picture chapter 12 reads: with small weights, tanh layers scale the gradient down
    layer after layer, so the first layer's gradient is orders of magnitude below the last's."""
    mg.manual_seed(0)
    layers = []
    for _ in range(12):
        lin = nn.Linear(16, 16)
        nn.init.normal_(lin.weight, std=0.1)
        layers += [lin, nn.Tanh()]
    model = nn.Sequential(*layers, nn.Linear(16, 3))
    x, y = mg.randn(64, 16), mg.randint(0, 3, (64,))
    F.cross_entropy(model(x), y).backward()
    stats = grad_flow_stats([grad_norms(model)])
    means = [m for m, _ in stats.values()]
    assert means[0] < 1e-3 * means[-1]
    fig = plot_grad_flow([grad_norms(model)])
    first_bar = next(p for p in fig.axes[0].patches if p.get_gid() == "mean")
    assert first_bar.get_height() < 1e-5  # inside the vanishing band


def test_grad_flow_bad_input():
    with pytest.raises(TypeError, match="history"):
        plot_grad_flow(42)
    with pytest.raises(ValueError, match="vanishing"):
        plot_grad_flow(HISTORY, vanishing=10.0, exploding=1.0)
    with pytest.raises(ValueError, match="no gradient norms"):
        plot_grad_flow([{}])


def test_attention_one_heatmap_per_head_with_tokens():
    rng = np.random.default_rng(0)
    w = rng.random((4, 5, 5))
    w /= w.sum(-1, keepdims=True)
    tokens = list("hello")
    fig = plot_attention(mg.tensor(w.astype(np.float32)), tokens=tokens)
    maps = [ax for ax in fig.axes if ax.images]
    assert len(maps) == 4
    for h, ax in enumerate(maps):
        np.testing.assert_allclose(ax.images[0].get_array(), w[h].astype(np.float32), rtol=1e-6)
        assert [t.get_text() for t in ax.get_xticklabels()] == tokens
        assert [t.get_text() for t in ax.get_yticklabels()] == tokens
        assert ax.get_title() == f"head {h}"


def test_attention_single_map_and_batch_of_one():
    w = np.eye(3)
    fig = plot_attention(w[None, None], tokens=["a", "b", "c"], annotate=True)
    (ax,) = [ax for ax in fig.axes if ax.images]
    assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in w.ravel()]


def test_attention_bad_shapes_are_named():
    with pytest.raises(ValueError, match="batch of 2"):
        plot_attention(np.ones((2, 1, 3, 3)))
    with pytest.raises(ValueError, match="2 tokens for 3 keys"):
        plot_attention(np.ones((3, 3)), tokens=["a", "b"])
    with pytest.raises(ValueError, match=r"\(T, S\) or \(H, T, S\)"):
        plot_attention(np.ones(3))
