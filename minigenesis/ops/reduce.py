"""Reductions: sum, mean, var, max/min (with and without dim), logsumexp, prod; the running
reductions (scans) cumsum, cumprod, cummax and cummin.

``axis`` is None (all elements) or a tuple of non-negative dims, already normalised by the caller.
Backward re-inserts the reduced dims (when keepdim=False) and broadcasts the gradient back.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..autocast_policy import CUDA_FLOAT32, FLOAT32
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled, state
from ..backend import get_array_module, quiet_fp
from .elementwise import Where, select_grad
from .gather_scatter import ScatterAlongDim
from .shape import Cat


def _kept_shape(shape: tuple, axis: tuple | None) -> tuple:
    """The output shape with keepdim=True: reduced dims become 1."""
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


def _axes(x, axis: tuple | None) -> tuple | None:
    """PyTorch reduces everything for ``dim=()`` and accepts dim 0 / -1 on a 0-d tensor; NumPy
    reads ``axis=()`` as "reduce nothing" and refuses axis 0 on a 0-d array: both become None."""
    return None if axis == () or x.ndim == 0 else axis


def _count(shape: tuple, axis: tuple | None) -> int:
    n = 1
    for i, s in enumerate(shape):
        if axis is None or i in axis:
            n *= s
    return n


def _low_precision(x) -> bool:
    """float16/bfloat16 are summed in float32 (as PyTorch accumulates them) then rounded back."""
    return x.dtype.itemsize == 2 and x.dtype.kind in "fV"


class Sum(Op):
    """y = sum_i x_i over ``axis``;   dy/dx_i = 1, so the gradient is broadcast back."""

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp  # overflow to inf, inf - inf = NaN, as in PyTorch
    def forward(ctx, x, axis, keepdims):
        axis = _axes(x, axis)
        ctx.in_shape = x.shape
        ctx.kept = _kept_shape(x.shape, axis)
        xp = get_array_module(x)
        acc = x.astype(xp.float32) if _low_precision(x) else x
        return xp.asarray(acc.sum(axis=axis, keepdims=keepdims)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        if not state.grad_enabled:  # nothing records: the broadcast on arrays, not as two ops
            return _broadcast_back(gy, gy._data, ctx), None, None
        return gy.reshape(ctx.kept).expand(ctx.in_shape), None, None


def _broadcast_back(gy, g, ctx):
    """The reduction's gradient (array g, from gy) with its reduced dims put back as 1s and
    broadcast to the input's shape (a read-only view, as ``Tensor.expand``'s), as a Tensor."""
    g = g.reshape(ctx.kept)
    if g.shape != ctx.in_shape:
        g = get_array_module(g).broadcast_to(g, ctx.in_shape)
    return type(gy)._make(g)


class Mean(Op):
    """y = (1/N) sum_i x_i;   dy/dx_i = 1/N."""

    @staticmethod
    @quiet_fp  # overflow to inf, as in PyTorch
    def forward(ctx, x, axis, keepdims):
        axis = _axes(x, axis)
        ctx.in_shape = x.shape
        ctx.kept = _kept_shape(x.shape, axis)
        ctx.n = _count(x.shape, axis)
        xp = get_array_module(x)
        acc = x.astype(xp.float32) if _low_precision(x) else x
        if ctx.n == 0:  # the mean of nothing: 0/0 = NaN, as PyTorch (NumPy's mean would warn)
            return xp.full_like(acc.sum(axis=axis, keepdims=keepdims), xp.nan, dtype=x.dtype)
        return xp.asarray(acc.mean(axis=axis, keepdims=keepdims)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        g = gy._data
        if not state.grad_enabled and g.dtype.kind == "f" and g.dtype.itemsize >= 4:
            return _broadcast_back(gy, g / ctx.n, ctx), None, None  # (2-byte: Div's rules)
        return (gy / ctx.n).reshape(ctx.kept).expand(ctx.in_shape), None, None


class Var(Op):
    """v = sum_i (x_i - mean)^2 / (N - c);   dv/dx_i = 2 (x_i - mean) / (N - c),  c = correction."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, axis, correction, keepdims):
        axis = _axes(x, axis)
        ctx.kept = _kept_shape(x.shape, axis)
        ctx.dof = _count(x.shape, axis) - correction  # N - c: may be <= 0 (then v is inf/nan)
        ctx.axis = axis  # every reduced dim, size-1 ones included (their x - mean is 0)
        ctx.save_for_backward(x)
        xp = get_array_module(x)
        acc = x.astype(xp.float32) if _low_precision(x) else x
        if ctx.dof > 0:
            v = acc.var(axis=axis, ddof=correction, keepdims=keepdims)
        else:  # PyTorch's warning, not NumPy's; the value is sum (x - mean)^2 / max(N - c, 0)
            warnings.warn(_DOF_WARNING, UserWarning, stacklevel=2)
            v = _quiet_divide(_squares(xp, acc, axis, keepdims), 0)
        return xp.asarray(v).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gv):
        (x,) = ctx.saved_tensors
        centered = x - x.mean(dim=ctx.axis, keepdim=True)
        gv = gv.reshape(ctx.kept)
        if ctx.dof > 0:
            return gv * centered * (2.0 / ctx.dof), None, None, None
        # N - c <= 0, PyTorch's rules: over all elements 2/0 = inf times (x - mean), NaN where
        # that is 0; over some dims the (possibly negative) 2 / (N - c), inf when it is 0
        if ctx.axis is None:
            xp = get_array_module(x._data)
            d = centered._data
            share = xp.where(d == 0, xp.nan, xp.inf).astype(d.dtype)
            return gv * type(x)._make(share, False), None, None, None
        scale = 2.0 / ctx.dof if ctx.dof != 0 else float("inf")
        return gv * centered * scale, None, None, None


