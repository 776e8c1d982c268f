"""Elementwise ops: arithmetic, powers, exp/log, abs/sign, maximum/minimum, where, clamp,
nan_to_num, casts (rounding is in ``rounding.py``).

Each op's forward works on arrays; its backward on Tensors (so it can itself be differentiated).
Broadcasting is NOT undone here: the autograd engine sums every gradient back to its input's shape.
A Python scalar operand (``x * 2``) is passed straight to NumPy and gets no gradient.
"""

from __future__ import annotations

import math
import operator

import ml_dtypes
import numpy as np

from .. import kernels
from ..autocast_policy import CUDA_FLOAT32, PROMOTE
from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..backend import device_of, get_array_module, quiet_fp, to_device
from ..conversions import convert
from .anchor import keep_in_graph
from .round_once import TWO_BYTE_FLOATS, widen
from .rounding import refuse_integer_zero_divisor

# bfloat16 arithmetic runs through float32 (kernels/elementwise.py: ml_dtypes' own loops are 3-4x
# slower). The test is by identity, written out in each op (a call would cost as much as the test
# on small arrays): an array of ml_dtypes' bfloat16 has this very dtype object.
_BF16 = np.dtype(ml_dtypes.bfloat16)


def opmath_scalar(fn, x, y):
    """``fn(x, y)`` for a float16/bfloat16 array and a Python number, as PyTorch's multiply and
    divide kernels compute it: the number read in float32 (their "opmath" type, not rounded to
    the 2-byte type as NumPy would), the result rounded once. None for other operands."""
    arr = y if x.__class__ in _NUMBERS else x
    d = getattr(arr, "dtype", None)
    if d is None or d.itemsize != 2 or d.kind not in "fV":
        return None
    wide = arr.astype(get_array_module(arr).float32)
    with np.errstate(all="ignore"):  # inf * 0: NaN, silently, as PyTorch
        out = fn(wide, y) if arr is x else fn(x, wide)
    return out.astype(d)


_NUMBERS = (int, float)


class Add(Op):
    """z = x + y;   dz/dx = 1, dz/dy = 1."""

    autocast = PROMOTE

    @staticmethod
    @quiet_fp  # overflow to inf (3e38 + 3e38 in float32), as in PyTorch
    def forward(ctx, x, y):
        if _BF16 is getattr(x, "dtype", None) is getattr(y, "dtype", None):
            return kernels.elementwise.bfloat16_binary(operator.add, x, y)
        return x + y

    @staticmethod
    def backward(ctx, gz):
        return gz, gz


class Sub(Op):
    """z = x - y;   dz/dx = 1, dz/dy = -1."""

    autocast = PROMOTE

    @staticmethod
    @quiet_fp  # overflow to inf, inf - inf = NaN, as in PyTorch
    def forward(ctx, x, y):
        if _BF16 is getattr(x, "dtype", None) is getattr(y, "dtype", None):
            return kernels.elementwise.bfloat16_binary(operator.sub, x, y)
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


def _mul_arrays(x, y):
    """x * y on arrays (or an array and a Python number), as PyTorch's kernels compute it:
    bfloat16 through float32, a number times a 2-byte float read in float32 (opmath_scalar)."""
    if _BF16 is getattr(x, "dtype", None) is getattr(y, "dtype", None):
        return kernels.elementwise.bfloat16_binary(operator.mul, x, y)
    if x.__class__ is not y.__class__ and (z := opmath_scalar(operator.mul, x, y)) is not None:
        return z
    return x * y


