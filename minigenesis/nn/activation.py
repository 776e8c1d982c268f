"""Activation functions: functional forms (``F.relu``) and their Module wrappers (``nn.ReLU``).

The math and its derivatives live in ``ops/activation.py``; this file gives them PyTorch's
signatures (``inplace=``, ``dim=``, ``dtype=``, ``approximate=``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..backend import get_array_module
from ..functions import where
from ..ops.activation import LeakyReLU as LeakyReLUOp
from ..ops.activation import _f32
from ..tensor import Tensor
from ..tensor_math import norm_dim
from .module import Module


def _inplace(x: Tensor, fn) -> Tensor:
    """Write fn(x) into x (``inplace=True``): saves memory, but x's old values are gone."""
    return x._inplace(fn)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0)"""
    return _inplace(input, lambda t: t.relu()) if inplace else input.relu()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else negative_slope * x"""

    def fn(t: Tensor) -> Tensor:
        return LeakyReLUOp.apply(t, negative_slope)

    return _inplace(input, fn) if inplace else fn(input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x Phi(x) (Phi the standard normal CDF); ``approximate="tanh"`` for the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return input.gelu(approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x sigmoid(x) (also called swish)"""
    return _inplace(input, lambda t: t.silu()) if inplace else input.silu()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


class SoftplusOp(Op):
    """y = log1p(e^z) / beta with z = beta x, and y = x where z > threshold (PyTorch's formula);
    dy/dx = sigmoid(z), and 1 where z > threshold.

    log1p keeps e^z's value when it is tiny (log(1 + e^z) would round 1 + e^-30 to 1 and give 0);
    float16/bfloat16 are computed in float32 and rounded once, as PyTorch's CPU kernel does."""

    @staticmethod
    def forward(ctx, x, beta, threshold):
        xp = get_array_module(x)
        xf = _f32(x)
        z = xf * beta
        with np.errstate(over="ignore"):  # e^z overflows only where z > threshold: not used
            soft = xp.log1p(xp.exp(z)) / beta
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        return xp.where(z > threshold, xf, soft).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        z = x * ctx.beta
        # sigmoid on a 1-D view: Sigmoid's in-place passes fail on a 0-d NumPy scalar
        slope = z.reshape(-1).sigmoid().reshape(z.shape)
        return gy * where(z > ctx.threshold, 1.0, slope), None, None


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(beta x)) / beta, and x itself where beta x > threshold (as PyTorch)."""
    return SoftplusOp.apply(input, float(beta), float(threshold))


def _implicit_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        f"dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """e^x_i / sum_j e^x_j along ``dim`` (computed in ``dtype`` if given)."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim)
    x = input if dtype is None else input.to(_dt.to_dtype(dtype))
    return x.softmax(norm_dim(dim, x.ndim)[0])


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """x_i - logsumexp(x) along ``dim`` (stable: never forms e^x for large x)."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim)
    x = input if dtype is None else input.to(_dt.to_dtype(dtype))
    return x.log_softmax(norm_dim(dim, x.ndim)[0])


# ---------------------------------------------------------------------------- modules
class ReLU(Module):
    """y = max(x, 0)"""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return relu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """y = x if x > 0 else negative_slope * x"""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """y = x Phi(x)"""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate='{self.approximate}'"


class SiLU(Module):
    """y = x sigmoid(x)"""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return silu(input, self.inplace)


class Tanh(Module):
    """y = tanh(x)"""

    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    """y = 1 / (1 + e^-x)"""

    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class Softplus(Module):
    """y = log(1 + e^(beta x)) / beta"""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return softplus(input, self.beta, self.threshold)


class Softmax(Module):
    """y = softmax(x) along ``dim``"""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """y = log_softmax(x) along ``dim``"""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