class StdSqrt(Op):
    """s = sqrt(v) of a variance;   ds/dv = 1 / (2s), taken as 0 where s = 0 (PyTorch's std rule:
    the std of constant values has zero gradient, not 0 * inf = NaN)."""

    @staticmethod
    def forward(ctx, v):
        s = get_array_module(v).sqrt(v)
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, gs):
        (s,) = ctx.saved_tensors
        zero = s._data == 0  # s stands in as 1 there, so no 1/0 is computed
        return Where.apply(zero, 0.0, gs / (Where.apply(zero, 1.0, s) * 2))


class PNorm(Op):
    """n = (sum_i |x_i|^p)^(1/p) over ``axis``, for p not 0 or +-inf;
    dn/dx_i = sign(x_i) |x_i|^(p-1) / n^(p-1).

    Where n = 0 (all of a slice is zero) the gradient is taken as 0, PyTorch's subgradient, not
    0 * inf = NaN; for p < 1 also where x_i = 0 (|x_i|^(p-1) is inf there). So a gradient penalty
    or clipping at a zero gradient stays finite."""

    @staticmethod
    @quiet_fp  # |x|^p overflows to inf, as in PyTorch
    def forward(ctx, x, p, axis, keepdims):
        axis = _axes(x, axis)
        xp = get_array_module(x)
        a = xp.abs(x.astype(xp.float32) if _low_precision(x) else x)
        if p == 2:
            n = xp.sqrt((a * a).sum(axis=axis, keepdims=True))
        elif p == 1:
            n = a.sum(axis=axis, keepdims=True)
        else:
            n = (a**p).sum(axis=axis, keepdims=True) ** (1.0 / p)
        n = n.astype(x.dtype, copy=False)
        ctx.p, ctx.axis, ctx.kept = p, axis, n.shape
        if not keepdims:
            n = n.reshape([k for i, k in enumerate(x.shape) if i not in (axis or range(x.ndim))])
        # the output itself (not the keepdims array under it): a write into the output is then
        # seen by its version, not read silently by backward
        ctx.save_for_backward(x, n)
        return n

    @staticmethod
    def backward(ctx, gn):
        x, n = ctx.saved_tensors
        if is_grad_enabled():  # create_graph=True: n as a function of x (second derivatives)
            n = PNorm.apply(x, ctx.p, ctx.axis, True)
        else:
            n = n.reshape(ctx.kept)
        p, gn, zero = ctx.p, gn.reshape(ctx.kept), n._data == 0
        n = Where.apply(zero, 1.0, n)  # a stand-in where n = 0 (that gradient is set to 0 below)
        if p == 2:
            direction, scale = x, gn / n
        elif p == 1:
            direction, scale = x.sign(), gn
        else:  # sign(x) is 0 at x = 0, so |x| there may stand in as 1 (no inf for p < 1)
            a = Where.apply(x._data == 0, 1.0, x.abs()) if p < 1 else x.abs()
            direction, scale = x.sign() * a ** (p - 1), gn / n ** (p - 1)
        return direction * Where.apply(zero, 0.0, scale), None, None, None