class Mul(Op):
    """z = x * y;   dz/dx = y, dz/dy = x."""

    autocast = PROMOTE

    @staticmethod
    @quiet_fp  # overflow to inf, 0 * inf = NaN, as in PyTorch
    def forward(ctx, x, y):
        need_x, need_y = ctx.needs_input_grad
        ctx.save_for_backward(x if need_y else None, y if need_x else None)  # only what's used
        return _mul_arrays(x, y)

    @staticmethod
    def backward(ctx, gz):
        x, y = ctx.saved_tensors  # forward kept y only if x wants a gradient, and x for y
        if not state.grad_enabled:  # nothing records: the products on arrays, not as two ops
            g, make = gz._data, type(gz)._make
            gx = None if y is None else make(_mul_arrays(g, getattr(y, "_data", y)))
            return gx, (None if x is None else make(_mul_arrays(g, getattr(x, "_data", x))))
        return (gz * y if y is not None else None), (gz * x if x is not None else None)


class Div(Op):
    """z = x / y;   dz/dx = 1/y, dz/dy = -x/y^2."""

    autocast = PROMOTE

    @staticmethod
    @quiet_fp
    def forward(ctx, x, y):
        ctx.save_for_backward(x if ctx.needs_input_grad[1] else None, y)
        if _BF16 is getattr(x, "dtype", None) is getattr(y, "dtype", None):
            return kernels.elementwise.bfloat16_binary(operator.truediv, x, y)
        if x.__class__ is not y.__class__:  # a number: see opmath_scalar
            if (z := opmath_scalar(operator.truediv, x, y)) is not None:
                return z
        return x / y

    @staticmethod
    def backward(ctx, gz):
        (x, y), (need_x, need_y) = ctx.saved_tensors, ctx.needs_input_grad
        if need_y and y.dtype in TWO_BYTE_FLOATS:  # -g x / y^2 in float32, rounded once
            gz, x, y = widen(gz), widen(x), widen(y)
        return (gz / y if need_x else None), (-gz * x / (y * y) if need_y else None)


class FloorDiv(Op):
    """z = floor(x / y) (Python's //), after the tensor methods' type promotion. Integer division
    by zero raises PyTorch's RuntimeError (a ZeroDivisionError too), and bool // bool is refused.

    Not differentiable, as in PyTorch: the result is in the graph (requires_grad when x or y
    does), and a backward that reaches it raises. (Its derivative would be 0 almost everywhere,
    which would quietly train nothing; PyTorch prefers an error, and so does this.)"""

    ufunc = "floor_divide"

    @classmethod
    @quiet_fp  # x / 0: inf or NaN, as in PyTorch
    def forward(cls, ctx, x, y):
        kinds = [v.dtype.kind if hasattr(v, "dtype") else type(v) for v in (x, y)]
        if all(k in ("b", bool) for k in kinds):
            raise NotImplementedError(
                f"{cls.ufunc} of two bool operands is not supported (as in PyTorch)"
            )
        xp = get_array_module(x if hasattr(x, "dtype") else y)
        refuse_integer_zero_divisor(x, y, cls.ufunc)
        if cls is FloorDiv and y.__class__ in _NUMBERS:  # (x // s; not %, whose s is rounded)
            z = opmath_scalar(xp.floor_divide, x, y)
            if z is not None:
                return z
        return getattr(xp, cls.ufunc)(x, y)

    @staticmethod
    def backward(ctx, gz):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class Mod(FloorDiv):
    """z = x - floor(x / y) * y, with the sign of y (Python's %, PyTorch's remainder);
    dz/dx = 1,  dz/dy = -floor(x / y) (the quotient is piecewise constant: its derivative is 0).

    PyTorch has no gradient for a Python number % tensor (``1.0 % x``) and raises; here the same
    formula gives it, as it does for tensor % tensor."""

    ufunc = "remainder"

    @classmethod
    @quiet_fp  # the quotient by 0: inf or NaN
    def forward(cls, ctx, x, y):
        z = super().forward(ctx, x, y)
        if z.dtype.kind in "fV":  # a 0 has x's sign, as PyTorch's fmod-based kernel (not y's)
            z = get_array_module(z).where(z == 0, get_array_module(z).copysign(z, x), z)
        if ctx.needs_input_grad[1]:  # the quotient, a constant of the graph; x and y: anchors
            ctx.save_for_backward(cls.quotient(get_array_module(z), x, y).astype(z.dtype), x, y)
        return z

    @staticmethod
    def quotient(xp, x, y):
        return xp.floor_divide(x, y)

    @staticmethod
    def backward(ctx, gz):
        need_x, need_y = ctx.needs_input_grad
        gy = None
        if need_y:  # as PyTorch's -g * div(x, y, rounding_mode=...): in x's and y's graph
            quotient, x, y = ctx.saved_tensors
            gy = keep_in_graph(-gz * quotient, x, y)
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

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp
    def forward(ctx, x, y):
        z = _integer_power(x, y) if _negative_int_exponent(x, y) else x**y
        # z only for the exponent's gradient: saved otherwise, an in-place change of the result
        # (y = x ** 2; y.mul_(2)) would make backward refuse, where PyTorch does not
        ctx.save_for_backward(x, y, z if ctx.needs_input_grad[1] else None)
        return z

    @staticmethod
    @quiet_fp
    def backward(ctx, gz):
        x, y, z = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        xd, yd = getattr(x, "_data", x), getattr(y, "_data", y)
        gx = gy = None
        if need_x:  # d/dx x^0 = 0, also at x = 0 where y x^(y-1) is 0 * inf (PyTorch's rule)
            # gz * (y x^(y-1)), grouped as PyTorch: (gz * y) first overflows a large gz sooner
            gx = _zero_where(yd == 0, gz * (y * x ** (y - 1)))
        if need_y:  # x^y ln x is taken as 0 at x = 0 for y >= 0 (not 0 * -inf), as in PyTorch
            if hasattr(x, "log"):
                log_x = x.log()
            else:  # a scalar base (2 ** t): math.log raises at and below 0
                log_x = math.log(x) if x > 0 else -math.inf if x == 0 else math.nan
            # (PyTorch masks the factor, then multiplies: an inf gz there still gives NaN)
            gy = gz * _zero_where((xd == 0) & (yd >= 0), z * log_x)
        return gx, gy


