"""The fuzzer's structural steps: ops whose arguments depend on the shape they receive (shape
ops, products, softmax, losses), drawn for the current shape so that every program is valid.

Each draw names a database entry and the arguments after the input: a NumPy array is a tensor
(float: a partner operand in the program's dtype; integer: class indices), anything else is
passed as is. The entry's ``call`` runs it, its ``ref`` is the float64 oracle, as for the
pointwise steps.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# (entry id, draw(rng, shape) -> (extra args, kwargs) or None when the shape does not fit)
Draw = Callable[[np.random.Generator, tuple], "tuple[tuple, dict] | None"]


def _reshape(rng, shape):
    n = int(np.prod(shape))
    if not shape or n == 0:
        return None
    options = [(n,), tuple(reversed(shape)), (-1, shape[-1])]
    if n % 2 == 0:
        options.append((2, n // 2))
    return (options[rng.integers(len(options))],), {}


def _permute(rng, shape):
    return ((tuple(int(d) for d in rng.permutation(len(shape))),), {}) if len(shape) >= 2 else None


def _transpose(rng, shape):
    if len(shape) < 2:
        return None
    d0, d1 = rng.choice(len(shape), 2, replace=False)
    return (int(d0), int(d1) - len(shape)), {}  # a negative dim too


def _expand(rng, shape):
    """A new leading dim of size 2, and any size-1 dim widened to 2 (a broadcast view)."""
    if len(shape) >= 3:
        return None
    return (2, *[2 if s == 1 else -1 for s in shape]), {}


def _narrow(rng, shape):
    dims = [d for d, s in enumerate(shape) if s >= 2]
    if not dims:
        return None
    d = dims[rng.integers(len(dims))]
    length = int(rng.integers(1, shape[d]))
    start = int(rng.integers(0, shape[d] - length + 1))
    return (d, start, length), {}


def _operand(rng, *shape):
    return rng.uniform(-1.0, 1.0, shape)


def _matmul(rng, shape):
    if not shape:
        return None
    return (_operand(rng, shape[-1], int(rng.integers(1, 4))),), {}


def _linear(rng, shape):
    if not shape:
        return None
    k = int(rng.integers(1, 4))
    bias = (_operand(rng, k),) if rng.random() < 0.5 else ()
    return (_operand(rng, k, shape[-1]), *bias), {}


def _dim(rng, shape):
    return ((int(rng.integers(-len(shape), len(shape))),), {}) if shape else None


def _same(lo: float, hi: float) -> Draw:
    def draw(rng, shape):
        reduction = ("mean", "sum", "none")[rng.integers(3)]
        return (rng.uniform(lo, hi, shape),), {"reduction": reduction}

    return draw


def _cross_entropy(rng, shape):
    if len(shape) != 2 or shape[1] < 2 or shape[0] == 0:
        return None
    reduction = ("mean", "sum", "none")[rng.integers(3)]
    return (rng.integers(0, shape[1], shape[0]),), {"reduction": reduction}


SHAPE_STEPS: dict[str, Draw] = {
    "reshape": _reshape,
    "permute": _permute,
    "transpose": _transpose,
    "Tensor.expand": _expand,
    "narrow": _narrow,
    "matmul": _matmul,
    "F.linear": _linear,
    "softmax": _dim,
    "log_softmax": _dim,
}

# the last step of a program that ends in a loss
LOSSES: dict[str, Draw] = {
    "F.mse_loss": _same(-1.0, 1.0),
    "F.l1_loss": _same(-1.0, 1.0),
    "F.smooth_l1_loss": _same(-1.0, 1.0),
    "F.huber_loss": _same(-1.0, 1.0),
    "F.binary_cross_entropy_with_logits": _same(0.0, 1.0),
    "F.cross_entropy": _cross_entropy,
}
