"""Chapter 3 solutions: broadcasting, and the gradients of the ops that use it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Exercise 3.1: the shape of ``x + y`` for arrays of shapes ``a`` and ``b``."""
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    out = []
    for dim, (i, j) in enumerate(zip(pa, pb)):
        if i != j and i != 1 and j != 1:
            raise ValueError(
                f"shapes {tuple(a)} and {tuple(b)} cannot be broadcast: {i} vs {j} in dim {dim - n}"
            )
        out.append(j if i == 1 else i)  # a size-1 dim stretches to the other (even to 0)
    return tuple(out)


def sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Exercise 3.2: undo broadcasting in a gradient: sum ``grad`` down to ``shape``."""
    lead = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(lead))) if lead else grad
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad.reshape(shape)


def numerical_grad(
    f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6
) -> np.ndarray:
    """Exercise 3.3: the gradient of a scalar function ``f`` at ``x`` by central differences."""
    x = np.array(x, dtype=np.float64)  # a copy
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)  # views of the copy and of the result
    for i in range(flat.size):
        orig = flat[i]
        flat[i] = orig + eps
        plus = f(x)
        flat[i] = orig - eps
        minus = f(x)
        flat[i] = orig
        gflat[i] = (plus - minus) / (2 * eps)
    return grad


def linear_backward(
    x: np.ndarray, w: np.ndarray, b: np.ndarray, grad_out: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exercise 3.4: gradients of y = x @ w.T + b (PyTorch's Linear: w has shape (out, in))."""
    gx = grad_out @ w
    gw = grad_out.T @ x
    gb = sum_to(grad_out, b.shape)
    return gx, gw, gb


def softmax_backward(y: np.ndarray, grad_out: np.ndarray) -> np.ndarray:
    """Exercise 3.5: the gradient of softmax along the last axis, given its OUTPUT y."""
    return y * (grad_out - (grad_out * y).sum(axis=-1, keepdims=True))


def quiz() -> dict[str, str]:
    """Exercise 3.6: the answers to the self-check questions, each with the reason."""
    return {
        # x + y has shape (3, 4); each entry of x was used 4 times along the broadcast axis, so its
        # gradient sums 4 ones, and the gradient has x's own shape.
        "q1": "b",
        # It only removes the leading axes broadcasting added; an axis of size 1 that broadcasting
        # stretched (1 -> 3) must be summed too, with keepdims. (2, 3) -> (2, 1) returns (2, 3).
        "q2": "d",
        # f(x+h) - f(x-h) = 2h f'(x) + O(h^3): the even terms cancel, so the error is O(h^2); the
        # forward difference keeps the h f''/2 term. Rounding still grows as h shrinks.
        "q3": "a",
        # Backward only ever needs g^T J; for an elementwise op J is diagonal and g^T J is an
        # elementwise product, for matmul it is another matmul. The Jacobian is never formed.
        "q4": "a",
    }
