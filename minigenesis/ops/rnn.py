"""Recurrent cells, each fused into one op: one graph node per time step and layer.

A recurrent layer first maps the whole input sequence through W_ih in one matmul (``xw = x W_ih^T
+ b_ih``, an ordinary Linear op), then runs one cell op per time step on that step's slice of xw
and the previous state. Written with elementary ops an LSTM step is a dozen graph nodes (a matmul,
adds, four gate activations, products); fused, it is one: forward keeps the activated gates, and
backward turns the output gradients into the gate gradients in a few array expressions and then
into the gradients of xw, the previous state and the recurrent weights with two matmuls.

The gates are laid out as in PyTorch, so its state_dict loads unchanged (H: hidden size):

    RNN   h' = act(xw + h W_hh^T + b_hh)                          act = tanh or relu
    LSTM  [i, f, g, o] = xw + h W_hh^T + b_hh                      (4 blocks of H)
          i, f, o = sigmoid(.),  g = tanh(.)
          c' = f c + i g,   m = o tanh(c'),   h' = m  (or m W_hr^T with a projection)
    GRU   [r, z, n] blocks of xw and of hw = h W_hh^T + b_hh       (3 blocks of H)
          r = sigmoid(xw_r + hw_r),  z = sigmoid(xw_z + hw_z),  n = tanh(xw_n + r hw_n)
          h' = (1 - z) n + z h

Second derivatives: backward checks whether it is recording (``create_graph=True``). If not, it
works on arrays (the fast path). If it is, it recomputes the gates from the saved inputs with
Tensor ops and applies the same gradient formulas to Tensors, so the gradient is itself
differentiable. The formulas are written once (``_lstm_grads`` and friends) and run on either.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..autocast_policy import LOWER
from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..backend import get_array_module, quiet_fp
from .matmul import matmul_arrays
from .shape import Cat


@np.errstate(over="ignore")  # e^-x overflows for x < -88: the sigmoid is then exactly 0, correct
def _sigmoid_(v):
    """v <- 1 / (1 + e^-v), in place (v may be a view into the gate array).

    -v goes to a new array: NumPy 2.4's in-place ``negative(v, out=v)`` on a one-column view
    of a wider array (an LSTM gate block of hidden size 1) reads the wrong elements."""
    xp = get_array_module(v)
    e = xp.negative(v)
    xp.exp(e, out=e)
    e += 1
    xp.reciprocal(e, out=v)
    return v


def _float32_inside(leading: int) -> Callable:
    """A cell's forward on 2-byte floats run in float32, its outputs rounded once: the gates,
    their sigmoids/tanhs and the new cell state are not each rounded to float16/bfloat16 (which
    took an LSTM's h' and gradients 2-3x further from the float64 truth than PyTorch's CPU LSTM,
    whose oneDNN kernel keeps them in float32). The saved arrays stay float32, so backward
    computes in float32 too; the engine casts each gradient back to its input's dtype.

    ``leading``: how many arrays come first (xw and the state: h, or h and c). They share one
    2-byte dtype; the weights after them have that dtype too, or are float32 (a recurrent layer
    passes float32 copies of its 2-byte W_hh and b_hh, so the engine sums the steps' weight
    gradients in float32 and the copy's cast rounds the sum once, as PyTorch's oneDNN LSTM)."""

    def wrap(forward: Callable) -> Callable:
        def run(ctx, *args):
            # mixed dtypes otherwise (a float32 state under CPU autocast) promote as they are
            low = args[0].dtype
            lead = all(a.dtype == low for a in args[:leading])
            rest = all(a.dtype in (low, np.float32) for a in args[leading:] if hasattr(a, "dtype"))
            if not (lead and rest and low.itemsize == 2 and low.kind in "fV"):  # bfloat16: "V"
                return forward(ctx, *args)
            wide = [a.astype(np.float32) if getattr(a, "dtype", None) == low else a for a in args]
            out = forward(ctx, *wide)
            if isinstance(out, tuple):
                return tuple(o.astype(low) for o in out)
            return out.astype(low)

        return run

    return wrap


def _wrap(like, array):
    """An array result of the fast path as a constant Tensor of the same class as ``like``."""
    return None if array is None else type(like)._make(array, False)


def _cat_arrays(*parts):
    return get_array_module(parts[0]).concatenate(parts, axis=-1)


def _cat_tensors(*parts):
    return Cat.apply(parts[0].ndim - 1, *parts)


def _recording() -> bool:
    """Is backward itself being recorded (``backward(create_graph=True)``)?"""
    return state.grad_enabled


def _recurrent_grads(need, dgates_x, dgates_h, h, w_hh, b_hh):
    """The gradients every cell shares, from the gate gradients: dL/dxw, dL/dh (through W_hh),
    dL/dW_hh, dL/db_hh. ``dgates_h`` is the gradient of h W_hh^T + b_hh (the GRU's differs from
    that of xw; the others pass the same array twice). Works on arrays and on Tensors."""
    g_xw = dgates_x if need[0] else None
    g_h = dgates_h @ w_hh if need[1] else None
    g_w = dgates_h.T @ h if need[2] else None
    g_b = dgates_h.sum(0) if need[3] and b_hh is not None else None
    return g_xw, g_h, g_w, g_b


# ---------------------------------------------------------------------------------------- RNN
def _rnn_act_grad(gh, h_new, relu: bool):
    """dL/da from dL/dh' for h' = act(a): (1 - h'^2) for tanh, [h' > 0] for relu."""
    if relu:
        return gh * (h_new > 0)
    return gh * (1 - h_new * h_new)


class RNNCell(Op):
    """h' = act(xw + h W_hh^T + b_hh) (act = tanh, or relu when ``relu``);
    with a = the pre-activation and da = dL/dh' act'(a):
    dL/dxw = da,  dL/dh = da W_hh,  dL/dW_hh = da^T h,  dL/db_hh = sum over the batch of da."""

    autocast = LOWER  # PyTorch's rnn_tanh/relu cells: on its lists (CUDA; linears on the CPU)

    @staticmethod
    @_float32_inside(leading=2)
    @quiet_fp  # inf - inf in the pre-activation is NaN, silently as in PyTorch
    def forward(ctx, xw, h, w_hh, b_hh, relu):
        xp = get_array_module(xw)
        a = matmul_arrays(h, w_hh.T, b_hh)
        a += xw
        h_new = xp.maximum(a, 0, out=a) if relu else xp.tanh(a, out=a)
        ctx.relu = relu
        ctx.save_for_backward(h, w_hh, h_new, xw, b_hh)
        return h_new

    @staticmethod
    @quiet_fp
    def backward(ctx, gh):
        h, w_hh, h_new, xw, b_hh = ctx.saved_tensors
        need = ctx.needs_input_grad[:4]
        if _recording():  # differentiable: h' recomputed from the inputs with Tensor ops
            a = xw + h @ w_hh.mT
            a = a + b_hh if b_hh is not None else a
            h_new = a.relu() if ctx.relu else a.tanh()
            da = _rnn_act_grad(gh, h_new, ctx.relu)
            return (*_recurrent_grads(need, da, da, h, w_hh, b_hh), None)
        da = _rnn_act_grad(gh._data, h_new._data, ctx.relu)
        b = None if b_hh is None else b_hh._data
        grads = _recurrent_grads(need, da, da, h._data, w_hh._data, b)
        return (*(_wrap(gh, g) for g in grads), None)


# --------------------------------------------------------------------------------------- LSTM
def _lstm_grads(gm, gc, i, f, g, o, tc, c):
    """dL/d(pre-activation gates) of an LSTM step and dL/dc, from dL/dm (m = o tanh(c')) and the
    dL/dc' that comes from the next step; tc = tanh(c'). Works on arrays and on Tensors.

        dc' = dL/dc' + dL/dm o (1 - tc^2)
        di = dc' g i (1 - i),  df = dc' c f (1 - f),  dg = dc' i (1 - g^2),  do = dL/dm tc o (1 - o)
        dL/dc = dc' f
    """
    dc = gc + gm * o * (1 - tc * tc)
    di = dc * g * i * (1 - i)
    df = dc * c * f * (1 - f)
    dg = dc * i * (1 - g * g)
    do = gm * tc * o * (1 - o)
    return (di, df, dg, do), dc * f


class LSTMCell(Op):
    """One LSTM step (gates i, f, g, o in PyTorch's order; see the module docstring):
    inputs (xw, h, c, W_hh, b_hh or None, W_hr or None), outputs (h', c').

    Backward: dL/dm = dL/dh' (or dL/dh' W_hr with a projection, which adds dL/dW_hr = dL/dh'^T m),
    then the gate gradients of ``_lstm_grads``, then ``_recurrent_grads``."""

    @staticmethod
    @_float32_inside(leading=3)
    @quiet_fp  # inf - inf in the pre-activation is NaN, silently as in PyTorch
    def forward(ctx, xw, h, c, w_hh, b_hh, w_hr):
        xp = get_array_module(xw)
        hs = c.shape[-1]
        gates = matmul_arrays(h, w_hh.T, b_hh)
        gates += xw
        g_pre = gates[..., 2 * hs : 3 * hs].copy()
        # i, f and o are sigmoids, g a tanh: one sigmoid over all four blocks, then g's block
        # written over from its kept pre-activation (4 + 2 array passes instead of 4 + 4 + 1,
        # the same numbers: each element goes through the same formula as before)
        _sigmoid_(gates)
        xp.tanh(g_pre, out=gates[..., 2 * hs : 3 * hs])
        i, f, g, o = (gates[..., k * hs : (k + 1) * hs] for k in range(4))
        c_new = f * c
        c_new += i * g
        tc = xp.tanh(c_new)
        m = o * tc
        h_new = m if w_hr is None else matmul_arrays(m, w_hr.T)
        ctx.save_for_backward(xw, h, c, w_hh, b_hh, w_hr, gates, tc, m)
        return h_new, c_new

    @staticmethod
    @quiet_fp
    def backward(ctx, gh, gc):
        xw, h, c, w_hh, b_hh, w_hr, gates, tc, m = ctx.saved_tensors
        need = ctx.needs_input_grad
        hs = c.shape[-1]
        if _recording():  # differentiable: the step recomputed from the inputs with Tensor ops
            pre = xw + h @ w_hh.mT
            pre = pre + b_hh if b_hh is not None else pre
            i, f, o = (pre[..., k * hs : (k + 1) * hs].sigmoid() for k in (0, 1, 3))
            g = pre[..., 2 * hs : 3 * hs].tanh()
            tc = (f * c + i * g).tanh()
            m = o * tc
            cat, arrays = _cat_tensors, (gh, gc, w_hr, m, c, h, w_hh, b_hh)
        else:
            gates = gates._data
            i, f, g, o = (gates[..., k * hs : (k + 1) * hs] for k in range(4))
            tc = tc._data
            cat = _cat_arrays
            arrays = [None if t is None else t._data for t in (gh, gc, w_hr, m, c, h, w_hh, b_hh)]
        gh_, gc_, w_hr_, m_, c_, h_, w_hh_, b_hh_ = arrays
        g_whr = None
        if w_hr_ is None:
            gm = gh_
        else:
            gm = gh_ @ w_hr_
            g_whr = gh_.T @ m_ if need[5] else None
        dgates, g_c = _lstm_grads(gm, gc_, i, f, g, o, tc, c_)
        dgates = cat(*dgates)
        g_xw, g_h, g_w, g_b = _recurrent_grads(
            need[:1] + need[1:2] + need[3:5], dgates, dgates, h_, w_hh_, b_hh_
        )
        grads = (g_xw, g_h, g_c if need[2] else None, g_w, g_b, g_whr)
        if cat is _cat_tensors:
            return grads
        return tuple(_wrap(gh, g) for g in grads)


# ---------------------------------------------------------------------------------------- GRU
def _gru_grads(gh, h, r, z, n, hw_n):
    """dL/d(xw gates), dL/d(hw gates) as (r, z, n) blocks, and the direct part of dL/dh, from
    dL/dh' for h' = (1 - z) n + z h. Works on arrays and on Tensors.

        dz = dL/dh' (h - n) z (1 - z),   dn = dL/dh' (1 - z) (1 - n^2),   dr = dn hw_n r (1 - r)
        dL/dxw = [dr, dz, dn],   dL/dhw = [dr, dz, dn r],   dL/dh (direct) = dL/dh' z
    """
    dz = gh * (h - n) * z * (1 - z)
    dn = gh * (1 - z) * (1 - n * n)
    dr = dn * hw_n * r * (1 - r)
    return (dr, dz, dn), (dr, dz, dn * r), gh * z


class GRUCell(Op):
    """One GRU step (gates r, z, n in PyTorch's order, with PyTorch's n = tanh(xw_n + r (h W_hn^T
    + b_hn)); see the module docstring): inputs (xw, h, W_hh, b_hh or None), output h'.

    Backward: the gate gradients of ``_gru_grads``, then ``_recurrent_grads`` (whose dL/dh is
    added to the direct part)."""

    @staticmethod
    @_float32_inside(leading=2)
    @quiet_fp  # inf - inf in the pre-activation is NaN, silently as in PyTorch
    def forward(ctx, xw, h, w_hh, b_hh):
        xp = get_array_module(xw)
        hs = h.shape[-1]
        hw = matmul_arrays(h, w_hh.T, b_hh)
        rz = xw[..., : 2 * hs] + hw[..., : 2 * hs]
        _sigmoid_(rz)
        r, z = rz[..., :hs], rz[..., hs:]
        hw_n = hw[..., 2 * hs :]
        n = r * hw_n
        n += xw[..., 2 * hs :]
        xp.tanh(n, out=n)
        h_new = h - n
        h_new *= z
        h_new += n
        ctx.save_for_backward(xw, h, w_hh, b_hh, rz, n, hw_n)
        return h_new

    @staticmethod
    @quiet_fp
    def backward(ctx, gh):
        xw, h, w_hh, b_hh, rz, n, hw_n = ctx.saved_tensors
        need = ctx.needs_input_grad
        hs = h.shape[-1]
        if _recording():  # differentiable: the step recomputed from the inputs with Tensor ops
            hw = h @ w_hh.mT
            hw = hw + b_hh if b_hh is not None else hw
            r, z = (
                (xw[..., k * hs : (k + 1) * hs] + hw[..., k * hs : (k + 1) * hs]).sigmoid()
                for k in (0, 1)
            )
            hw_n = hw[..., 2 * hs :]
            n = (xw[..., 2 * hs :] + r * hw_n).tanh()
            cat, (gh_, h_, w_hh_, b_hh_) = _cat_tensors, (gh, h, w_hh, b_hh)
        else:
            r, z = rz._data[..., :hs], rz._data[..., hs:]
            n, hw_n = n._data, hw_n._data
            cat = _cat_arrays
            gh_, h_, w_hh_ = gh._data, h._data, w_hh._data
            b_hh_ = None if b_hh is None else b_hh._data
        d_x, d_h, g_h_direct = _gru_grads(gh_, h_, r, z, n, hw_n)
        d_x, d_h = cat(*d_x), cat(*d_h)
        g_xw, g_h, g_w, g_b = _recurrent_grads(
            (need[0], need[1], *need[2:4]), d_x, d_h, h_, w_hh_, b_hh_
        )
        g_h = g_h + g_h_direct if need[1] else None
        grads = (g_xw, g_h, g_w, g_b)
        if cat is _cat_tensors:
            return grads
        return tuple(_wrap(gh, g) for g in grads)


# ------------------------------------------------------------------- steps in and out of time
class Unstack(Op):
    """(y_0, ..., y_{n-1}) = x[0], ..., x[n-1] (the steps of a sequence, or the layers of a
    hidden state);   dL/dx = stack(dL/dy_k)."""

    @staticmethod
    def forward(ctx, x):
        return tuple(x[k] for k in range(x.shape[0]))

    @staticmethod
    def backward(ctx, *gys):
        return Stack.apply(*gys)


class Stack(Op):
    """y = stack(x_0, ..., x_{n-1}) along a new first dim;   dL/dx_k = dL/dy[k]."""

    @staticmethod
    def forward(ctx, *xs):
        return get_array_module(xs[0]).stack(xs)

    @staticmethod
    def backward(ctx, gy):
        grads = Unstack.apply(gy)
        return grads if isinstance(grads, tuple) else (grads,)
