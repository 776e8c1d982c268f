"""The affine map of a fully connected layer, fused into one op; and its autocast form.

``x @ W.T + b`` written with three ops (permute, matmul, add) works, but for an input with batch
dims (B, T, in) the matmul's weight gradient would first be built per batch element, (B, in, out),
and only then summed. Flattening the batch dims first makes every gradient a single 2-D matmul.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy import ndarray

from .. import autocast_policy as _policy
from .. import kernels
from ..autocast_policy import LOWER
from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..autograd.tensor_base import TensorBase
from ..backend import get_array_module, quiet_fp
from ..conversions import convert
from .matmul import MatMul, matmul_arrays


class Linear(Op):
    """y = x W^T + b  (x: (..., in), W: (out, in), b: (out,) or None);
    dL/dx = dL/dy W,   dL/dW = sum over rows of dL/dy^T x,   dL/db = sum over rows of dL/dy."""

    autocast = LOWER

    @staticmethod
    def forward(ctx, x, w, b):
        if x.shape[-1] != w.shape[1]:
            raise _features_error(x, w)
        need_x, need_w, ctx.x_shape = *ctx.needs_input_grad[:2], x.shape  # x for W's gradient,
        ctx.save_for_backward(x if need_w else None, w if need_x else None)  # W for x's only
        x2 = x.reshape(math.prod(x.shape[:-1]), x.shape[-1])  # (-1: ambiguous with 0 features)
        y_shape = x.shape[:-1] + (w.shape[0],)
        big = type(x) is ndarray and x2.shape[0] * w.shape[0] >= kernels.blas.LINEAR_MIN_OUTPUT
        if big and (y := kernels.blas.linear(x2, w, b)) is not None:  # BLAS adds x W^T into b
            return y.reshape(y_shape)
        return _affine(x2, w, b).reshape(y_shape)

    @staticmethod
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        if state.grad_enabled:  # create_graph: the same products as recorded ops
            return _linear_grads_recorded(ctx, gy, x, w)
        need_x, need_w, need_b = ctx.needs_input_grad
        g = gy._data.reshape(math.prod(gy._data.shape[:-1]), gy._data.shape[-1])  # per position
        make = TensorBase._make
        # NumPy's matmul, BLAS's gemm (the pass is quiet_fp already); 2-byte floats: matmul_arrays
        matmul = matmul_arrays if g.dtype.itemsize == 2 else get_array_module(g).matmul
        gx = make(matmul(g, w._data).reshape(ctx.x_shape)) if need_x else None
        gw = make(matmul(g.T, x._data.reshape(g.shape[0], ctx.x_shape[-1]))) if need_w else None
        gb = make(_column_sums(g)) if need_b else None
        return gx, gw, gb


@quiet_fp  # overflow to inf quietly, as in PyTorch (and as gemm does)
def _affine(x, w, b):
    """x w^T + b for 2-D arrays x (M, K), w (N, K) and b (N,) or None: NumPy's product (``dot``,
    less dispatch than the matmul gufunc) and the bias added in place; GPU arrays and 2-byte
    floats through ops/matmul.py (2-byte floats multiplied in float32 and rounded once)."""
    if type(x) is not ndarray or x.dtype.itemsize == 2:
        return matmul_arrays(x, w.T, b)
    y = x.dot(w.T)
    if b is not None:
        y += b
    return y


def _column_sums(g):
    """The sum of the rows of the 2-D gradient g, dL/db: 2-byte floats summed in float32 and
    rounded once (as Sum does); from ``COLUMN_SUM_MIN_ROWS`` rows of a NumPy float32/float64 g,
    BLAS's ``ones @ g`` (kernels/blas.py), faster than NumPy's strided adds from there."""
    big = type(g) is ndarray and g.shape[0] >= kernels.blas.COLUMN_SUM_MIN_ROWS
    if big and (s := kernels.blas.column_sum(g)) is not None:
        return s
    wide = g.astype(np.float32) if g.dtype.itemsize == 2 else g
    return wide.sum(axis=0).astype(g.dtype, copy=False)


def _rows(a):
    """a as (positions, features); the count is spelled out, as reshape's -1 is ambiguous when
    there are no features (a hidden layer of width 0)."""
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


def _features_error(x, w) -> RuntimeError:
    """PyTorch's error (a RuntimeError from its matmul of the input's rows by weight.T), with
    what is wrong in words."""
    rows = math.prod(x.shape[:-1])
    return RuntimeError(
        f"linear: mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} and "
        f"{w.shape[1]}x{w.shape[0]}): input has {x.shape[-1]} features in its last dim but the "
        f"weight expects {w.shape[1]} (input shape {tuple(x.shape)}, weight shape "
        f"{tuple(w.shape)})"
    )


def _linear_grads_recorded(ctx, gy, x, w) -> tuple:
    """Linear's gradients written with ops that record (``create_graph=True``), so that they can
    be differentiated again: the same products as ``Linear.backward``'s arrays."""
    need_x, need_w, need_b = ctx.needs_input_grad
    g2 = gy if gy.ndim == 2 else _rows(gy)
    gx = MatMul.apply(g2, w) if need_x else None
    gw = MatMul.apply(g2.mT, x if x.ndim == 2 else _rows(x)) if need_w else None
    gb = g2.sum(dim=0) if need_b else None
    return (gx if gx is None or len(ctx.x_shape) == 2 else gx.reshape(ctx.x_shape)), gw, gb