_F64 = np.dtype(np.float64)


def _negative_int_exponent(x, y) -> bool:
    """An integer base with an integer exponent tensor holding a negative value (NumPy refuses
    that power; PyTorch computes it). A negative Python int exponent is refused before this, by
    the tensor methods, as PyTorch refuses it."""
    if getattr(y, "dtype", None) is None or y.dtype.kind != "i":
        return False
    if type(x) is not int and type(x) is not bool and getattr(x, "dtype", _F64).kind not in "biu":
        return False
    return bool((y < 0).any())


def _integer_power(x, y):
    """x ** y in integers, as PyTorch: x^-n is 1 / x^n truncated toward zero, so 0 for |x| > 1,
    1 for x = 1, and +1 or -1 by the parity of n for x = -1 (0 ** -n is 0 too)."""
    xp = get_array_module(y)
    negative = y < 0
    z = xp.asarray(x ** xp.where(negative, 0, y))
    parity = xp.where(y % 2 == 0, 1, -1)
    small = xp.where(xp.asarray(x) == -1, parity, xp.where(xp.asarray(x) == 1, 1, 0))
    return xp.where(negative, small, z).astype(z.dtype)


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

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp
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

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp
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
    @quiet_fp
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
    def backward(ctx, gy):  # zeros, not gy * 0: an inf or NaN gy must not give NaN
        return type(gy)._make(get_array_module(gy._data).zeros_like(gy._data), False)