class CountNonzero(Op):
    """y = number of x_i != 0 (norm p=0), in x's dtype;   no gradient (PyTorch's result has a
    grad_fn whose gradient is undefined, so x.grad stays None)."""

    @staticmethod
    def forward(ctx, x, axis, keepdims):
        n = (x != 0).sum(axis=axis, keepdims=keepdims)
        return get_array_module(x).asarray(n).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        return None, None, None


class MaxAll(Op):
    """y = max(x) over everything;   the gradient is shared evenly by the elements equal to y (the
    NaNs, when y is NaN), and is 0 elsewhere (a selection: see SelectGrad)."""

    sign = 1

    @staticmethod
    @quiet_fp
    def forward(ctx, x):
        xp = get_array_module(x)
        y = xp.asarray(x.max() if ctx.sign > 0 else x.min())
        if ctx.needs_input_grad[0]:
            # Computed on the device, with no host read (on a GPU each would be a sync):
            # the elements equal to y, or the NaNs when y is NaN, and how many there are.
            hits = (x == y) | (xp.isnan(x) & xp.isnan(y))
            ctx.count = hits.sum()
            ctx.save_for_backward(hits)
        return y

    @staticmethod
    def backward(ctx, gy):
        (hits,) = ctx.saved_tensors
        count = type(gy)._make(ctx.count.astype(gy._data.dtype), False)
        return select_grad(gy / count, hits._data)


class MinAll(MaxAll):
    """y = min(x) over everything;   the gradient is shared evenly by the elements equal to y."""

    sign = -1


class AMax(Op):
    """y = max(x) over the dims in ``axis``;   the gradient is shared evenly by the elements equal
    to y in each reduced slice (PyTorch's amax, unlike max(dim) which picks one index)."""

    sign = 1

    @staticmethod
    @quiet_fp  # a slice of NaN has no hits: 0/0 = NaN shares, as in PyTorch
    def forward(ctx, x, axis, keepdims):
        y = x.max(axis=axis, keepdims=True) if ctx.sign > 0 else x.min(axis=axis, keepdims=True)
        hits = x == y
        ctx.save_for_backward((hits / hits.sum(axis=axis, keepdims=True)).astype(x.dtype))
        ctx.kept = y.shape
        return y if keepdims else get_array_module(x).asarray(y.squeeze(axis))

    @staticmethod
    def backward(ctx, gy):
        (share,) = ctx.saved_tensors
        return gy.reshape(ctx.kept) * share, None, None


class AMin(AMax):
    """y = min(x) over the dims in ``axis``;   the gradient is shared evenly by the elements equal
    to y in each reduced slice."""

    sign = -1


class MaxDim(Op):
    """(values, indices) = max(x, dim);   the gradient goes to the element at each index (a
    selection: see SelectGrad). ``anchored`` subclasses keep x in the gradient's graph."""

    sign = 1
    anchored = False

    @staticmethod
    @quiet_fp
    def forward(ctx, x, dim, keepdim):
        xp = get_array_module(x)
        idx = xp.argmax(x, axis=dim) if ctx.sign > 0 else xp.argmin(x, axis=dim)
        idx_k = xp.expand_dims(idx, dim)
        values = xp.take_along_axis(x, idx_k, axis=dim)
        if ctx.needs_input_grad[0]:
            # one-hot of the chosen index along `dim`: the elements that get the gradient
            shape = [-1 if i == dim else 1 for i in range(x.ndim)]
            positions = xp.arange(x.shape[dim]).reshape(shape)
            ctx.save_for_backward(positions == idx_k, x if ctx.anchored else None)
        ctx.dim, ctx.keepdim = dim, keepdim
        if not keepdim:
            values = values.squeeze(dim)
        else:
            idx = idx_k
        return values, idx.astype(xp.int64, copy=False)  # integer: never requires grad

    @staticmethod
    def backward(ctx, gv, gi):
        onehot, x = ctx.saved_tensors
        if not ctx.keepdim:
            gv = gv.unsqueeze(ctx.dim)
        return select_grad(gv, onehot._data, x), None, None


class MinDim(MaxDim):
    """(values, indices) = min(x, dim);   the gradient goes to the element at each index."""

    sign = -1


