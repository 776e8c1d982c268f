"""Drawing a :class:`~minigenesis.viz.autograd_graph.Graph` with matplotlib: rows, boxes, arrows.

Rows are depths (the outputs at the bottom). Within a row, each box sits at the mean x of the
ops that use it (the barycenter heuristic, which keeps most arrows short and upright), pushed
apart where boxes would overlap. Box and figure sizes follow from the longest text line, so the
text stays the same size whatever the graph; only a very large graph gets a smaller font.

Every box is a Text artist with gid ``"node"``, every arrow an Annotation with gid ``"edge"``,
every collapsed-block frame a patch with gid ``"block"``: tests and users can find them.
"""

from __future__ import annotations

from typing import Any

from matplotlib.lines import Line2D
from matplotlib.patches import FancyBboxPatch, Patch

from ._graph_style import (
    _DTYPE_FILL,
    _INPUT_FILL,
    _LEAF_FILL,
    _OUTPUT,
    _PLAIN,
    _RECOMPUTED,
    _SUM_FILL,
    edge_color,
    fill_color,
    fmt_bytes,
)
from .figure import new_figure

_FONT = 8.0  # points
_MIN_FONT = 4.5
_MAX_WIDTH, _MAX_HEIGHT = 40.0, 60.0  # inches
_CHAR_W, _LINE_H = 0.60, 1.45  # a character's width and a line's height, in font sizes


def _layout(graph: Any) -> dict[int, tuple[float, int]]:
    """x (in box widths) and row of every node."""
    rows: dict[int, list] = {}
    for n in graph.nodes:
        rows.setdefault(n.depth, []).append(n.id)
    users: dict[int, list] = {}
    for a, b in graph.edges:
        users.setdefault(a, []).append(b)
    x: dict[int, float] = {}
    kinds = {n.id: n.kind for n in graph.nodes}
    for depth in sorted(rows):
        ids = rows[depth]
        if depth == 0 or not x:
            wanted = {i: float(k) for k, i in enumerate(ids)}
        else:
            wanted = {}
            for k, i in enumerate(ids):
                placed = [x[u] for u in users.get(i, ()) if u in x]
                wanted[i] = sum(placed) / len(placed) if placed else float(k)
        ids.sort(key=lambda i: wanted[i])
        ids = _centre_ops(ids, wanted, kinds)
        xs = [wanted[i] for i in ids]
        for k in range(1, len(xs)):  # push apart, left to right, at least one box apart
            xs[k] = max(xs[k], xs[k - 1] + 1.0)
        shift = (sum(wanted[i] for i in ids) - sum(xs)) / len(xs)  # keep the row's centre
        for i, v in zip(ids, xs):
            x[i] = v + shift
    return {n.id: (x[n.id], n.depth) for n in graph.nodes}


