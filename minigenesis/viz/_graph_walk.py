"""Walking the autograd graph behind some tensors, outputs first: one ``Node`` per op node and
per leaf, the edges from each op to its inputs, what each op saved, and a ``sum_to`` box where
the engine sums a broadcast gradient back to an input's shape.

The walk is breadth-first and stops after ``_WALK_LIMIT`` vertices (the picture then says it is
cut); ``_graph_collapse.py`` decides what of the walked graph is drawn.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from . import _graph_read as read
from ._graph_nodes import Node, _fmt_shape

_WALK_LIMIT = 50_000  # vertices walked at most (a longer graph is cut there, with a note)
_SUM_BACK_MODULES = ("elementwise", "math_functions")  # ops whose gradients the engine sums back


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