_DOF_WARNING = (
    "var(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
    "factor (input numel divided by output numel)."
)


def _squares(xp, acc, axis, keepdims: bool):
    """sum_i (x_i - mean)^2 over ``axis`` (0 over no elements, where there is no mean)."""
    if acc.size == 0:
        return acc.sum(axis=axis, keepdims=keepdims)
    centered = acc - acc.mean(axis=axis, keepdims=True)
    return (centered * centered).sum(axis=axis, keepdims=keepdims)


@quiet_fp  # s / 0: inf, and 0 / 0: NaN, silently as in PyTorch
def _quiet_divide(a, b):
    return a / b


class LogSumExp(Op):
    """y = log sum_i exp(x_i) = m + log sum_i exp(x_i - m), m = max x (no overflow);
    dy/dx_i = exp(x_i - y) (the softmax)."""

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp  # all -inf: log 0 = -inf, as in PyTorch
    def forward(ctx, x, axis, keepdims):
        axis = _axes(x, axis)
        xp = get_array_module(x)
        xf = x.astype(xp.float32) if _low_precision(x) else x
        if x.size == 0:  # log of an empty sum (0) is -inf, as PyTorch (max has no identity)
            y = xp.full(_kept_shape(x.shape, axis), -xp.inf, dtype=xf.dtype)
        else:
            m = xf.max(axis=axis, keepdims=True)
            m = xp.where(xp.isfinite(m), m, 0)  # all -inf: avoid inf - inf
            y = xp.log(xp.exp(xf - m).sum(axis=axis, keepdims=True)) + m
        ctx.kept, ctx.axis = y.shape, axis
        ctx.save_for_backward(x, y.astype(x.dtype))
        if not keepdims:
            y = y.reshape([n for i, n in enumerate(x.shape) if i not in (axis or range(x.ndim))])
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        x, y = ctx.saved_tensors
        if is_grad_enabled():  # create_graph=True: y as a function of x (second derivatives)
            y = LogSumExp.apply(x, ctx.axis, True)
        return gy.reshape(ctx.kept) * (x - y).exp(), None, None


def _scan_accumulator(x):
    """The array a running sum or product accumulates in, PyTorch's accumulate type: float32 for
    2-byte floats, and on the CPU float64 for float32 (so each prefix of a float32 cumsum is the
    exact prefix rounded once, not a chain of float32 roundings); the input's type otherwise."""
    xp = get_array_module(x)
    if _low_precision(x):
        return x.astype(xp.float32)
    if xp is np and x.dtype == np.float32:
        return x.astype(np.float64)
    return x


class CumSum(Op):
    """y_i = sum_{j <= i} x_j along ``dim``;   dL/dx_j = sum_{i >= j} dL/dy_i, the cumulative sum
    of the gradient taken from the end (reverse, cumsum, reverse)."""

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp
    def forward(ctx, x, dim):
        ctx.dim = dim
        xp = get_array_module(x)
        return xp.cumsum(_scan_accumulator(x), axis=dim).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        return CumSum.apply(gy.flip(ctx.dim), ctx.dim).flip(ctx.dim), None


class Cumprod(Op):
    """y_i = x_0 * x_1 * ... * x_i along ``dim``;
    dL/dx_i = sum_{j >= i} g_j * prod_{k <= j, k != i} x_k.

    Without zeros that is (reverse cumsum of g * y)_i / x_i. With a zero in a slice the division
    is undefined, so the sum is taken directly: every i at once, from the cumulative products of
    x with x_i replaced by 1 (an (n, ...) stack, n = the size along ``dim``). Both paths are
    made of differentiable ops, so second derivatives are right with zeros too."""

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp
    def forward(ctx, x, dim):
        xp = get_array_module(x)
        y = xp.cumprod(_scan_accumulator(x), axis=dim).astype(x.dtype, copy=False)
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
        n = x.shape[d]
        along = (n,) + (1,) * d + (n,) + (1,) * (x.ndim - d - 1)  # [i, ..., j, ...]

        def mask(a):
            return type(x)._make(a.reshape(along), False)

        # rest[i, ..., j, ...] = prod_{k <= j, k != i} x_k, used for the j >= i
        rest = x.unsqueeze(0).where(mask(~xp.eye(n, dtype=bool)), 1.0).cumprod(d + 1)
        later = mask(xp.triu(xp.ones((n, n), dtype=x._data.dtype)))
        gx = (gy.unsqueeze(0) * rest * later).sum(d + 1)  # [i, ...]: the sum over j
        return gx.movedim(0, d), None


