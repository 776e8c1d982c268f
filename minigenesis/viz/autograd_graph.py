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

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _graph_read as read
from ._graph_draw import draw as _draw
from ._graph_style import edge_color, fill_color, fmt_bytes

__all__ = ["Graph", "Node", "Block", "graph", "draw_graph"]

MIN_REPEATS = 3  # a run of identical blocks is collapsed from this many repeats on
_WALK_LIMIT = 50_000  # vertices walked at most (a longer graph is cut there, with a note)
_SUM_BACK_MODULES = ("elementwise", "math_functions")  # ops whose gradients the engine sums back


@dataclass
class Node:
    """One box of the picture.

    ``kind``: ``op`` (a graph node), ``leaf`` (a tensor that requires grad), ``sum_to`` (the
    engine summing a broadcast gradient back), ``more`` (the nodes left out past max_nodes)."""

    id: int
    kind: str
    name: str
    shape: tuple | list | None = None  # one shape, or a list of them for a multi-output op
    dtype: str | None = None
    saved: list | None = field(default_factory=list)  # read.Saved values; None: freed
    grad_norm: float | None = None  # leaves, after backward
    segment: int | None = None  # gradient checkpointing: the recomputed segment (1, 2, ...)
    is_output: bool = False
    depth: int = 0  # the longest distance from an output
    note: str = ""
    obj: Any = field(default=None, repr=False, compare=False)  # the Function or the tensor

    @property
    def saved_bytes(self) -> int:
        return sum(s.nbytes for s in self.saved or ())

    @property
    def recomputed_bytes(self) -> int:
        return sum(s.nbytes for s in self.saved or () if s.role == "recomputed")

    def lines(self, show_saved: bool = True, show_grad: bool = False) -> list[str]:
        """The text of this node's box, one line per entry."""
        lines = [self.name]
        if self.kind == "more":
            return lines
        if self.shape is not None:
            if isinstance(self.shape, list):
                lines.append(", ".join(_fmt_shape(s) for s in self.shape) + f" {self.dtype}")
            else:
                lines.append(f"{_fmt_shape(self.shape)} {self.dtype}")
        if self.note:
            lines.append(self.note)
        if show_saved and self.kind == "op":
            lines.extend(_saved_lines(self.saved))
        if show_grad and self.kind == "leaf":
            lines.append(
                "grad: none" if self.grad_norm is None else f"grad norm {self.grad_norm:.3g}"
            )
        return lines


@dataclass
class Block:
    """A run of ``repeats`` identical blocks, drawn once: ``node_ids`` are the nodes drawn for
    it, ``hidden`` how many nodes the other repeats hold."""

    repeats: int
    node_ids: list[int]
    hidden: int


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
    return _finish(raw, max_nodes, collapse, show_saved, show_grad)


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


# ---------------------------------------------------------------------- walking the graph
class _Raw:
    """The whole graph as walked: vertices by key, and per vertex its inputs (keys)."""

    def __init__(self) -> None:
        self.nodes: dict[Any, Node] = {}
        self.inputs: dict[Any, list] = {}  # key -> input keys, in argument order
        self.order: list = []  # keys in the order met, outputs first
        self.walked_all = True


def _param_names(params: Any) -> dict[int, str]:
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        items = params.named_parameters()
    elif isinstance(params, Mapping):
        items = params.items()
    elif isinstance(params, Iterable):
        items = params
    else:
        raise TypeError(
            f"graph: params must be a Module, named_parameters() or a dict, got "
            f"{type(params).__name__}"
        )
    names = {}
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise TypeError("graph: params must hold (name, tensor) pairs")
        names.setdefault(id(item[1]), str(item[0]))
    return names