class SelectGrad(Op):
    """gx = gy where ``keep``, else ``slope * gy`` (0 by default);   d gx/d gy: the same selection.

    The gradient of every op whose derivative is 1 or 0 (relu, where, clamp, max, max pooling):
    a selection, not gy * mask, so an inf or NaN gy does not reach the elements the mask turns off
    (inf * 0 would be NaN there; PyTorch gives 0).

    ``anchor`` is None or the tensor the mask was read from. PyTorch writes some of these
    backwards (relu, leaky_relu, max pooling) as ops of that tensor, so under create_graph their
    gradient stays in the graph even for a constant upstream gradient, and differentiating it again
    works and gives zeros for the anchor. Passing it does the same here."""

    @staticmethod
    def forward(ctx, gy, keep, anchor, slope):
        xp = get_array_module(gy)
        ctx.slope = slope
        ctx.save_for_backward(keep, anchor if ctx.needs_input_grad[2] else None)
        if not slope:
            return where_or_zero(keep, gy)
        return xp.where(keep, gy, gy * slope)

    @staticmethod
    def backward(ctx, ggx):
        keep, anchor = ctx.saved_tensors
        g_anchor = None
        if anchor is not None:
            g_anchor = type(ggx)._make(get_array_module(ggx._data).zeros_like(anchor._data), False)
        return SelectGrad.apply(ggx, keep, anchor, ctx.slope), None, g_anchor, None


def where_or_zero(keep, a):
    """``a`` where ``keep`` (a bool array broadcastable to a), else 0 (inf and NaN in ``a`` do not
    reach the zeros). GPU arrays and large float arrays take a faster select
    (kernels/elementwise.py)."""
    big = type(a) is not np.ndarray or a.size >= kernels.elementwise.SELECT_BITS_MIN
    fast = big and a.dtype.kind in "fV"
    if fast and (y := kernels.elementwise.where_or_zero(keep, a)) is not None:
        return y
    xp = get_array_module(a)
    return xp.where(keep, a, xp.zeros((), a.dtype))


def select_grad(g, keep, anchor=None, slope: float = 0.0):
    """``g`` where ``keep`` (a bool array), else ``slope * g``: see SelectGrad."""
    return SelectGrad.apply(g, keep, anchor, slope)


class _Extremum(Op):
    """z = max(x, y) or min(x, y);   the gradient goes to the winning input, half to each on a
    tie, and to both where a NaN makes them incomparable (PyTorch's formulas:
    where(x == y, g/2, g), masked to 0 for x where x loses, for y where y loses; GPU: no sync)."""

    ufunc = "maximum"

    @classmethod
    @quiet_fp
    def forward(cls, ctx, x, y):
        xp = get_array_module(x)
        z = getattr(xp, cls.ufunc)(x, y)
        need_x, need_y = ctx.needs_input_grad
        if not (need_x or need_y):
            return z
        x_loses, y_loses = (x < y, x > y) if cls.ufunc == "maximum" else (x > y, x < y)
        tie = x == y
        half = xp.where(tie, 0.5, 1.0).astype(z.dtype) if xp is not np or tie.any() else None
        ctx.save_for_backward(
            xp.logical_not(x_loses) if need_x else None,
            xp.logical_not(y_loses) if need_y else None,
            half,
        )
        return z

    @staticmethod
    def backward(ctx, gz):
        keep_x, keep_y, half = ctx.saved_tensors
        g = gz if half is None else gz * half  # the factor is 1 or 1/2, never 0: inf stays inf
        return (
            None if keep_x is None else select_grad(g, keep_x._data),
            None if keep_y is None else select_grad(g, keep_y._data),
        )


class Maximum(_Extremum):
    """z = max(x, y) (see _Extremum for the gradient)."""

    autocast = PROMOTE

    ufunc = "maximum"


class Minimum(_Extremum):
    """z = min(x, y) (see _Extremum for the gradient)."""

    autocast = PROMOTE

    ufunc = "minimum"


