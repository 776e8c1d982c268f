"""Special functions as differentiable ops: erfc, the modified Bessel functions i0 and i1, xlogy,
entr and the log of a cumulative sum of exponentials (the gamma family is in ``special.py``).

Each forward works on arrays (NumPy or CuPy alike, in float64, rounded back to the input's
dtype); each backward on Tensors. The Tensor methods hand these ops floating-point tensors only.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ..autograd.function import Op
from ..backend import erfc as _erfc
from ..backend import get_array_module, quiet_fp


def _f64(x):
    xp = get_array_module(x)
    return xp, xp.asarray(x, dtype=xp.float64)


class Erfc(Op):
    """y = erfc x = 1 - erf x;   dy/dx = -2/sqrt(pi) e^(-x^2)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _erfc(x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * (-(x * x)).exp() * (-2 / math.sqrt(math.pi))


@quiet_fp
def _i1(x):
    """I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!), summed until the terms are negligible (the
    largest term is near k = |x|/2, so |x| + 30 terms reach float64's precision)."""
    xp, x = _f64(x)
    half = x / 2
    term = half
    total = term
    finite = xp.abs(x[xp.isfinite(x)])  # (NaN and inf entries come out NaN and inf anyway)
    n_terms = int(min(float(finite.max()) if finite.size else 0.0, 700)) + 30
    for k in range(n_terms):
        term = term * half * half / ((k + 1) * (k + 2))
        total = total + term
    return total


class I0(Op):
    """y = I0(x) = sum_k (x/2)^(2k) / (k!)^2, the modified Bessel function of order 0;
    dy/dx = I1(x)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp, xd = _f64(x)
        return xp.i0(xd).astype(x.dtype)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * I1.apply(x)


class I1(Op):
    """y = I1(x);   dy/dx = I0(x) - I1(x)/x, which is 1/2 at x = 0."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _i1(x).astype(x.dtype)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        zero = x == 0
        safe = x.where(~zero, 1.0)  # I1(x)/x -> 1/2 as x -> 0
        ratio = (I1.apply(safe) / safe).where(~zero, 0.5)
        return gy * (I0.apply(x) - ratio)


class LogCumSumExp(Op):
    """y_i = log sum_{j <= i} e^(x_j) along ``dim`` (a running logsumexp, computed pairwise with
    logaddexp so no e^x overflows);   dL/dx_j = sum_{i >= j} g_i e^(x_j - y_i).

    The backward splits g into its positive and negative parts and sums each in log space with
    the same op run from the end: e^(x_j) sum_{i>=j} g_i e^(-y_i) = e^(x_j + lcse_rev(log g - y)_j),
    which stays finite however far apart the x are. It is made of differentiable ops, so the
    second derivative flows through y too. log 0 is taken as the dtype's lowest finite number,
    not -inf (as PyTorch): a part with no entries then gives e^(x + lowest) = 0 with a finite
    gradient, where -inf would make -inf - (-inf) = NaN in the next backward and erase the
    second derivative of the other part."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, dim):
        ctx.dim = dim
        xp, xd = _f64(x)
        if xp is np:  # NumPy's ufunc.accumulate: pairwise logaddexp along dim
            y = xp.logaddexp.accumulate(xd, axis=dim)
        elif xd.size == 0:  # nothing to sum (and max has no identity over an empty dim)
            y = xd.copy()
        else:  # CuPy has no logaddexp.accumulate: shift by the max, then cumsum
            m = xd.max(axis=dim, keepdims=True)
            m = xp.where(xp.isfinite(m), m, 0.0)  # an all -inf slice stays -inf, not NaN
            with np.errstate(divide="ignore"):
                y = xp.log(xp.cumsum(xp.exp(xd - m), axis=dim)) + m
        y = y.astype(x.dtype)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, gy):
        x, y = ctx.saved_tensors
        dim = ctx.dim

        def reverse_lcse(t):
            return LogCumSumExp.apply(t.flip(dim), dim).flip(dim)

        lowest = float(ml_dtypes.finfo(gy._data.dtype).min)

        def part(g):  # log g where g > 0, the lowest finite number elsewhere
            pos = g > 0
            return g.where(pos, 1.0).log().where(pos, lowest)

        up = (x + reverse_lcse(part(gy) - y)).exp()
        down = (x + reverse_lcse(part(-gy) - y)).exp()
        return up - down, None


class Xlogy(Op):
    """z = x log y (x log(1 + y) with ``plus_one``), and 0 where x = 0 unless y is NaN;
    dz/dx = log y, taken as 0 where x = 0 and y <= 0 (y <= -1 for log1p), dz/dy = x / y
    (x / (1 + y)). PyTorch's rules: the x = 0 convention fixes the value, not the slope in x."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, y, plus_one):
        xp = get_array_module(x)
        ctx.plus_one = plus_one
        ctx.save_for_backward(x, y)
        with np.errstate(divide="ignore", invalid="ignore"):
            log = xp.log1p(y) if plus_one else xp.log(y)
            return xp.where((x == 0) & ~xp.isnan(y), 0, x * log).astype(x.dtype)

    @staticmethod
    def backward(ctx, gz):
        x, y = ctx.saved_tensors
        plus_one = ctx.plus_one
        gx = gy = None
        with np.errstate(divide="ignore", invalid="ignore"):  # log 0, 0/0: PyTorch's inf, NaN
            if ctx.needs_input_grad[0]:
                flat = (x == 0) & (y <= (-1.0 if plus_one else 0.0))
                log = y.log1p() if plus_one else y.log()
                gx = (gz * log).where(flat.logical_not(), 0.0)
            if ctx.needs_input_grad[1]:
                gy = gz * x / ((y + 1) if plus_one else y)
        return gx, gy, None


class Entr(Op):
    """y = -x log x for x > 0, 0 at x = 0, -inf for x < 0;   dy/dx = -(1 + log x)
    (+inf at 0 and NaN below it, as PyTorch)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x):
        xp = get_array_module(x)
        ctx.save_for_backward(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = xp.where(x > 0, -x * xp.log(x), xp.where(x == 0, 0.0, -xp.inf))
        return xp.where(xp.isnan(x), x, out).astype(x.dtype)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        with np.errstate(divide="ignore", invalid="ignore"):  # log 0 = -inf, log of x < 0 NaN
            return gy * -(x.log() + 1)
