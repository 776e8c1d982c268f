"""Rounding, nan_to_num and cumprod: elementwise ops with simple gradients.

Each op's forward works on arrays; its backward on Tensors. Rounding is piecewise constant, so its
gradient is 0 wherever it is defined (PyTorch's choice at the jumps too); frac = x - trunc(x) has
gradient 1.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ..backend import get_array_module
from .elementwise import select_grad


def _zeros_like(g):
    """A zero gradient (not g * 0: an inf or NaN g must not give NaN)."""
    return type(g)._make(get_array_module(g._data).zeros_like(g._data), False)


class _Rounding(Op):
    """y = round_fn(x);   dy/dx = 0 (piecewise constant). Integers pass through unchanged."""

    fn = "floor"

    @classmethod
    def forward(cls, ctx, x):
        if x.dtype.kind == "b":
            raise TypeError(f"{cls.fn}() of a bool tensor is not supported, as in PyTorch")
        if x.dtype.kind in "iu":
            return x.copy()
        return getattr(get_array_module(x), cls.fn)(x)

    @staticmethod
    def backward(ctx, gy):
        return _zeros_like(gy)


class Floor(_Rounding):
    """y = floor(x), the largest integer <= x;   dy/dx = 0."""

    fn = "floor"


class Ceil(_Rounding):
    """y = ceil(x), the smallest integer >= x;   dy/dx = 0."""

    fn = "ceil"


class Trunc(_Rounding):
    """y = trunc(x), x rounded toward zero;   dy/dx = 0."""

    fn = "trunc"


class Round(Op):
    """y = round(x * 10^d) / 10^d, halves to even (as PyTorch and NumPy);   dy/dx = 0."""

    @staticmethod
    def forward(ctx, x, decimals):
        xp = get_array_module(x)
        if x.dtype.kind == "b" or (x.dtype.kind in "iu" and decimals != 0):
            raise TypeError(f"round(decimals={decimals}) of a {x.dtype} tensor is not supported")
        if x.dtype.kind in "iu":
            return x.copy()
        if decimals == 0:
            return xp.round(x)
        scale = x.dtype.type(10.0**decimals)  # PyTorch scales, rounds, and scales back
        return (xp.round(x * scale) / scale).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        return _zeros_like(gy), None


class Frac(Op):
    """y = x - trunc(x) (the fractional part, with x's sign);   dy/dx = 1."""

    @staticmethod
    def forward(ctx, x):
        with np.errstate(invalid="ignore"):  # frac(+-inf) is NaN, as in PyTorch
            return x - get_array_module(x).trunc(x)

    @staticmethod
    def backward(ctx, gy):
        return gy


class NanToNum(Op):
    """y = x, with NaN -> nan, +inf -> posinf, -inf -> neginf;
    dy/dx = 1 where x is finite, else 0 (the replaced values are constants)."""

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        xp = get_array_module(x)
        if x.dtype.kind not in "fV":
            return x.copy()
        info = xp.finfo(x.dtype)
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
        ctx.save_for_backward(xp.isfinite(x))
        y = xp.where(xp.isnan(x), xp.asarray(nan, x.dtype), x)
        y = xp.where(xp.isposinf(x), xp.asarray(posinf, x.dtype), y)
        return xp.where(xp.isneginf(x), xp.asarray(neginf, x.dtype), y)

    @staticmethod
    def backward(ctx, gy):
        (finite,) = ctx.saved_tensors
        return select_grad(gy, finite._data), None, None, None


class Cumprod(Op):
    """y_i = x_0 * x_1 * ... * x_i along ``dim``;
    dL/dx_i = sum_{j >= i} g_j * prod_{k <= j, k != i} x_k.

    Without zeros that is (reverse cumsum of g * y)_i / x_i. With a zero in a slice the division
    is undefined, so the sum is taken directly: for each i, the cumulative product with x_i
    replaced by 1 (O(n^2) along ``dim``, only on slices' zero path; not differentiable again)."""

    @staticmethod
    def forward(ctx, x, dim):
        xp = get_array_module(x)
        y = xp.cumprod(x, axis=dim).astype(x.dtype, copy=False)
        ctx.dim = dim
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, gy):
        x, y = ctx.saved_tensors
        d = ctx.dim
        xp = get_array_module(x._data)
        if not bool(xp.any(x._data == 0)):
            return (gy * y).flip(d).cumsum(d).flip(d) / x, None
        xa, ga = xp.moveaxis(x._data, d, -1), xp.moveaxis(gy._data, d, -1)
        out = xp.empty_like(xa)
        for i in range(xa.shape[-1]):
            ones = xa.copy()
            ones[..., i] = 1  # prod_{k <= j, k != i} x_k for every j >= i
            rest = xp.cumprod(ones, axis=-1)[..., i:]
            out[..., i] = (ga[..., i:] * rest).sum(axis=-1)
        return type(gy)._make(xp.moveaxis(out, -1, d), False), None