def _walk(tensors: list, names: dict[int, str], show_broadcast: bool) -> _Raw:
    raw = _Raw()
    segments: dict[int, int] = {}  # id(recomputation) -> segment number
    out_meta: dict[Any, dict[int, tuple]] = {}  # key -> output_nr -> (shape, dtype)

    def key_of(vertex: Any) -> Any:
        return id(vertex)

    def add(vertex: Any) -> Any:
        k = key_of(vertex)
        if k in raw.nodes:
            return k
        if read.is_node(vertex):
            node = Node(len(raw.nodes), "op", read.op_name(vertex), obj=vertex)
            node.saved = read.saved_of(vertex)
            frame = read.recomputation_of(vertex)
            if frame is not None:
                node.segment = segments.setdefault(id(frame), len(segments) + 1)
                node.note = f"recomputed in backward (segment {node.segment})"
            elif read.is_reentrant_checkpoint(vertex):
                node.note = "checkpoint: its ops run again in backward"
                node.segment = 0
        else:
            name = names.get(id(vertex))
            node = Node(len(raw.nodes), "leaf", name or "tensor", obj=vertex)
            node.shape, node.dtype = tuple(vertex._data.shape), read.dtype_name(vertex._data.dtype)
            node.grad_norm = read.grad_norm(vertex)
        raw.nodes[k] = node
        raw.inputs[k] = []
        raw.order.append(k)
        return k

    queue: deque = deque()
    for t in tensors:
        vertex = t.grad_fn or t
        k = add(vertex)
        raw.nodes[k].is_output = True
        out_meta.setdefault(k, {})[t._output_nr] = (tuple(t._data.shape), t._data.dtype)
        queue.append(vertex)
    seen = {key_of(v) for v in queue}
    while queue:
        vertex = queue.popleft()
        k = key_of(vertex)
        for i, edge in enumerate(read.edges_of(vertex) if read.is_node(vertex) else ()):
            if edge is None:
                continue
            child, nr, shape, dtype = edge[0], edge[1], edge[2], edge[3]
            if len(raw.nodes) >= _WALK_LIMIT and key_of(child) not in raw.nodes:
                raw.walked_all = False
                continue
            ck = add(child)
            out_meta.setdefault(ck, {}).setdefault(nr, (tuple(shape), dtype))
            raw.inputs[k].append((ck, i, tuple(shape)))
            if ck not in seen:
                seen.add(ck)
                queue.append(child)

    # Output shapes and dtypes of the op nodes: what their users received.
    for k, node in raw.nodes.items():
        if node.kind != "op":
            continue
        metas = read.output_meta(node.obj)
        if metas:
            node.shape = [tuple(s) for s, _ in metas]
            node.dtype = read.dtype_name(metas[0][1])
        elif k in out_meta:
            shape, dtype = out_meta[k][min(out_meta[k])]
            node.shape, node.dtype = shape, read.dtype_name(dtype)
    # Broadcasting undone by the engine: a sum_to box on the edge.
    for k in list(raw.order):
        node = raw.nodes[k]
        if not show_broadcast or node.kind != "op" or isinstance(node.shape, list):
            continue
        if read.op_module(node.obj) not in _SUM_BACK_MODULES or node.shape is None:
            continue
        fixed = []
        for ck, i, shape in raw.inputs[k]:
            if shape != node.shape and _broadcasts(shape, node.shape):
                sk = ("sum_to", k, i)
                s = Node(len(raw.nodes), "sum_to", "sum_to", shape, raw.nodes[ck].dtype)
                s.note = f"sums {_fmt_shape(node.shape)} back"
                raw.nodes[sk], raw.inputs[sk] = s, [(ck, 0, shape)]
                raw.order.append(sk)
                fixed.append((sk, i, shape))
            else:
                fixed.append((ck, i, shape))
        raw.inputs[k] = fixed
    return raw


def _broadcasts(small: tuple, big: tuple) -> bool:
    """Does ``small`` broadcast to ``big`` (NumPy's rule, read from the right)?"""
    if len(small) > len(big):
        return False
    return all(s == b or s == 1 for s, b in zip(reversed(small), reversed(big)))


