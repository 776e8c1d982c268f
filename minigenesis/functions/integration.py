"""Integration by the trapezoidal rule: ``mg.trapezoid`` (and its older name ``mg.trapz``) and
``mg.cumulative_trapezoid``, along one dim of samples y_0 .. y_{n-1}:

    integral ~ sum_i (x_{i+1} - x_i) (y_i + y_{i+1}) / 2,

with the spacings x_{i+1} - x_i taken from ``x`` (a 1-D tensor of n points, or one that broadcasts
with y) or all equal to ``dx`` (1 when neither is given). ``cumulative_trapezoid`` keeps the running
sums (n - 1 of them). Integer samples compute in float64 and are returned in the default float
dtype (PyTorch's dtype; PyTorch adds y_0 + y_{n-1} in the integer dtype, so its uint8 [255, 255]
wraps to 383 where the integral is 255); the gradient follows from the ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._tensor import Tensor
from ..ops.round_once import in_float32, same_two_byte_float
from ..promotion import float_in, result_type
from ..size import norm_dim
from ._common import _check


def _pair_sums(y: Tensor, x: Any, dx: Any, d: int, name: str) -> Tensor:
    """(x_{i+1} - x_i)(y_i + y_{i+1}) for i < n - 1, along dim d (n >= 1)."""
    n = y.shape[d]
    pairs = y.narrow(d, 0, n - 1) + y.narrow(d, 1, n - 1)
    if x is None:
        return pairs * (1 if dx is None else dx)
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'x' must be Tensor, not {type(x).__name__}")
    if x.ndim == 1:  # the n sample points, shared by every slice of y
        if x.shape[0] != n:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        spacing = x.diff().reshape([n - 1 if k == d else 1 for k in range(y.ndim)])
    else:  # an x that broadcasts with y: its spacings along dim d of the broadcast grid (an x
        # that does not vary along d, a size-1 or missing dim, has spacings 0 there)
        try:
            grid = np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
        except ValueError:
            raise RuntimeError(
                f"{name}: x of shape {list(x.shape)} does not broadcast with y of shape "
                f"{list(y.shape)}"
            ) from None
        spacing = x.expand(grid).diff(dim=d - y.ndim)
    return pairs * spacing


def _exactly(fn: Any, y: Tensor, x: Any, dx: Any, d: int) -> Tensor:
    """fn(y, x, dx=, dim=) on integer samples (and integer points) made float64, which holds
    their pair sums and spacings exactly where the integer dtype would wrap (uint8 255 + 255),
    cast to the dtype PyTorch returns: the default float, or x's float dtype."""
    dtype = result_type(y, x)
    dtype = dtype if dtype.is_floating_point else _dt.get_default_dtype()
    if isinstance(x, Tensor) and not x.is_floating_point():
        x = x.double()
    return fn(y.double(), x, dx=dx, dim=d).to(dtype)


def _integrand(y: Any, x: Any, dx: Any, dim: int, name: str) -> tuple[Tensor, int]:
    y = _check(y, name)
    if y._data.dtype.kind == "b":
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received both `x` and `dx`; pass one of them")
    return y, norm_dim(dim, y.ndim)[0]


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: sum_i (x_{i+1} - x_i)(y_i + y_{i+1}) / 2 (the
    spacing ``dx`` when no ``x`` is given, 1 by default); 0 for fewer than two samples."""
    y, d = _integrand(y, x, dx, dim, "trapezoid")
    if y.shape[d] == 0:
        return float_in(y).sum(d) * 0
    if not y.is_floating_point():
        return _exactly(trapezoid, y, x, dx, d)
    if same_two_byte_float(y) and (x is None or same_two_byte_float(y, x)):
        tensors = (y,) if x is None else (y, x)  # float32 inside, rounded once, as PyTorch
        return in_float32(lambda t, *xs: trapezoid(t, *xs, dx=dx, dim=d), *tensors)
    return float_in(_pair_sums(y, x, dx, d, "trapezoid").sum(d) / 2)


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The older name of ``trapezoid`` (``trapz(y, x, dim=)`` or ``trapz(y, dx=, dim=)``)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoidal sums along ``dim``: out_k = sum_{i <= k} (x_{i+1} - x_i)
    (y_i + y_{i+1}) / 2, k = 0 .. n - 2 (n - 1 values; none for fewer than two samples)."""
    y, d = _integrand(y, x, dx, dim, "cumulative_trapezoid")
    if y.shape[d] == 0:
        return float_in(y)
    if not y.is_floating_point():
        return _exactly(cumulative_trapezoid, y, x, dx, d)
    return float_in(_pair_sums(y, x, dx, d, "cumulative_trapezoid").cumsum(d) / 2)


__all__ = ["cumulative_trapezoid", "trapezoid", "trapz"]
