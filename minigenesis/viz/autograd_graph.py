"""Pictures of the autograd graph, drawn with matplotlib (no Graphviz needed).

    g = mg.viz.graph(loss, params=model)       # a Graph: nodes, edges, what each node saved
    g.draw()                                    # a matplotlib Figure (shown inline in Jupyter)
    g.draw().savefig("graph.svg")
    print(g.to_dot())                           # Graphviz DOT text, for those who have `dot`
    mg.viz.draw_graph(loss, params=model)       # the same as graph(...).draw()

One box per graph vertex: an op node (its name, the shape and dtype of its output, what it saved
for backward) or a leaf tensor (its parameter name, or its shape). Arrows follow the data, from
an op's inputs to the op; the outputs are at the bottom, each vertex one row above the lowest op
that uses it (rows are the longest distance from an output).

What else the picture shows:

- broadcasting: where an elementwise op's input was smaller than its output, the engine sums the
  gradient back to the input's shape (``autograd/engine.py``); a ``sum_to`` box stands on that edge;
- autocast: boxes are coloured by the dtype the op produced (float32, bfloat16, float16, ...);
- gradient checkpointing: ops whose saved values are dropped and recomputed in backward are
  outlined in red and named by segment; a reentrant checkpoint is one box of its own;
- after ``backward``, ``show_grad=True`` writes each leaf's gradient norm; saved values a backward
  freed read "freed";
- the graph of a backward pass (``mg.autograd.grad(..., create_graph=True)``) is drawn like any
  other: pass the gradient.

Big graphs stay readable: a run of identical blocks (the same ops, shapes and parameter shapes,
e.g. ten identical layers) is drawn once inside a frame marked "x N", and past ``max_nodes`` the
rest is replaced by one box saying how many nodes were left out.
"""

from __future__ import annotations

from typing import Any

from . import _graph_read as read
from ._graph_collapse import MIN_REPEATS, _finish
from ._graph_draw import draw as _draw
from ._graph_nodes import Block, Node
from ._graph_style import edge_color, fill_color
from ._graph_walk import _param_names, _walk

__all__ = ["Graph", "Node", "Block", "graph", "draw_graph", "MIN_REPEATS"]


class Graph:
    """The autograd graph behind some tensors, ready to draw (:meth:`draw`) or to export
    (:meth:`to_dot`). Build it with :func:`graph`.

    ``nodes``: the boxes (:class:`Node`), outputs first; ``edges``: ``(src, dst)`` node ids, from
    an input to the op that used it; ``blocks``: collapsed runs of identical blocks;
    ``left_out``: nodes not drawn because of ``max_nodes``."""

    def __init__(
        self,
        nodes: list[Node],
        edges: list[tuple[int, int]],
        blocks: list[Block],
        left_out: int,
        max_nodes: int,
        walked_all: bool,
        show_saved: bool,
        show_grad: bool,
    ) -> None:
        self.nodes, self.edges, self.blocks = nodes, edges, blocks
        self.left_out, self.max_nodes, self.walked_all = left_out, max_nodes, walked_all
        self.show_saved, self.show_grad = show_saved, show_grad
        self._index = {n.id: k for k, n in enumerate(nodes)}  # node id -> position in nodes

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        extra = f", {len(self.blocks)} collapsed block(s)" if self.blocks else ""
        extra += f", {self.left_out} node(s) left out" if self.left_out else ""
        return f"Graph({len(self.nodes)} nodes, {len(self.edges)} edges{extra})"

    @property
    def saved_bytes(self) -> int:
        """Bytes the drawn nodes keep for backward (a value saved by two ops counts twice; values
        gradient checkpointing recomputes are not kept, see ``recomputed_bytes``)."""
        return sum(n.saved_bytes - n.recomputed_bytes for n in self.nodes)

    @property
    def recomputed_bytes(self) -> int:
        """Bytes of the saved values that gradient checkpointing drops and recomputes."""
        return sum(n.recomputed_bytes for n in self.nodes)

    @property
    def note(self) -> str:
        """Why the picture is not the whole graph ('' when it is)."""
        parts = []
        if self.left_out:
            more = "" if self.walked_all else "at least "
            parts.append(
                f"{len(self.nodes) - 1} of {more}{len(self.nodes) - 1 + self.left_out} nodes "
                f"drawn (max_nodes={self.max_nodes}); pass a larger max_nodes to see more"
            )
        for b in self.blocks:
            parts.append(f"{b.repeats} identical blocks drawn once (x {b.repeats})")
        return "; ".join(parts)

    def edge_names(self) -> list[tuple[str, str]]:
        """The edges as (input's name, op's name) pairs."""
        by_id = {n.id: n for n in self.nodes}
        return [(by_id[a].name, by_id[b].name) for a, b in self.edges]

    # ------------------------------------------------------------------ output
    def draw(self, ax: Any = None, fontsize: float | None = None) -> Any:
        """The picture as a matplotlib Figure (on ``ax`` when given)."""
        return _draw(self, ax=ax, fontsize=fontsize)

    def to_dot(self, name: str = "autograd") -> str:
        """The graph as Graphviz DOT text: ``dot -Tsvg graph.dot -o graph.svg``."""
        lines = [
            f"digraph {_dot_id(name)} {{",
            "  rankdir=TB;",
            '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        ]
        in_block = {i: k for k, b in enumerate(self.blocks) for i in b.node_ids}
        for k, block in enumerate(self.blocks):
            lines.append(f"  subgraph cluster_{k} {{")
            lines.append(f'    label="x {block.repeats}"; style=dashed;')
            for i in block.node_ids:
                lines.append("  " + self._dot_node(i))
            lines.append("  }")
        for n in self.nodes:
            if n.id not in in_block:
                lines.append(self._dot_node(n.id))
        for a, b in self.edges:
            lines.append(f"  n{a} -> n{b};")
        if self.note:
            lines.append(f'  label="{_dot_escape(self.note)}"; labelloc=b;')
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _dot_node(self, i: int) -> str:
        n = self.nodes[self._index[i]]
        label = "\\n".join(_dot_escape(s) for s in n.lines(self.show_saved, self.show_grad))
        style = ', style="rounded,filled,dashed"' if n.kind in ("more", "sum_to") else ""
        return (f'  n{n.id} [label="{label}", fillcolor="{fill_color(n)}", '
                f'color="{edge_color(n)}"{style}];')  # fmt: skip

    def save(self, path: Any, **savefig_kwargs: Any) -> None:
        """Draw and save: PNG, SVG or PDF by the file's extension; ``.dot`` writes DOT text."""
        if str(path).endswith(".dot"):
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.to_dot())
            return
        savefig_kwargs.setdefault("bbox_inches", "tight")
        self.draw().savefig(path, **savefig_kwargs)

    def _repr_png_(self) -> bytes:
        return self.draw()._repr_png_()


