"""Elementwise math functions: trigonometric, hyperbolic, exp/log variants, reciprocal, erf.

Each op's forward works on arrays; its backward on Tensors (so it can itself be differentiated).
Inputs reach these ops already floating point: the Tensor methods turn bool/integer tensors into
the default float dtype first, as PyTorch does. 2-byte floats (float16, bfloat16) are computed
in float32 and rounded back once.
"""

from __future__ import annotations

import math

from ..autocast_policy import CUDA_FLOAT32
from ..autograd.function import Op
from ..backend import erf, erfinv, get_array_module, quiet_fp
from .round_once import widen


@quiet_fp  # tan(inf), arcsin(2), log2(0), sinh(100): NaN/inf, silently as in PyTorch
def _unary(name: str, x):
    """Apply NumPy/CuPy's ``name`` to x, through float32 for 2-byte floats."""
    xp = get_array_module(x)
    if x.dtype.itemsize == 2:
        return getattr(xp, name)(x.astype(xp.float32)).astype(x.dtype)
    return getattr(xp, name)(x)


class Exp2(Op):
    """y = 2^x;   dy/dx = ln 2 * 2^x = ln 2 * y. Floats up to 4 bytes are computed in float64 and
    rounded once: ``e^(x ln 2)`` rounds ``x ln 2`` first, and is a unit off in half the
    elements."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x):
        xp = get_array_module(x)
        # through float64 (NumPy's float32 exp2 is itself a unit off in a fifth of the elements)
        wide = x.dtype.kind in "fV" and x.dtype.itemsize <= 4
        y = xp.exp2(x.astype(xp.float64)).astype(x.dtype) if wide else xp.exp2(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return gy * y * math.log(2)


class Sin(Op):
    """y = sin x;   dy/dx = cos x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("sin", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * x.cos()


class Cos(Op):
    """y = cos x;   dy/dx = -sin x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("cos", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return -(gy * x.sin())


class Tan(Op):
    """y = tan x;   dy/dx = 1 / cos^2 x = 1 + y^2."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        y = _unary("tan", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return gy * (1 + y * y)


class Asin(Op):
    """y = asin x (|x| <= 1);   dy/dx = 1 / sqrt(1 - x^2)."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("arcsin", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / (1 - x * x).sqrt()


class Acos(Op):
    """y = acos x (|x| <= 1);   dy/dx = -1 / sqrt(1 - x^2)."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("arccos", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return -gy / (1 - x * x).sqrt()


class Atan(Op):
    """y = atan x;   dy/dx = 1 / (1 + x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("arctan", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / (1 + x * x)


class Atan2(Op):
    """z = atan2(y, x), the angle of the point (x, y) in (-pi, pi];
    dz/dy = x / (x^2 + y^2),  dz/dx = -y / (x^2 + y^2), both 0 where 1 / (x^2 + y^2) is infinite
    (at the origin: PyTorch's value, not 0 * inf = NaN)."""

    @staticmethod
    def forward(ctx, y, x):
        ctx.save_for_backward(y, x)
        xp = get_array_module(y)
        if y.dtype.itemsize == 2:
            return xp.arctan2(y.astype(xp.float32), x.astype(xp.float32)).astype(y.dtype)
        return xp.arctan2(y, x)

    @staticmethod
    def backward(ctx, gz):
        (y, x), gz = map(widen, ctx.saved_tensors), widen(gz)  # float32, rounded once
        r2 = x * x + y * y
        zero = r2._data == 0
        recip = r2.masked_fill(zero, 1.0).reciprocal()  # (1 / 0 taken out first: no warning)
        scale = gz * recip.masked_fill(zero | get_array_module(zero).isinf(recip._data), 0.0)
        gy = scale * x if ctx.needs_input_grad[0] else None
        gx = -(scale * y) if ctx.needs_input_grad[1] else None
        return gy, gx


class Hypot(Op):
    """z = hypot(a, b) = sqrt(a^2 + b^2), without overflow, and inf where either side is
    infinite (even against NaN, as C's hypot);   dz/da = a / z,  dz/db = b / z."""

    @staticmethod
    @quiet_fp
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp = get_array_module(a)
        if a.dtype.itemsize == 2:
            return xp.hypot(a.astype(xp.float32), b.astype(xp.float32)).astype(a.dtype)
        return xp.hypot(a, b)

    @staticmethod
    def backward(ctx, gz):
        (a, b), gz = map(widen, ctx.saved_tensors), widen(gz)  # float32, rounded once
        scale = gz / Hypot.apply(a, b)
        return (scale * a if ctx.needs_input_grad[0] else None), (
            scale * b if ctx.needs_input_grad[1] else None
        )


class Copysign(Op):
    """z = |a| with the sign of b (-0.0 and NaN's sign bit count);
    dz/da = z / a (+-1; 0 at a = 0; NaN at a = NaN or +-inf, as PyTorch),  dz/db = 0."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp = get_array_module(a)
        if a.dtype.itemsize == 2:
            return xp.copysign(a.astype(xp.float32), b.astype(xp.float32)).astype(a.dtype)
        return xp.copysign(a, b)

    @staticmethod
    def backward(ctx, gz):
        (a, b), gz = map(widen, ctx.saved_tensors), widen(gz)  # float32, rounded once
        ga = None
        if ctx.needs_input_grad[0]:
            nonzero = a != 0
            safe = a.where(nonzero, 1.0)  # no 0 / 0 at a = 0, in this derivative or the next
            ga = (gz * Copysign.apply(a, b) / safe).where(nonzero, 0.0)
        gb = type(gz)._make(get_array_module(gz._data).zeros_like(gz._data), False)
        return ga, (gb if ctx.needs_input_grad[1] else None)


class Ldexp(Op):
    """z = a * 2^e for integer e, scaled exactly (C's ldexp, rounded once): 0 * 2^200 is 0 and
    1e30 * 2^-160 is 6.8e-19 in float32, where a * exp2(e) gives NaN and 0 (exp2 overflows,
    underflows);   dz/da = 2^e (the gradient scaled the same way), e has none."""

    @staticmethod
    @quiet_fp
    def forward(ctx, a, e):
        ctx.save_for_backward(e)
        xp = get_array_module(a)
        # |e| beyond 2^14 takes every float to 0 or inf, as the exact e would; int32 for ldexp
        # (clipped in int64: NumPy 2.0 refuses bounds an int8 e cannot hold)
        e = xp.clip(e.astype(xp.int64), -(2**14), 2**14).astype(xp.int32)
        if a.dtype.itemsize == 2:  # float16/bfloat16 lie in float32's range: exact there
            return xp.ldexp(a.astype(xp.float32), e).astype(a.dtype)
        return xp.ldexp(a, e)

    @staticmethod
    def backward(ctx, gz):
        (e,) = ctx.saved_tensors
        return Ldexp.apply(gz, e), None


class Sinh(Op):
    """y = sinh x;   dy/dx = cosh x."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("sinh", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * x.cosh()


class Cosh(Op):
    """y = cosh x;   dy/dx = sinh x."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("cosh", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * x.sinh()


class Expm1(Op):
    """y = e^x - 1 (exact for small x, where exp(x) - 1 cancels);   dy/dx = e^x = y + 1."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        y = _unary("expm1", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return gy * (y + 1)


class Log1p(Op):
    """y = ln(1 + x) (exact for small x);   dy/dx = 1 / (1 + x)."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("log1p", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / (1 + x)


class Log2(Op):
    """y = log2 x;   dy/dx = 1 / (x ln 2)."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("log2", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / (x * math.log(2))


class Log10(Op):
    """y = log10 x;   dy/dx = 1 / (x ln 10)."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary("log10", x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy / (x * math.log(10))


class Reciprocal(Op):
    """y = 1 / x;   dy/dx = -1 / x^2 = -y^2."""

    autocast = CUDA_FLOAT32

    @staticmethod
    def forward(ctx, x):
        y = _unary("reciprocal", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return -(gy * y * y)


class Erf(Op):
    """y = erf x = 2/sqrt(pi) integral_0^x e^(-t^2) dt;   dy/dx = 2/sqrt(pi) e^(-x^2).
    (How erf itself is evaluated: ``backend.erf``.)"""

    @staticmethod
    @quiet_fp
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return erf(x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * (-(x * x)).exp() * (2 / math.sqrt(math.pi))


class Erfinv(Op):
    """y = erfinv x, the inverse of erf on (-1, 1);
    dy/dx = 1 / erf'(y) = sqrt(pi)/2 e^(y^2)."""

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp
    def forward(ctx, x):
        ctx.save_for_backward(x)  # x, not y: as PyTorch, y may be written in place afterwards
        return erfinv(x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        y = Erfinv.apply(widen(x))  # recomputed (recorded under create_graph: next derivative)
        return widen(gy) * (y * y).exp() * (math.sqrt(math.pi) / 2)  # float32, rounded once
