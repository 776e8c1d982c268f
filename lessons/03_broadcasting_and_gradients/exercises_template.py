"""Chapter 3 exercises: broadcasting, and the gradients of the ops that use it.

Plain NumPy here: you write the backward formulas that minigenesis's ops and engine contain, and
the checks compare them with minigenesis's autograd.

    python -m pytest lessons/03_broadcasting_and_gradients
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Exercise 3.1: the shape of ``x + y`` for arrays of shapes ``a`` and ``b``.

    Align the shapes on the RIGHT (pad the shorter one with 1s on the left); in each position the
    sizes must be equal or one of them 1, and the result takes the other one (a 1 stretches to
    any size, even to 0: shapes (1,) and (0,) give (0,), not the larger). Otherwise raise
    ``ValueError`` with a message that names both shapes and the first dimension that disagrees,
    counted from the right as ``dim -1``, ``dim -2``, ... e.g.
    ``"shapes (2, 3) and (4,) cannot be broadcast: 3 vs 4 in dim -1"``. Work on the tuples
    (no NumPy here: the checks compare with NumPy's broadcasting).
    """
    raise NotImplementedError(
        "Exercise 3.1: align right, pad with 1s, check each dim, a 1 takes the other size"
    )


def sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Exercise 3.2: undo broadcasting in a gradient: sum ``grad`` down to ``shape``.

    If ``x`` of shape ``shape`` was broadcast to ``grad.shape``, every copy of an element got its
    own gradient and they must be ADDED: sum over the leading dims that broadcasting added, and
    over the dims where ``shape`` has a 1 (keeping them as 1). Return an array of exactly ``shape``.
    NumPy sums only: this is the step minigenesis's engine takes, so the check does not let it
    ask minigenesis.
    """
    raise NotImplementedError("Exercise 3.2: sum the added leading dims and the size-1 dims")


def numerical_grad(
    f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6
) -> np.ndarray:
    """Exercise 3.3: the gradient of a scalar function ``f`` at ``x`` by central differences.

    For each element i: (f(x + eps e_i) - f(x - eps e_i)) / (2 eps), where e_i is 1 at i and 0
    elsewhere. ``x`` is float64; do not modify the caller's array (work on a copy). The result has
    ``x``'s shape.
    """
    raise NotImplementedError("Exercise 3.3: perturb one element at a time, +eps and -eps")


def linear_backward(
    x: np.ndarray, w: np.ndarray, b: np.ndarray, grad_out: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exercise 3.4: gradients of y = x @ w.T + b (PyTorch's Linear: w has shape (out, in)).

    x: (N, in), w: (out, in), b: (out,) broadcast over the N rows, grad_out = dL/dy: (N, out).
    Return (dL/dx, dL/dw, dL/db), each of its input's shape. The bias gradient is a sum_to.
    NumPy only: the check compares with minigenesis's autograd and does not let the answer call it.
    """
    raise NotImplementedError("Exercise 3.4: return (dL/dx, dL/dw, dL/db) for y = x @ w.T + b")


def softmax_backward(y: np.ndarray, grad_out: np.ndarray) -> np.ndarray:
    """Exercise 3.5: the gradient of softmax along the last axis, given its OUTPUT y.

    With y = softmax(x) and g = dL/dy, the chain rule gives dL/dx_j = sum_i g_i dy_i/dx_j, and
    dy_i/dx_j = y_i (delta_ij - y_j). Split the delta term from the rest and you never need the
    (n, n) Jacobian: one elementwise product and one sum along the last axis (keepdims). NumPy
    only, as in 3.4.
    """
    raise NotImplementedError("Exercise 3.5: the softmax vector-Jacobian product from y and g")


def quiz() -> dict[str, str]:
    """Exercise 3.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 4 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 3.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
