"""Elementwise ops: arithmetic, powers, exp/log, abs/sign, maximum/minimum, where, clamp, casts.

Each op's forward works on arrays; its backward on Tensors (so it can itself be differentiated).
Broadcasting is NOT undone here: the autograd engine sums every gradient back to its input's shape.
A Python scalar operand (``x * 2``) is passed straight to NumPy and gets no gradient.
"""

from __future__ import annotations

import math

from ..autograd.function import Op
from ..backend import get_array_module


class Add(Op):
    """z = x + y;   dz/dx = 1, dz/dy = 1."""

    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, gz):
        return gz, gz


class Sub(Op):
    """z = x - y;   dz/dx = 1, dz/dy = -1."""

    @staticmethod
    def forward(ctx, x, y):
        return x - y

    @staticmethod
    def backward(ctx, gz):
        return gz, (-gz if ctx.needs_input_grad[1] else None)


class Neg(Op):
    """z = -x;   dz/dx = -1."""

    @staticmethod
    def forward(ctx, x):
        return -x

    @staticmethod
    def backward(ctx, gz):
        return -gz


class Mul(Op):
    """z = x * y;   dz/dx = y, dz/dy = x."""

    @staticmethod
    def forward(ctx, x, y):
        need_x, need_y = ctx.needs_input_grad
        ctx.save_for_backward(x if need_y else None, y if need_x else None)  # only what's used
        return x * y

    @staticmethod
    def backward(ctx, gz):
        x, y = ctx.saved_tensors  # forward kept y only if x wants a gradient, and x for y
        return (gz * y if y is not None else None), (gz * x if x is not None else None)


