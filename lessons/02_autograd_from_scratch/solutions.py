"""Chapter 2 solutions: reverse-mode automatic differentiation from scratch."""

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
    """Exercise 2.1: z = a * b (elementwise), with its backward."""

    def backward_fn(gz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return gz * b.data, gz * a.data

    return Node(a.data * b.data, (a, b), backward_fn, "mul")


def tanh(a: Node) -> Node:
    """Exercise 2.2: y = tanh(a), with its backward."""
    y = np.tanh(a.data)

    def backward_fn(gy: np.ndarray) -> tuple[np.ndarray]:
        return (gy * (1.0 - y * y),)

    return Node(y, (a,), backward_fn, "tanh")


def topological_order(root: Node) -> list[Node]:
    """Exercise 2.3: every node ``root`` depends on, each once, every node after its parents."""
    order: list[Node] = []
    visited: set[int] = set()
    # Each stack entry is (node, parents_done): a node is emitted on its second visit, once all
    # of its parents have been emitted -- the iterative form of a post-order depth-first search.
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        for parent in node.parents:
            if id(parent) not in visited:
                stack.append((parent, False))
    return order


def backward(root: Node) -> None:
    """Exercise 2.4: fill ``.grad`` of every node with d(root)/d(node)."""
    order = topological_order(root)
    for node in order:
        node.grad = np.zeros_like(node.data)
    root.grad = np.ones_like(root.data)
    for node in reversed(order):
        if node.backward_fn is None:
            continue
        for parent, g in zip(node.parents, node.backward_fn(node.grad)):
            parent.grad = parent.grad + g


def graph_lists(
    root: mg.Tensor, names: dict[str, mg.Tensor]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Exercise 2.5: the boxes and arrows ``mg.viz.draw_graph(root, params=names)`` will draw."""
    leaf_names = {id(t): name for name, t in names.items()}

    def name(vertex) -> str:
        if isinstance(vertex, mg.Tensor):
            return leaf_names.get(id(vertex), "tensor")
        return vertex.name

    start = root.grad_fn or root
    seen, stack = {id(start): start}, [start]
    boxes, arrows = [], set()
    while stack:
        vertex = stack.pop()
        boxes.append(name(vertex))
        for edge in getattr(vertex, "next_edges", ()):
            if edge is None:
                continue
            child = edge[0]
            arrows.add((id(child), id(vertex)))
            if id(child) not in seen:
                seen[id(child)] = child
                stack.append(child)
    return boxes, [(name(seen[a]), name(seen[b])) for a, b in arrows]


class Softplus(mg.autograd.Function):
    """Exercise 2.6: softplus(x) = log(1 + e^x) as a custom minigenesis Function."""

    @staticmethod
    def forward(ctx, x: mg.Tensor) -> mg.Tensor:
        """Exercise 2.6 (forward)."""
        ctx.save_for_backward(x)
        return mg.maximum(x, mg.zeros_like(x)) + (1 + (-x.abs()).exp()).log()

    @staticmethod
    def backward(ctx, grad_output: mg.Tensor) -> mg.Tensor:
        """Exercise 2.6 (backward)."""
        (x,) = ctx.saved_tensors
        return grad_output * x.sigmoid()


def quiz() -> dict[str, str]:
    """Exercise 2.7: the answers to the self-check questions, each with the reason."""
    return {
        # a is used twice; each use sends gz * (the other input) = 2, and gradients of a value used
        # several times add up: 2 + 2 = 4.
        "q1": "c",
        # Inputs-first order runs mul's backward_fn while mul.grad is still 0, so x and w receive 0;
        # tanh runs last and fills mul.grad, too late. Reversed order runs a node only after every
        # consumer has delivered.
        "q2": "d",
        # Recursion needs one Python frame per level of depth, and Python stops at about 1,000; the
        # order and the cost are the same with a stack, the depth limit is not.
        "q3": "a",
        # Tensor ops are recorded when grad mode is on; create_graph=True turns it on during
        # backward, so the gradient has a grad_fn and autograd.grad can differentiate it.
        "q4": "d",
    }