def graph(
    *tensors: Any,
    params: Any = None,
    show_saved: bool = True,
    show_grad: bool = False,
    max_nodes: int = 200,
    collapse: bool = True,
    show_broadcast: bool = True,
) -> Graph:
    """The autograd graph that produced ``tensors``, as a :class:`Graph`.

    ``params``: a Module, ``named_parameters()``, or a dict name -> tensor; leaves found there
    are labelled by name (others by their shape). ``show_saved``: list what each op saved for
    backward (shape and bytes). ``show_grad``: write each leaf's gradient norm (after backward).
    ``max_nodes``: draw at most this many nodes, and say how many were left out.
    ``collapse``: draw a run of 3 or more identical blocks once, marked "x N".
    ``show_broadcast``: a ``sum_to`` box where the engine sums a broadcast gradient back.
    """
    if not tensors:
        raise ValueError("graph: give at least one tensor to draw the graph of")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"graph: max_nodes must be an int >= 1, got {max_nodes!r}")
    flat: list = []
    for t in tensors:
        flat.extend(t if isinstance(t, (list, tuple)) else [t])
    for i, t in enumerate(flat):
        if not read.is_tensor(t):
            raise TypeError(f"graph: argument {i} is a {type(t).__name__}, not a Tensor")
        if t.grad_fn is None and not t.requires_grad:
            raise ValueError(
                f"graph: tensor {i} (shape {tuple(t.shape)}) has no autograd graph: it does not "
                f"require grad (computed under no_grad(), or from tensors without "
                f"requires_grad=True)"
            )
    names = _param_names(params)
    raw = _walk(flat, names, show_broadcast)
    nodes, edges, blocks, left_out = _finish(raw, max_nodes, collapse)
    return Graph(nodes, edges, blocks, left_out, max_nodes, raw.walked_all, show_saved, show_grad)


def draw_graph(
    *tensors: Any,
    params: Any = None,
    show_saved: bool = True,
    show_grad: bool = False,
    max_nodes: int = 200,
    collapse: bool = True,
    show_broadcast: bool = True,
    ax: Any = None,
) -> Any:
    """Draw the autograd graph that produced ``tensors``: a matplotlib Figure (see :func:`graph`
    for the arguments; ``graph(...).to_dot()`` gives the same graph as Graphviz text)."""
    g = graph(*tensors, params=params, show_saved=show_saved, show_grad=show_grad,
              max_nodes=max_nodes, collapse=collapse, show_broadcast=show_broadcast)  # fmt: skip
    return g.draw(ax=ax)


def _dot_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _dot_id(name: str) -> str:
    return name if name.isidentifier() else f'"{_dot_escape(name)}"'
