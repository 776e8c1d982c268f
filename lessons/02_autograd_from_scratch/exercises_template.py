"""Chapter 2 exercises: reverse-mode automatic differentiation from scratch.

You build a tiny engine on NumPy arrays (float64, elementwise ops only, no broadcasting), then
write a custom minigenesis ``Function``. The checks compare your gradients with minigenesis's.

    python -m pytest lessons/02_autograd_from_scratch
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import minigenesis as mg


class Node:
    """A value in the graph: its data, the gradient accumulated into it, and how it was made.

    ``parents`` are the nodes this one was computed from; ``backward_fn(grad_output)`` returns one
    gradient per parent (the chain rule's local step). Leaves have no parents. (Given: not an
    exercise.)
    """

    def __init__(
        self,
        data: np.ndarray | float,
        parents: tuple[Node, ...] = (),
        backward_fn: Callable[[np.ndarray], tuple[np.ndarray, ...]] | None = None,
        op: str = "",
    ) -> None:
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.parents = parents
        self.backward_fn = backward_fn
        self.op = op

    def __repr__(self) -> str:
        return f"Node(op={self.op or 'leaf'!r}, shape={self.data.shape})"


def add(a: Node, b: Node) -> Node:
    """z = a + b;  dz/da = 1, dz/db = 1. (Given: the pattern for the ops you write.)"""

    def backward_fn(gz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return gz, gz

    return Node(a.data + b.data, (a, b), backward_fn, "add")


def exp(a: Node) -> Node:
    """y = e^a;  dy/da = e^a = y. (Given.)"""
    y = np.exp(a.data)

    def backward_fn(gy: np.ndarray) -> tuple[np.ndarray]:
        return (gy * y,)

    return Node(y, (a,), backward_fn, "exp")


def mul(a: Node, b: Node) -> Node:
    """Exercise 2.1: z = a * b (elementwise), with its backward.

    dz/da = b and dz/db = a, so ``backward_fn(gz)`` returns ``(gz * b, gz * a)`` (the arrays).
    Follow ``add`` above.
    """
    raise NotImplementedError(
        "Exercise 2.1: return a Node for a * b whose backward_fn gives gz*b, gz*a"
    )


def tanh(a: Node) -> Node:
    """Exercise 2.2: y = tanh(a), with its backward.

    dy/da = 1 - tanh(a)^2 = 1 - y^2: compute y once in the forward and reuse it in backward_fn.
    """
    raise NotImplementedError("Exercise 2.2: return a Node for tanh(a) whose backward uses 1 - y^2")


def topological_order(root: Node) -> list[Node]:
    """Exercise 2.3: every node ``root`` depends on (``root`` included), each exactly once, every
    node AFTER all of its parents.

    Use an explicit stack rather than recursion: a chain of 5,000 ops must work (Python's
    recursion limit is 1,000). Nodes are compared by identity (``id(node)``). Expand each node
    once: remember every node you have reached and skip it when another path reaches it again
    (``y = y + y`` 40 times is 41 nodes but 2**40 paths).
    """
    raise NotImplementedError("Exercise 2.3: depth-first search from root with an explicit stack")


def backward(root: Node) -> None:
    """Exercise 2.4: fill ``.grad`` of every node with d(root)/d(node).

    Seed ``root.grad`` with ones, then visit the nodes in REVERSE topological order (a node's
    gradient is complete once everything computed from it has been visited); for each node with a
    ``backward_fn``, pass it the node's gradient and ADD each returned gradient into its parent's
    ``.grad`` (a node used twice receives two contributions). Reset every ``.grad`` to zeros
    first, so that calling backward twice gives the same result.
    """
    raise NotImplementedError(
        "Exercise 2.4: seed ones, walk reversed topological_order, accumulate"
    )


def graph_lists(
    root: mg.Tensor, names: dict[str, mg.Tensor]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Exercise 2.5: the boxes and arrows ``mg.viz.draw_graph(root, params=names)`` will draw.

    Walk minigenesis's graph from ``root.grad_fn`` through each node's ``next_edges`` (an entry is
    ``None`` for an input that needs no gradient, else a tuple whose first item is the input's
    node, or the leaf tensor itself). Return

    - the boxes: one name per vertex, each vertex once (compare them with ``is``/``id``, not
      ``==``): a node's ``fn.name`` (``"Mul"``), a leaf's key in ``names`` (``"a"``), or
      ``"tensor"`` for a leaf not in ``names``;
    - the arrows: ``(input's name, op's name)``, one per distinct (input vertex, op) pair, so
      ``x * x`` gives one arrow from ``x`` into its ``Mul``.

    Order does not matter.
    """
    raise NotImplementedError(
        "Exercise 2.5: walk grad_fn.next_edges once per vertex; name nodes and leaves"
    )


class Softplus(mg.autograd.Function):
    """Exercise 2.6: softplus(x) = log(1 + e^x) as a custom minigenesis Function.

    - ``forward(ctx, x)``: x is a Tensor; save what backward needs with ``ctx.save_for_backward``
      and return the result. Compute it stably: ``log(1 + e^x) = max(x, 0) + log(1 + e^-|x|)``.
    - ``backward(ctx, grad_output)``: d softplus/dx = sigmoid(x); return
      ``grad_output * x.sigmoid()``, built from Tensor ops so that second derivatives work too.

    Use it as ``Softplus.apply(x)``.
    """

    @staticmethod
    def forward(ctx, x: mg.Tensor) -> mg.Tensor:
        """Exercise 2.6 (forward)."""
        raise NotImplementedError("Exercise 2.6: compute softplus stably and save x for backward")

    @staticmethod
    def backward(ctx, grad_output: mg.Tensor) -> mg.Tensor:
        """Exercise 2.6 (backward)."""
        raise NotImplementedError("Exercise 2.6: return grad_output * sigmoid(x) with Tensor ops")


def quiz() -> dict[str, str]:
    """Exercise 2.7: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 4 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 2.7: return {'q1': letter, ...}, your answers to the self-check questions"
    )