class Div(Op):
    """z = x / y;   dz/dx = 1/y, dz/dy = -x/y^2."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x if ctx.needs_input_grad[1] else None, y)
        return x / y

    @staticmethod
    def backward(ctx, gz):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (gz / y if need_x else None), (-gz * x / (y * y) if need_y else None)


class FloorDiv(Op):
    """z = floor(x / y) (Python's //), after the tensor methods' type promotion. Not
    differentiable: the methods run it under no_grad. Integer division by zero raises
    ZeroDivisionError, and bool // bool is refused, as in PyTorch."""

    ufunc = "floor_divide"

    @classmethod
    def forward(cls, ctx, x, y):
        kinds = [v.dtype.kind if hasattr(v, "dtype") else type(v) for v in (x, y)]
        if all(k in ("b", bool) for k in kinds):
            raise TypeError(f"{cls.ufunc} of two bool operands is not supported (as in PyTorch)")
        xp = get_array_module(x if hasattr(x, "dtype") else y)
        if all(k in ("b", "i", "u", bool, int) for k in kinds) and bool(xp.any(xp.asarray(y) == 0)):
            raise ZeroDivisionError(f"integer {cls.ufunc} by zero")
        return getattr(xp, cls.ufunc)(x, y)


class Mod(FloorDiv):
    """z = x - floor(x / y) * y, with the sign of y (Python's %, PyTorch's remainder);
    dz/dx = 1,  dz/dy = -floor(x / y) (the quotient is piecewise constant: its derivative is 0).

    PyTorch has no gradient for a Python number % tensor (``1.0 % x``) and raises; here the same
    formula gives it, as it does for tensor % tensor."""

    ufunc = "remainder"

    @classmethod
    def forward(cls, ctx, x, y):
        z = super().forward(ctx, x, y)
        if ctx.needs_input_grad[1]:  # the quotient, a constant of the graph
            ctx.save_for_backward(cls.quotient(get_array_module(z), x, y).astype(z.dtype))
        return z

    @staticmethod
    def quotient(xp, x, y):
        return xp.floor_divide(x, y)

    @staticmethod
    def backward(ctx, gz):
        need_x, need_y = ctx.needs_input_grad
        gy = -gz * ctx.saved_tensors[0] if need_y else None
        return (gz if need_x else None), gy


class Fmod(Mod):
    """z = x - trunc(x / y) * y, with the sign of x (C's fmod, PyTorch's fmod);
    dz/dx = 1,  dz/dy = -trunc(x / y)."""

    ufunc = "fmod"

    @staticmethod
    def quotient(xp, x, y):
        return xp.trunc(xp.true_divide(x, y))


class Pow(Op):
    """z = x ** y;   dz/dx = y * x^(y-1),  dz/dy = z * ln(x).  Either side may be a scalar."""

    @staticmethod
    def forward(ctx, x, y):
        z = x**y
        ctx.save_for_backward(x, y, z)
        return z

    @staticmethod
    def backward(ctx, gz):
        x, y, z = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        xd, yd = getattr(x, "_data", x), getattr(y, "_data", y)
        gx = gy = None
        if need_x:  # d/dx x^0 = 0, also at x = 0 where y x^(y-1) is 0 * inf (PyTorch's rule)
            gx = _zero_where(yd == 0, gz * y * x ** (y - 1))
        if need_y:  # x^y ln x is taken as 0 at x = 0 for y >= 0 (not 0 * -inf), as in PyTorch
            if hasattr(x, "log"):
                log_x = x.log()
            else:  # a scalar base (2 ** t): math.log raises at and below 0
                log_x = math.log(x) if x > 0 else -math.inf if x == 0 else math.nan
            gy = _zero_where((xd == 0) & (yd >= 0), gz * z * log_x)
        return gx, gy


def _zero_where(cond, g):
    """g with zeros where ``cond`` (an array or a Python bool) holds: a masked fill, which unlike
    g * mask also clears the NaN/inf there. A False bool (a scalar operand) costs nothing."""
    if cond is False:
        return g
    if cond is True:  # a scalar y == 0: every element
        cond = get_array_module(g._data).ones((), dtype=bool)
    return Where.apply(cond, 0.0, g)


class Exp(Op):
    """y = e^x;   dy/dx = e^x = y."""

    @staticmethod
    def forward(ctx, x):
        y = get_array_module(x).exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return gy * y


class Log(Op):
    """y = ln x;   dy/dx = 1/x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return get_array_module(x).log(x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / x


class Sqrt(Op):
    """y = sqrt(x);   dy/dx = 1 / (2 sqrt(x)) = 1 / (2y)."""

    @staticmethod
    def forward(ctx, x):
        y = get_array_module(x).sqrt(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return gy / (y * 2)


class Abs(Op):
    """y = |x|;   dy/dx = sign(x) (0 at x = 0, as PyTorch)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return get_array_module(x).abs(x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * x.sign()


class Sign(Op):
    """y = sign(x);   dy/dx = 0 everywhere it is defined."""

    @staticmethod
    def forward(ctx, x):
        xp = get_array_module(x)
        y = xp.sign(x)
        if x.dtype.kind in "fV":  # NumPy's sign(nan) is nan; PyTorch's is 0
            y = xp.where(xp.isnan(y), 0, y).astype(x.dtype, copy=False)
        return y

    @staticmethod
    def backward(ctx, gy):
        return gy * 0


class Maximum(Op):
    """z = max(x, y);   the gradient goes to the larger input, split in half on ties (PyTorch)."""

    @staticmethod
    def forward(ctx, x, y):
        xp = get_array_module(x)
        z = xp.maximum(x, y)
        dt = z.dtype
        ctx.save_for_backward(((x > y) + (x == y) * 0.5).astype(dt, copy=False))
        return z

    @staticmethod
    def backward(ctx, gz):
        (share_x,) = ctx.saved_tensors
        return gz * share_x, gz * (1 - share_x)


class Minimum(Op):
    """z = min(x, y);   the gradient goes to the smaller input, split in half on ties."""

    @staticmethod
    def forward(ctx, x, y):
        xp = get_array_module(x)
        z = xp.minimum(x, y)
        ctx.save_for_backward(((x < y) + (x == y) * 0.5).astype(z.dtype, copy=False))
        return z

    @staticmethod
    def backward(ctx, gz):
        (share_x,) = ctx.saved_tensors
        return gz * share_x, gz * (1 - share_x)


class Where(Op):
    """z = cond ? x : y;   dz/dx = cond, dz/dy = not cond."""

    @staticmethod
    def forward(ctx, cond, x, y):
        xp = get_array_module(cond)
        z = xp.where(cond, x, y)
        ctx.save_for_backward(cond.astype(z.dtype))
        return z

    @staticmethod
    def backward(ctx, gz):
        (c,) = ctx.saved_tensors
        return None, gz * c, gz * (1 - c)


class Clamp(Op):
    """y = min(max(x, lo), hi);   dy/dx = 1 where lo <= x <= hi, else 0 (PyTorch's convention).
    Tensor bounds (PyTorch's rule): dy/dlo = 1 where x < lo < hi; dy/dhi = 1 where x > hi or
    hi < lo (then every output is hi)."""

    @staticmethod
    def forward(ctx, x, lo, hi):
        xp = get_array_module(x)
        inside = xp.ones(x.shape, dtype=bool)
        if lo is not None:
            inside &= x >= lo
        if hi is not None:
            inside &= x <= hi
        to_lo = to_hi = None
        _, need_lo, need_hi = ctx.needs_input_grad
        if need_lo:
            to_lo = x < lo if hi is None else (x < lo) & (lo < hi)
            to_lo = to_lo.astype(x.dtype)
        if need_hi:
            to_hi = x > hi if lo is None else (x > hi) | (hi < lo)
            to_hi = to_hi.astype(x.dtype)
        ctx.save_for_backward(inside.astype(x.dtype), to_lo, to_hi)
        return xp.clip(x, lo, hi).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        inside, to_lo, to_hi = ctx.saved_tensors
        return (
            gy * inside,
            None if to_lo is None else gy * to_lo,
            None if to_hi is None else gy * to_hi,
        )


class Cast(Op):
    """y = x converted to another dtype;   the gradient is cast back to x's dtype."""

    @staticmethod
    def forward(ctx, x, dtype):
        ctx.src_dtype = x.dtype
        return x.astype(dtype)

    @staticmethod
    def backward(ctx, gy):
        return gy._cast(ctx.src_dtype), None


class ToDevice(Op):
    """y = x copied to another device (NumPy <-> CuPy);   the gradient is copied back."""

    @staticmethod
    def forward(ctx, x, dev):
        from ..backend import device_of, to_device

        ctx.src = device_of(x)
        return to_device(x, dev)

    @staticmethod
    def backward(ctx, gy):
        return gy.to(ctx.src), None