# ----------------------------------------------------------------------------------------------
# Under autocast on the CPU: float32 master weights, low-precision activations
# ----------------------------------------------------------------------------------------------
def autocast_linear(x: Any, w: Any, b: Any) -> Any:
    """``F.linear`` while autocast lowers it: :class:`AutocastLinear` for the usual case (a NumPy
    float32 leaf weight and bias, a 2-byte low dtype), else ``Linear`` on operands autocast
    casts (a GPU weight: cuBLAS multiplies the low dtype itself)."""
    setting = state.autocast_dtype
    low = setting.cpu
    if (
        isinstance(w._data, np.ndarray)
        and w.grad_fn is None  # a leaf, as parameters are (see _autocast_linear_graph)
        and w._data.dtype == np.float32
        and (b is None or b._data.dtype == np.float32)
        and low.itemsize == 2
    ):
        (x,) = _policy.cast_args(LOWER, (x,), setting)  # a float32 activation: one Cast op
        if x._data.dtype == low and x.shape[-1] == w.shape[1]:
            w_low = _policy.rounded_copy(w, low, setting)
            b_low = None if b is None else _policy.rounded_copy(b, low, setting)
            return AutocastLinear.apply(x, w, b, w_low, b_low)
    return Linear.apply(x, w, b)


class AutocastLinear(Op):
    """y = round(x W_r^T + b_r): PyTorch's autocast linear, with the casts of the float32 weight
    and bias folded in. x is already in the low dtype L (bfloat16 by default); W_r and b_r are W
    and b rounded to L (autocast's cache makes them once per step); the product is taken in
    float32 (NumPy has no 2-byte BLAS) and ``round`` rounds it to L once, as PyTorch's addmm
    does.

    Backward, with g = dL/dy in float32:
        dL/dx = round(g W_r)           in L, like x;
        dL/dW = g^T x,  dL/db = sum of g over rows     in float32, for the float32 parameters.
    PyTorch's weight gradient is the same product rounded to L and cast straight back to float32
    (the weight's cast is a separate op there); for bfloat16 the float32 value is that number
    before its rounding (they differ by at most half a unit in L's last place). Skipping the round
    trip saves two passes over every weight-sized gradient, the largest arrays of a small model's
    step. float16 keeps the round trip: its range ends at 65504, and a gradient beyond it must
    become inf, as in PyTorch, so that GradScaler sees the overflow and skips the step.
    Only 2-byte arrays are kept (x and W_r for backward, each only if a gradient needs it; W_r
    and b_r in the cache): their float32 copies are made where they are used, and dropped at once.
    Backward widens g once for its three products (not once for dL/dW, dL/db and again for
    dL/dx): 4.7 M widenings fewer per char GPT step, ~5% of it; the cost is the float32 g alive
    while the weight's gradient is passed on: bench_amp.py's peak 0.62x -> 0.64x.
    """

    @staticmethod
    def forward(ctx, x, w, b, w_low, b_low):
        # w and b are arguments for their gradient edges; the product uses their rounded copies
        need_x, need_w = ctx.needs_input_grad[:2]
        ctx.save_for_backward(x if need_w else None, w_low if need_x else None)
        x32, w32 = convert(x.reshape(-1, x.shape[-1]), np.float32), convert(w_low, np.float32)
        b32 = None if b_low is None else b_low.astype(np.float32)
        big = type(x) is ndarray and x32.shape[0] * w.shape[0] >= kernels.blas.LINEAR_MIN_OUTPUT
        y_shape = x.shape[:-1] + (w.shape[0],)
        if big and (y := kernels.casts.linear_rounded(x32, w32, b32, x.dtype)) is not None:
            return y.reshape(y_shape)  # the bias added in the rounding's pass
        y = kernels.blas.linear(x32, w32, b32) if big else None  # (BLAS: see Linear)
        if y is None:
            y = _affine(x32, w32, b32)
        return convert(y, x.dtype).reshape(y_shape)

    @staticmethod
    def backward(ctx, gy):
        x, w_low = ctx.saved_tensors  # w_low comes back as a tensor (no graph)
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        if state.grad_enabled:  # create_graph: the same formulas, written with ops that record
            yield from _autocast_linear_graph(ctx, gy, x, w_low, need_x, need_w, need_b)
            return
        # g widened once for all three products (the widening is most of a 2-byte step's extra
        # time). The weight's gradient goes first (see the engine's send_as_yielded); the float32
        # g stays alive meanwhile. (grads holds each array only until it is yielded: a leaf's
        # gradient nothing else holds becomes its .grad without a copy, autograd/grad_reuse.py)
        g = gy._data.reshape(-1, gy.shape[-1])
        fused = need_b and type(g) is ndarray and g.size >= kernels.casts.CAST_MIN
        fused = kernels.casts.widen_with_column_sums(g) if fused else None  # dL/db in the pass
        g32, gb = fused or (convert(g, np.float32), None)
        grads = [None, None, None]
        low = gy._data.dtype
        if need_w:
            gw = g32.T @ convert(x._data.reshape(-1, x.shape[-1]), np.float32)
            grads[1] = _through_float16(gw, low)
            del gw
            yield 1, _pop_as_tensor(grads, 1)
        if need_b:
            grads[2] = _through_float16(_column_sums(g32) if gb is None else gb, low)
            del gb
            yield 2, _pop_as_tensor(grads, 2)
        if need_x:
            gx = convert(g32 @ convert(w_low._data, np.float32), gy._data.dtype)
            del g32  # this is a generator: its locals would live on until the last yield
            grads[0] = gx.reshape(gy.shape[:-1] + (w_low.shape[1],))
            del gx
            yield 0, _pop_as_tensor(grads, 0)


