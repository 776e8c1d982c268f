"""Which leaves a tensor's recorded graph reaches: what nested transforms ask of the graph.

A function transform (``func.grad``, ``func.jvp``, forward-mode dual numbers) differentiates
with respect to variables of its own. Its results must keep their graph only where they also
depend on something the caller still tracks (a tensor of an outer transform, a parameter that
requires grad); otherwise they leave the transform as plain tensors. ``reaches_other_leaves``
answers that by walking the recorded graph from the tensor back to its leaves.

A transform's own fresh leaves stay in the graphs it returns (an inner ``vjp``'s gradient
cos(x y) x still hangs off the inner variable y), but nothing outside can differentiate with
respect to them once the transform has returned. The transform ``retire``s them then, and the
walk ignores retired leaves: otherwise an outer transform would take them for tensors tracked
outside it and keep its own results' graph for nobody."""

from __future__ import annotations

import weakref
from typing import Any

from .tensor_base import TensorBase

# id(leaf) -> weak reference to it, for the fresh leaves of transforms that have returned
# (ids, not a WeakSet: a WeakSet compares live tensors with ==, which is elementwise)
_retired: dict[int, weakref.ref] = {}


def retire(variables: list) -> None:
    """Mark a finished transform's fresh leaves (``variables``; non-leaves are skipped) as no
    longer tracked by anyone: ``reaches_other_leaves`` does not count them from now on."""
    for t in variables:
        if isinstance(t, TensorBase) and t.grad_fn is None:
            key = id(t)
            _retired[key] = weakref.ref(t, lambda _, key=key: _retired.pop(key, None))


def _is_retired(leaf: Any) -> bool:
    ref = _retired.get(id(leaf))
    return ref is not None and ref() is leaf


def reaches_other_leaves(tensor: Any, own: list) -> bool:
    """Whether ``tensor`` depends, through the recorded graph, on a leaf that requires grad
    other than those in ``own`` (compared by identity) and not retired. A tensor that does not
    require grad depends on none."""
    if not isinstance(tensor, TensorBase) or not tensor.requires_grad:
        return False
    mine = {id(t) for t in own}
    if tensor.grad_fn is None:  # a leaf itself
        return id(tensor) not in mine and not _is_retired(tensor)
    seen, to_walk = set(), [tensor.grad_fn]
    while to_walk:
        for edge in to_walk.pop().next_edges or ():
            if edge is None or id(edge[0]) in seen:
                continue
            vertex = edge[0]
            seen.add(id(vertex))
            if isinstance(vertex, TensorBase):  # a leaf that requires grad
                if id(vertex) not in mine and not _is_retired(vertex):
                    return True
            else:  # a node: walk on to its inputs
                to_walk.append(vertex)
    return False