# ---------------------------------------------------------------------- collapsing, cutting
def _finish(raw: _Raw, max_nodes: int, collapse: bool, show_saved: bool, show_grad: bool):
    keys = list(raw.order)
    inputs = {k: [c for c, _, _ in raw.inputs[k]] for k in keys}
    hidden: set = set()
    block_keys: list[tuple[int, list, int]] = []
    roots = [k for k in keys if raw.nodes[k].is_output]
    redirect: dict = {}  # a hidden repeat's spine vertex -> its stand-in in the drawn block
    if collapse:
        runs, redirect = _find_runs(roots[0], inputs, raw.nodes)
        for _, _, gone in runs:
            hidden |= gone
        # A hidden vertex that a drawn one uses directly (a weight shared by every repeat) is
        # drawn after all; a hidden spine vertex is replaced by its stand-in instead.
        # One pass over a worklist: each vertex made visible is checked once for its own inputs
        # (rescanning every vertex until nothing changes was quadratic on long chains).
        todo = [k for k in keys if k not in hidden]
        while todo:
            k = todo.pop()
            for c in inputs[k]:
                if c in hidden and c not in redirect:
                    hidden.discard(c)
                    todo.append(c)
        for repeats, shown, gone in runs:
            block_keys.append((repeats, shown, len(gone & hidden)))
    edges = []
    for k in keys:
        if k in hidden:
            continue
        for c in inputs[k]:
            c = redirect.get(c, c)
            if c in hidden:
                continue
            edges.append((c, k))
    # Keep the first max_nodes visible vertices in walking order (outputs first).
    visible = [k for k in keys if k not in hidden]
    used: set = set()
    order = []
    by_consumer = {}
    for c, k in edges:
        by_consumer.setdefault(k, []).append(c)
    queue = deque(roots)
    used.update(roots)
    while queue:
        k = queue.popleft()
        order.append(k)
        for c in by_consumer.get(k, ()):
            if c not in used:
                used.add(c)
                queue.append(c)
    left_out = len(visible) - min(len(order), max_nodes)
    kept = order[:max_nodes]
    kept_set = set(kept)
    nodes = []
    new_id = {}
    for k in kept:
        n = raw.nodes[k]
        n.id = new_id[k] = len(nodes)
        nodes.append(n)
    out_edges = list(dict.fromkeys((new_id[c], new_id[k]) for c, k in edges
                                   if c in kept_set and k in kept_set))  # fmt: skip
    if left_out > 0 or not raw.walked_all:
        more = Node(len(nodes), "more", f"... {left_out} more nodes not drawn")
        frontier = {new_id[k] for c, k in edges if k in kept_set and c not in kept_set}
        nodes.append(more)
        out_edges.extend((more.id, f) for f in sorted(frontier))
        left_out = max(left_out, 1)
    blocks = [
        Block(repeats, [new_id[k] for k in shown if k in kept_set], gone)
        for repeats, shown, gone in block_keys
    ]
    blocks = [b for b in blocks if b.node_ids]
    _depths(nodes, out_edges)
    return Graph(nodes, out_edges, blocks, max(left_out, 0), max_nodes, raw.walked_all,
                 show_saved, show_grad)  # fmt: skip


def _depths(nodes: list[Node], edges: list[tuple[int, int]]) -> None:
    """Each node's longest distance from an output (Kahn's order over consumer -> input)."""
    users = {n.id: 0 for n in nodes}
    inputs: dict[int, list] = {n.id: [] for n in nodes}
    for a, b in edges:
        users[a] += 1
        inputs[b].append(a)
    by_id = {n.id: n for n in nodes}
    ready = [i for i, u in users.items() if u == 0]
    for n in nodes:
        n.depth = 0
    while ready:
        i = ready.pop()
        for a in inputs[i]:
            by_id[a].depth = max(by_id[a].depth, by_id[i].depth + 1)
            users[a] -= 1
            if users[a] == 0:
                ready.append(a)


