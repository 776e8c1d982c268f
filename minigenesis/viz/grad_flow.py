"""Gradient flow: how large each layer's gradient is, over the steps of a run.

    history = []
    for step in ...:
        loss.backward()
        history.append(mg.diagnostics.grad_norms(model))   # {"0.weight": 0.41, ...}
        opt.step(); opt.zero_grad()
    fig = mg.viz.plot_grad_flow(history)

One bar pair per layer, in the model's order (input side on the left): the largest gradient norm
over the steps (light) and the mean (dark), on a log scale. Gradients that *vanish* shrink layer
by layer towards the input (a too-deep tanh or sigmoid network): the left bars sink into the
shaded band at the bottom. Gradients that *explode* grow towards the input and reach the band at
the top (bad initialisation, a learning rate too high). A healthy network keeps its bars within an
order of magnitude or two of each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..backend import get_array_module
from .figure import new_figure

__all__ = ["plot_grad_flow", "grad_flow_stats"]


def _as_float(v: Any) -> float:
    return float(v.item() if hasattr(v, "item") else v)


def _is_summary(history: Any) -> bool:
    """A running summary of the steps, such as ``mg.diagnostics.GradFlowSummary``: its
    ``stats()`` gives each layer's (mean, max) over the ``steps`` it has seen. (Recognised by
    what it does: diagnostics and viz are siblings that do not import each other.)"""
    return callable(getattr(history, "stats", None)) and isinstance(
        getattr(history, "steps", None), int
    )


def _steps(history: Any) -> list[Mapping[str, float]]:
    """The history as one {name: norm} dict per step."""
    if hasattr(history, "named_parameters"):  # a model: its gradients now, as one step
        step = {}
        for name, p in history.named_parameters():
            if p.grad is not None:
                xp = get_array_module(p.grad._data)
                flat = p.grad._data.astype(xp.float64).ravel()
                step[name] = float(xp.sqrt(xp.dot(flat, flat)))
        return [step]
    if isinstance(history, Mapping):
        values = list(history.values())
        if values and all(isinstance(v, Sequence) and not isinstance(v, str) for v in values):
            n = max(len(v) for v in values)  # {name: [norm per step]}
            return [{k: v[i] for k, v in history.items() if i < len(v)} for i in range(n)]
        return [history]  # one step: {name: norm}
    if isinstance(history, Sequence) and all(isinstance(h, Mapping) for h in history):
        return list(history)
    raise TypeError(
        "plot_grad_flow: history must be a Module, a {name: norm} dict, a list of them (one "
        f"per step, e.g. from mg.diagnostics.grad_norms) or a {{name: [norms]}} dict; got "
        f"{type(history).__name__}"
    )


def grad_flow_stats(history: Any, include_bias: bool = False) -> dict[str, tuple[float, float]]:
    """Per layer, in order: (mean, max) of its gradient norm over the steps. Biases (names ending
    in ``bias``) are left out unless ``include_bias``: a layer's weight speaks for it. A NaN
    norm makes both NaN; an Inf one makes the max Inf. ``history`` may also be a
    summary of the steps (see ``_is_summary``)."""
    if _is_summary(history):
        stats = history.stats()
        if not include_bias and any(not n.endswith("bias") for n in stats):
            stats = {n: v for n, v in stats.items() if not n.endswith("bias")}
        if not stats:
            raise ValueError("plot_grad_flow: the history holds no gradient norms")
        return stats
    steps = _steps(history)
    names: dict[str, None] = {}
    for step in steps:
        names.update(dict.fromkeys(step))
    if not include_bias and any(not n.endswith("bias") for n in names):
        names = {n: None for n in names if not n.endswith("bias")}
    if not names:
        raise ValueError("plot_grad_flow: the history holds no gradient norms")
    stats = {}
    for name in names:
        values = [_as_float(s[name]) for s in steps if name in s]
        if any(math.isnan(v) for v in values):
            stats[name] = (math.nan, math.nan)
        else:
            stats[name] = (sum(values) / len(values), max(values))
    return stats


def plot_grad_flow(
    history: Any,
    vanishing: float = 1e-5,
    exploding: float = 1e2,
    include_bias: bool = False,
    title: str | None = None,
    ax: Any = None,
) -> Any:
    """The gradient norm of each layer, mean and max over the steps, on a log scale, with the
    vanishing (below ``vanishing``) and exploding (above ``exploding``) regions shaded.

    ``history``: a list of ``{parameter name: gradient norm}`` dicts, one per step (what
    ``mg.diagnostics.grad_norms(model)`` returns), a ``{name: [norms]}`` dict, a summary of the
    steps (``mg.diagnostics.GradFlowSummary``), or a Module (its current gradients). Returns a
    matplotlib Figure."""
    if not 0 < vanishing < exploding:
        raise ValueError(
            f"plot_grad_flow: need 0 < vanishing < exploding, got vanishing={vanishing}, "
            f"exploding={exploding}"
        )
    stats = grad_flow_stats(history, include_bias)
    names = list(stats)
    means = [m for m, _ in stats.values()]
    maxes = [x for _, x in stats.values()]
    finite = [v for v in means + maxes if math.isfinite(v) and v > 0]
    floor = min([vanishing / 10] + [v / 3 for v in finite])
    ceiling = max([exploding * 10] + [v * 3 for v in finite])

    def shown(v: float) -> float:  # zeros at the floor (a log axis has no 0), Inf at the top
        if math.isnan(v):
            return 0.0
        return min(max(v, floor), ceiling)

    if ax is None:
        fig = new_figure(max(5.0, 0.45 * len(names) + 2.0), 4.2)
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure
    xs = range(len(names))
    ax.bar(xs, [shown(v) for v in maxes], width=0.8, color="#9fc5e8", label="max over steps",
           gid="max", zorder=2)  # fmt: skip
    ax.bar(xs, [shown(v) for v in means], width=0.45, color="#1c4587", label="mean over steps",
           gid="mean", zorder=3)  # fmt: skip
    ax.set_yscale("log")
    ax.set_ylim(floor, ceiling)
    ax.axhspan(floor, vanishing, color="#6fa8dc", alpha=0.18, gid="vanishing", zorder=0,
               label=f"vanishing (< {vanishing:g})")  # fmt: skip
    ax.axhspan(exploding, ceiling, color="#e06666", alpha=0.18, gid="exploding", zorder=0,
               label=f"exploding (> {exploding:g})")  # fmt: skip
    for x, v in zip(xs, maxes):
        if math.isnan(v):
            ax.text(x, floor * 1.5, "NaN", ha="center", color="#cc0000", fontsize=8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=45 if len(names) > 4 else 0, ha="right" if len(names) > 4
                       else "center", fontsize=8)  # fmt: skip
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.set_xlabel("layer (input side on the left)")
    ax.set_ylabel("gradient norm")
    n_steps = history.steps if _is_summary(history) else len(_steps(history))
    ax.set_title(title or f"Gradient flow over {n_steps} step{'s' * (n_steps != 1)}")
    ax.grid(axis="y", alpha=0.3, which="major")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig
