"""The inverse hyperbolic functions and their derivatives:

    asinh x = log(x + sqrt(x^2 + 1))         d/dx = 1 / sqrt(x^2 + 1)
    acosh x = log(x + sqrt(x^2 - 1)), x >= 1  d/dx = 1 / sqrt(x^2 - 1)
    atanh x = log((1 + x) / (1 - x)) / 2     d/dx = 1 / (1 - x^2)

The values come from NumPy's arcsinh / arccosh / arctanh (accurate where the log forms lose
digits, e.g. asinh of a large negative x); outside the domain they are NaN, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from .math_functions import _unary


def _quiet(name: str, x):
    """NumPy's ``name`` of x; outside the domain NaN without a RuntimeWarning (as PyTorch)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return _unary(name, x)


class Asinh(Op):
    """y = asinh x;   dy/dx = 1 / sqrt(x^2 + 1)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quiet("arcsinh", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / (x * x + 1).sqrt()


class Acosh(Op):
    """y = acosh x (x >= 1);   dy/dx = 1 / sqrt(x^2 - 1)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quiet("arccosh", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / (x * x - 1).sqrt()


class Atanh(Op):
    """y = atanh x (|x| < 1);   dy/dx = 1 / (1 - x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quiet("arctanh", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / (1 - x * x)