def _find_runs(root: Any, inputs: dict, nodes: dict) -> tuple[list, dict]:
    """Runs of MIN_REPEATS or more identical blocks along the graph's spine.

    The spine: from the output, always into the input with the deepest graph behind it (for a
    stack of layers, the layers). Each spine vertex owns the side vertices only it reaches
    (its parameters, a bias cast, ...). Two spine vertices are alike when their ops, output
    shapes and dtypes, and the side graphs they own (leaf shapes included, names excluded)
    are; a block is a stretch of p spine vertices, and a run is a block repeated. The drawn
    block is the last repeat (nearest the inputs); edges into the hidden repeats go to their
    stand-in in it: returned as (runs, redirect), a run as (repeats, drawn keys, hidden keys)."""
    redirect: dict = {}
    height = _heights(root, inputs, nodes)
    spine = [root]
    at = {root: 0}  # spine vertex -> its position (a dict: membership in O(1), not a list scan)
    while True:
        deeper = [c for c in inputs[spine[-1]] if nodes[c].kind != "leaf"]
        if not deeper:
            break
        nxt = max(deeper, key=lambda c: height[c])
        if nxt in at:  # (cannot happen in a DAG; a guard)
            break
        at[nxt] = len(spine)
        spine.append(nxt)
    owner: dict = {}
    for i, k in enumerate(spine):
        stack = [c for c in inputs[k] if c not in at]
        while stack:
            v = stack.pop()
            if v in owner or v in at:
                continue
            owner[v] = i
            stack.extend(c for c in inputs[v] if c not in at)
    interned: dict = {}
    memo: dict = {}

    def side_sig(v: Any, base: int, depth: int = 0) -> int:
        if (v, base) in memo:
            return memo[v, base]
        n = nodes[v]
        if depth > 50:
            parts: tuple = ("deep", v)
        else:
            kids = tuple(("spine", at[c] - base) if c in at else side_sig(c, base, depth + 1)
                         for c in inputs[v])  # fmt: skip
            parts = (n.kind, n.name if n.kind != "leaf" else "", _shape_key(n.shape), n.dtype,
                     n.segment is not None, kids)  # fmt: skip
        memo[v, base] = interned.setdefault(parts, len(interned))
        return memo[v, base]

    sigs = []
    for i, k in enumerate(spine):
        n = nodes[k]
        kids = tuple(("spine", at[c] - i) if c in at else side_sig(c, i) for c in inputs[k])
        sigs.append(interned.setdefault(
            (n.kind, n.name, _shape_key(n.shape), n.dtype, n.segment is not None, kids),
            len(interned)))  # fmt: skip
    total = len(spine)
    runs = []
    for p in range(1, min(total // MIN_REPEATS, 64) + 1):
        i = 0
        while i + p < total:
            j = i
            while j + p < total and sigs[j] == sigs[j + p]:
                j += 1
            repeats = (j - i) // p + 1
            if repeats >= MIN_REPEATS:
                runs.append(((repeats - 1) * p, p, i, repeats))
                i += repeats * p
            else:
                i += 1
    runs.sort(key=lambda r: (-r[0], r[1]))
    taken: set = set()
    members: dict[int, list] = {}
    for i, k in enumerate(spine):
        members.setdefault(i, []).append(k)
    for v, i in owner.items():
        members[i].append(v)
    found = []
    for _, p, start, repeats in runs:
        span = set(range(start, start + repeats * p))
        if span & taken:
            continue
        taken |= span
        last = start + (repeats - 1) * p
        shown = [v for i in range(last, last + p) for v in members[i]]
        gone = {v for i in range(start, last) for v in members[i]}
        for m in range(start, last):
            redirect[spine[m]] = spine[last + (m - start) % p]
        # A leaf shared with the drawn block (a weight used in every repeat) stays drawn.
        gone -= set(shown)
        found.append((repeats, shown, gone))
    return found, redirect


def _heights(root: Any, inputs: dict, nodes: dict) -> dict:
    """Per vertex, the longest path from it down to a leaf (post-order, without recursion)."""
    height: dict = {}
    stack = [(root, False)]
    while stack:
        v, done = stack.pop()
        if done:
            height[v] = 1 + max((height.get(c, 0) for c in inputs[v]), default=-1)
            continue
        if v in height:
            continue
        stack.append((v, True))
        stack.extend((c, False) for c in inputs[v] if c not in height)
    return height


# ---------------------------------------------------------------------- text
def _shape_key(shape: Any) -> Any:
    return tuple(tuple(s) for s in shape) if isinstance(shape, list) else shape


def _fmt_shape(shape: Any) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _saved_lines(saved: list | None) -> list[str]:
    if saved is None:
        return ["saved: freed by backward"]
    if not saved:
        return []
    parts = []
    for s in saved[:2]:
        what = f"{s.role} {_fmt_shape(s.shape)}" if s.shape is not None else s.role
        parts.append(f"{what} {fmt_bytes(s.nbytes)}" if s.shape is not None else what)
    lines = ["saved: " + parts[0]] + ["       " + p for p in parts[1:]]
    if len(saved) > 2:
        rest = sum(s.nbytes for s in saved[2:])
        lines.append(f"       +{len(saved) - 2} more, {fmt_bytes(rest)}")
    return lines


def _dot_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _dot_id(name: str) -> str:
    return name if name.isidentifier() else f'"{_dot_escape(name)}"'