def _centre_ops(ids: list[int], wanted: dict[int, float], kinds: dict[int, str]) -> list[int]:
    """Among boxes that want the same x (the inputs of one op), put the ops in the middle and
    the leaves on either side, so a chain of layers runs straight down past its parameters."""
    out: list[int] = []
    k = 0
    while k < len(ids):
        group = [ids[k]]
        while k + len(group) < len(ids) and wanted[ids[k + len(group)]] == wanted[ids[k]]:
            group.append(ids[k + len(group)])
        leaves = [i for i in group if kinds[i] == "leaf"]
        ops = [i for i in group if kinds[i] != "leaf"]
        out += leaves[: len(leaves) // 2] + ops + leaves[len(leaves) // 2 :]
        k += len(group)
    return out


def draw(graph: Any, ax: Any = None, fontsize: float | None = None) -> Any:
    texts = {n.id: n.lines(graph.show_saved, graph.show_grad) for n in graph.nodes}
    pos = _layout(graph)
    xs = [p[0] for p in pos.values()]
    x_lo, x_hi = min(xs), max(xs)
    n_rows = max(p[1] for p in pos.values()) + 1
    chars = max(len(line) for lines in texts.values() for line in lines)
    n_lines = max(len(lines) for lines in texts.values())
    font = fontsize or _FONT
    # Inches per x unit (one box plus a gap) and per row (the tallest box plus a gap).
    unit_w = lambda f: (chars * _CHAR_W * f + 4 * f) / 72  # noqa: E731
    unit_h = lambda f: (n_lines * _LINE_H * f + 3.2 * f) / 72  # noqa: E731
    span_w, span_h = (x_hi - x_lo + 1), n_rows + 0.6
    if fontsize is None:
        scale = min(
            1.0, _MAX_WIDTH / (span_w * unit_w(font)), _MAX_HEIGHT / (span_h * unit_h(font))
        )
        font = max(_MIN_FONT, font * scale)
    note = graph.note
    legend_h = 0.45
    width = max(3.0, span_w * unit_w(font))
    height = max(1.2, span_h * unit_h(font)) + legend_h + (0.3 if note else 0.0)

    if ax is None:
        fig = new_figure(width, height)
        bottom = (0.3 if note else 0.0) / height
        ax = fig.add_axes((0.0, bottom, 1.0, 1.0 - bottom - legend_h / height))
    else:
        fig = ax.figure
    ax.set_axis_off()
    ax.set_xlim(x_lo - 0.55, x_hi + 0.55)
    ax.set_ylim(-0.6, n_rows - 0.4)

    artists = {}
    for n in graph.nodes:
        x, y = pos[n.id]
        dashed = n.kind in ("sum_to", "more")
        artists[n.id] = ax.text(
            x, y, "\n".join(texts[n.id]), ha="center", va="center", fontsize=font,
            family="monospace", linespacing=1.3, gid="node", zorder=3,
            bbox=dict(boxstyle="round,pad=0.35", facecolor=fill_color(n), edgecolor=edge_color(n),
                      linewidth=1.8 if n.segment is not None or n.is_output else 0.8,
                      linestyle="--" if dashed else "-"),
        )  # fmt: skip
    for a, b in graph.edges:
        ax.annotate(
            "", xy=(0.5, 1.0), xycoords=artists[b], xytext=(0.5, 0.0), textcoords=artists[a],
            gid="edge", zorder=2,
            arrowprops=dict(arrowstyle="-|>", color="#444444", linewidth=0.8, shrinkA=4,
                            shrinkB=4, mutation_scale=8),
        )  # fmt: skip

    # Collapsed blocks: a dashed frame around the block drawn, marked "x N".
    box_w = (chars * _CHAR_W * font + font) / 72 / unit_w(font)  # in x units
    box_h = (n_lines * _LINE_H * font + font) / 72 / unit_h(font)
    for block in graph.blocks:
        bx = [pos[i][0] for i in block.node_ids]
        by = [pos[i][1] for i in block.node_ids]
        x0, x1 = min(bx) - box_w / 2 - 0.04, max(bx) + box_w / 2 + 0.04
        y0, y1 = min(by) - box_h / 2 - 0.08, max(by) + box_h / 2 + 0.08
        frame = FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0.02",
                               facecolor="none", edgecolor="#7f6000", linestyle="--",
                               linewidth=1.2, gid="block", zorder=1)  # fmt: skip
        ax.add_patch(frame)
        ax.text(x1, y1, f" x {block.repeats} ", ha="right", va="bottom", fontsize=font + 2,
                fontweight="bold", color="#7f6000", gid="block-label")  # fmt: skip

    # The legend: only the kinds of box the picture holds.
    entries = []
    dtypes = sorted({n.dtype for n in graph.nodes if n.kind == "op" and n.dtype})
    for dt in dtypes:
        entries.append(Patch(facecolor=_DTYPE_FILL.get(dt, "#eeeeee"), edgecolor=_PLAIN,
                             label=f"op, {dt} output"))  # fmt: skip
    if any(n.kind == "leaf" and n.name != "tensor" for n in graph.nodes):
        entries.append(Patch(facecolor=_LEAF_FILL, edgecolor=_PLAIN, label="leaf named in params"))
    if any(n.kind == "leaf" and n.name == "tensor" for n in graph.nodes):
        entries.append(Patch(facecolor=_INPUT_FILL, edgecolor=_PLAIN, label="leaf tensor"))
    if any(n.kind == "sum_to" for n in graph.nodes):
        entries.append(Patch(facecolor=_SUM_FILL, edgecolor=_PLAIN, linestyle="--",
                             label="broadcast gradient summed back"))  # fmt: skip
    if any(n.segment is not None for n in graph.nodes):
        entries.append(Line2D([], [], color=_RECOMPUTED, linewidth=2,
                              label="recomputed in backward (checkpoint)"))  # fmt: skip
    entries.append(Line2D([], [], color=_OUTPUT, linewidth=2, label="output"))
    fig.legend(handles=entries, loc="upper center", ncols=min(len(entries), 4),
               fontsize=max(font - 0.5, 4), frameon=False)  # fmt: skip

    footer = []
    if graph.show_saved:
        footer.append(f"saved for backward: {fmt_bytes(graph.saved_bytes)}")
        if graph.recomputed_bytes:
            footer.append(f"recomputed in backward: {fmt_bytes(graph.recomputed_bytes)}")
    if note:
        footer.append(note)
    if footer:
        fig.text(0.5, 0.005, "   |   ".join(footer), ha="center", va="bottom",
                 fontsize=max(font, 6), color="#333333", gid="note")  # fmt: skip
    return fig