@quiet_fp  # beyond float16's range becomes inf quietly, as in PyTorch
def _through_float16(a, low):
    """The float32 gradient ``a`` rounded to ``low`` and back when ``low`` is float16 (PyTorch
    computes it in float16, then casts it to the float32 parameter's dtype): values past 65504
    become inf, which GradScaler must see. bfloat16 has float32's range: ``a`` is kept as it is
    (see AutocastLinear)."""
    if low != np.float16:
        return a
    return a.astype(np.float16).astype(np.float32)


def _pop_as_tensor(arrays: list, i: int):
    """arrays[i] as a tensor, no longer held by the list."""
    a, arrays[i] = arrays[i], None
    return TensorBase._make(a)


def _autocast_linear_graph(ctx, gy, x, w_low, need_x, need_w, need_b):
    """AutocastLinear's gradients as recorded ops, so that they can be differentiated again
    (``create_graph=True``): the same values as the array path. The weight is a leaf (see
    ``autocast_linear``), so its edge leads to the tensor itself."""
    g = gy.reshape(-1, gy.shape[-1]).float()
    half = gy._data.dtype == np.float16  # float16's narrow range: overflow to inf as PyTorch's does
    if need_w:
        gw = g.mT @ x.reshape(-1, x.shape[-1]).float()
        yield 1, gw.to(gy.dtype).float() if half else gw
    if need_b:
        gb = g.sum(dim=0)
        yield 2, gb.to(gy.dtype).float() if half else gb
    if need_x:
        if need_w:  # dL/dx depends on W: cast the weight with an op, so that a second
            w_r = ctx.next_edges[1][0]._cast(w_low._data.dtype).float()  # backward reaches it
        else:
            w_r = w_low.float()
        yield 0, (g @ w_r).to(gy.dtype).reshape(gy.shape[:-1] + (w_r.shape[1],))