class Where(Op):
    """z = cond ? x : y;   dz/dx = cond, dz/dy = not cond (selections: see SelectGrad)."""

    autocast = PROMOTE

    @staticmethod
    def forward(ctx, cond, x, y):
        xp = get_array_module(cond)
        z = xp.where(cond, x, y)
        # CuPy's where widens bfloat16 to float32; a float array's dtype wins over a Python number
        dtypes = {v.dtype for v in (x, y) if hasattr(v, "dtype")}
        if len(dtypes) == 1 and (dtype := dtypes.pop()).kind in "fV":
            z = z.astype(dtype, copy=False)
        ctx.save_for_backward(cond.astype(bool))  # a copy: later changes to cond don't count
        return z

    @staticmethod
    def backward(ctx, gz):
        (c,) = ctx.saved_tensors
        _, need_x, need_y = ctx.needs_input_grad
        c = c._data
        return (
            None,
            select_grad(gz, c) if need_x else None,
            select_grad(gz, get_array_module(c).logical_not(c)) if need_y else None,
        )


class CopyInto(Op):
    """z = s, broadcast into x's shape (copy_ written out of place: x's old value is overwritten);
    dz/ds = 1;  dz/dx = 0, given as zeros outside the graph (PyTorch's copy_ backward)."""

    @staticmethod
    def forward(ctx, x, s):
        return get_array_module(x).broadcast_to(s, x.shape).astype(x.dtype, copy=True)

    @staticmethod
    def backward(ctx, gz):
        zeros = type(gz)._make(get_array_module(gz._data).zeros_like(gz._data), False)
        return (zeros if ctx.needs_input_grad[0] else None), gz


class Clamp(Op):
    """y = min(max(x, lo), hi);   dy/dx = 1 where lo <= x <= hi, else 0 (PyTorch's convention).
    Tensor bounds (PyTorch's rule): dy/dlo = 1 where x < lo < hi; dy/dhi = 1 where x > hi or
    hi < lo (then every output is hi). All three are selections (see SelectGrad)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, lo, hi):
        xp = get_array_module(x)
        inside = xp.ones(x.shape, dtype=bool)
        if lo is not None:
            inside = inside & (x >= lo)
        if hi is not None:
            inside = inside & (x <= hi)
        to_lo = to_hi = None
        _, need_lo, need_hi = ctx.needs_input_grad
        if need_lo:
            to_lo = x < lo if hi is None else (x < lo) & (lo < hi)
        if need_hi:
            to_hi = x > hi if lo is None else (x > hi) | (hi < lo)
        ctx.save_for_backward(inside, to_lo, to_hi)
        if lo is not None and hi is not None:
            return xp.clip(x, lo, hi).astype(x.dtype, copy=False)
        # one bound: CuPy's clip refuses None for the other
        y = xp.maximum(x, lo) if lo is not None else xp.minimum(x, hi)
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        inside, to_lo, to_hi = ctx.saved_tensors
        return (
            select_grad(gy, inside._data),
            None if to_lo is None else select_grad(gy, to_lo._data),
            None if to_hi is None else select_grad(gy, to_hi._data),
        )


class NanToNum(Op):
    """y = x, with NaN -> nan, +inf -> posinf, -inf -> neginf;
    dy/dx = 1 where x is finite, else 0 (the replaced values are constants)."""

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        xp = get_array_module(x)
        if x.dtype.kind not in "fV":
            return x.copy()
        info = ml_dtypes.finfo(x.dtype)  # (NumPy's finfo, and bfloat16's, which NumPy lacks)
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


class Cast(Op):
    """y = x converted to another dtype;   the gradient is cast back to x's dtype."""

    @staticmethod
    def forward(ctx, x, dtype):
        ctx.src_dtype = x.dtype
        return convert(x, dtype)  # float64 -> float16 through float32, as PyTorch

    @staticmethod
    def backward(ctx, gy):
        return gy._cast(ctx.src_dtype), None


class ToDevice(Op):
    """y = x copied to another device (NumPy <-> CuPy);   the gradient is copied back."""

    @staticmethod
    def forward(ctx, x, dev):
        ctx.src = device_of(x)
        return to_device(x, dev)

    @staticmethod
    def backward(ctx, gy):
        return gy.to(ctx.src), None