@quiet_fp
def _running(fn, a, axis: int):
    """fn.accumulate(a, axis) for fn = maximum / minimum. CuPy has no accumulate for these, so
    there it is a scan in log2(n) steps: after the step of width w, each place holds fn over
    the 2w places up to it (NaN propagates, as in fn)."""
    xp = get_array_module(a)
    if xp is np:
        return fn.accumulate(a, axis=axis)
    out = xp.moveaxis(a, axis, 0).copy()
    width = 1
    while width < out.shape[0]:
        out[width:] = fn(out[width:], out[:-width])
        width *= 2
    return xp.moveaxis(out, 0, axis)


class CumMax(Op):
    """(values, indices): values_i = max_{j <= i} x_j along ``dim``, indices_i = the last j <= i
    where x_j is that maximum (PyTorch's choice among ties; a NaN is the maximum from where it
    stands, and a later NaN takes over its index);   dL/dx_j = sum of dL/dvalues_i over the i
    whose index is j (a scatter-add of the gradient to the indices)."""

    sign = 1

    @staticmethod
    def forward(ctx, x, dim):
        xp = get_array_module(x)
        running = _running(xp.maximum if ctx.sign > 0 else xp.minimum, x, dim)
        hit = x == running  # x_j is the running extreme at j (a new one, or a tie)
        if x.dtype.kind in "fV":
            hit |= xp.isnan(x)
        shape = [-1 if e == dim else 1 for e in range(x.ndim)]
        at = xp.where(hit, xp.arange(x.shape[dim]).reshape(shape), 0)
        idx = _running(xp.maximum, at, dim).astype(xp.int64, copy=False)
        ctx.idx, ctx.dim, ctx.shape = idx, dim, x.shape
        # the values are the elements at the indices: where a tie of -0 and 0 moves the index,
        # the value's sign moves with it (PyTorch's kernel copies x_j; NumPy's running
        # maximum may keep the earlier zero)
        return xp.take_along_axis(x, idx, axis=dim), idx

    @staticmethod
    def backward(ctx, gv, gi):
        return ScatterAlongDim.apply(gv, ctx.idx, ctx.dim, ctx.shape, False), None


class CumMin(CumMax):
    """(values, indices) of the running minimum along ``dim``; as CumMax, with min."""

    sign = -1


class Prod(Op):
    """y = prod_i x_i over ``axis`` (None: everything; or one dim);
    dy/dx_i = prod_{j != i} x_j, built from the products before and after i (exclusive cumulative
    products), so a zero x_i needs no division by zero: with one zero in a slice only that element
    gets a gradient, with two none does (PyTorch's values)."""

    autocast = FLOAT32  # prod is on both of PyTorch's float32 lists (CPU and CUDA)

    @staticmethod
    @quiet_fp  # overflow to inf, as in PyTorch
    def forward(ctx, x, axis, keepdims):
        xp = get_array_module(x)
        ctx.in_shape, ctx.axis = x.shape, axis
        ctx.kept = _kept_shape(x.shape, None if axis is None else (axis,))
        ctx.save_for_backward(x)
        acc = x.astype(xp.float32) if _low_precision(x) else x
        return xp.asarray(acc.prod(axis=axis, keepdims=keepdims)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        # in Tensor ops (cat, cumprod, flip), so that the gradient is differentiable again
        (x,) = ctx.saved_tensors
        a = x.reshape(-1) if ctx.axis is None else x
        d = 0 if ctx.axis is None else ctx.axis
        n = a.shape[d]
        if n == 0:  # an empty slice: nothing to differentiate
            return gy.reshape(ctx.kept).expand(ctx.in_shape) * 0, None, None
        xp = get_array_module(x._data)
        ones = type(x)._make(xp.ones_like(a._data[(slice(None),) * d + (slice(0, 1),)]), False)
        before = Cat.apply(d, ones, a.narrow(d, 0, n - 1)).cumprod(d)
        after = Cat.apply(d, ones, a.flip(d).narrow(d, 0, n - 1)).cumprod(d).flip(d)
        return gy.reshape(ctx.kept) * (before * after).reshape(ctx.in_shape), None, None
