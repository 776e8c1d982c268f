"""Attention weights as heatmaps: which key each query looks at.

    out, w = mha(x, x, x, average_attn_weights=False)     # w: (N, H, T, S)
    fig = mg.viz.plot_attention(w[0], tokens=list("hello"))

Row t of a map is query t's probability distribution over the keys (each row sums to 1). One map
for a (T, S) matrix, a grid of maps, one per head, for (H, T, S).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .figure import new_figure

__all__ = ["plot_attention"]


def _to_numpy(weights: Any) -> np.ndarray:
    if hasattr(weights, "_data"):  # a Tensor (possibly on the GPU, possibly bfloat16)
        weights = weights.detach().cpu()._data if hasattr(weights, "cpu") else weights._data
    return np.asarray(weights).astype(np.float64)


def plot_attention(
    weights: Any,
    tokens: Sequence[str] | None = None,
    query_tokens: Sequence[str] | None = None,
    title: str | None = None,
    annotate: bool | None = None,
    cmap: str = "viridis",
) -> Any:
    """Heatmap(s) of attention weights: queries down the rows, keys along the columns.

    ``weights``: (T, S), (H, T, S), or (1, H, T, S) / (1, T, S) with a batch of one.
    ``tokens``: the key tokens (and the query tokens too when ``query_tokens`` is not given and
    T == S). ``annotate``: write each weight in its cell (default: when the maps are small).
    Returns a matplotlib Figure."""
    w = _to_numpy(weights)
    if w.ndim == 4:
        if w.shape[0] != 1:
            raise ValueError(
                f"plot_attention: weights of shape {w.shape} hold a batch of {w.shape[0]}; pass "
                f"one sample, e.g. weights[0]"
            )
        w = w[0]
    if w.ndim == 2:
        w = w[None]
    if w.ndim != 3:
        raise ValueError(
            f"plot_attention: weights must be (T, S) or (H, T, S), got shape {tuple(w.shape)}"
        )
    heads, t, s = w.shape
    if tokens is not None and len(tokens) != s:
        raise ValueError(f"plot_attention: {len(tokens)} tokens for {s} keys")
    if query_tokens is None and tokens is not None and t == s:
        query_tokens = tokens
    if query_tokens is not None and len(query_tokens) != t:
        raise ValueError(f"plot_attention: {len(query_tokens)} query tokens for {t} queries")
    if annotate is None:
        annotate = t * s <= 100 and heads <= 4
    ncols = math.ceil(math.sqrt(heads))
    nrows = math.ceil(heads / ncols)
    cell = max(0.25, min(0.5, 6.0 / max(t, s)))
    fig = new_figure(ncols * (s * cell + 1.2) + 0.8, nrows * (t * cell + 1.0) + 0.3)
    vmax = float(np.nanmax(w)) if w.size else 1.0
    image = None
    for h in range(heads):
        ax = fig.add_subplot(nrows, ncols, h + 1)
        image = ax.imshow(w[h], cmap=cmap, vmin=0.0, vmax=vmax or 1.0, aspect="equal",
                          interpolation="nearest")  # fmt: skip
        ax.set_xticks(range(s))
        ax.set_yticks(range(t))
        ax.set_xticklabels(list(tokens) if tokens is not None else range(s), rotation=90,
                           fontsize=8)  # fmt: skip
        ax.set_yticklabels(list(query_tokens) if query_tokens is not None else range(t),
                           fontsize=8)  # fmt: skip
        ax.set_xlabel("key")
        ax.set_ylabel("query")
        if heads > 1:
            ax.set_title(f"head {h}", fontsize=9)
        if annotate:
            for i in range(t):
                for j in range(s):
                    v = w[h, i, j]
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6,
                            color="white" if v < 0.6 * vmax else "black")  # fmt: skip
    fig.colorbar(image, ax=fig.axes, shrink=0.8, label="attention weight")
    fig.suptitle(title or ("Attention weights" + (f" ({heads} heads)" if heads > 1 else "")))
    return fig
