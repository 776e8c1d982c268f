"""Which leaves a tensor's recorded graph reaches: what nested transforms ask of the graph.

A function transform (``func.grad``, ``func.jvp``, forward-mode dual numbers) differentiates
with respect to variables of its own. Its results must keep their graph only where they also
depend on something the caller still tracks (a tensor of an outer transform, a parameter that
requires grad); otherwise they leave the transform as plain tensors. ``reaches_other_leaves``
answers that by walking the recorded graph from the tensor back to its leaves."""

from __future__ import annotations

from typing import Any

from .tensor_base import TensorBase


def reaches_other_leaves(tensor: Any, own: list) -> bool:
    """Whether ``tensor`` depends, through the recorded graph, on a leaf that requires grad
    other than those in ``own`` (compared by identity). A tensor that does not require grad
    depends on none."""
    if not isinstance(tensor, TensorBase) or not tensor.requires_grad:
        return False
    mine = {id(t) for t in own}
    if tensor.grad_fn is None:  # a leaf itself
        return id(tensor) not in mine
    seen, to_walk = set(), [tensor.grad_fn]
    while to_walk:
        for edge in to_walk.pop().next_edges or ():
            if edge is None or id(edge[0]) in seen:
                continue
            vertex = edge[0]
            seen.add(id(vertex))
            if isinstance(vertex, TensorBase):  # a leaf that requires grad
                if id(vertex) not in mine:
                    return True
            else:  # a node: walk on to its inputs
                to_walk.append(vertex)
    return False
