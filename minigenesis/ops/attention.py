"""Scaled dot-product attention, composed from differentiable ops (``attention``, behind
``nn.MultiheadAttention``) and as one fused op (``SDPA``, behind F.scaled_dot_product_attention).

    scores  = (Q scale) K^T + mask          (B..., L, S);  scale = 1/sqrt(E) by default
    weights = softmax(scores, dim=-1)       each query's distribution over the S keys
    out     = dropout(weights) V            (B..., L, E_v)

Masks say which keys a query may look at. A boolean ``attn_mask`` is True where attention is
ALLOWED (``scaled_dot_product_attention``'s convention; MultiheadAttention's masks are the
opposite, and the module converts them); a float mask is added to the scores (-inf forbids).
``is_causal`` lets query i see keys 0..i only (top-left aligned when L != S, as PyTorch).

A query whose keys are all forbidden would get softmax(-inf, ..., -inf) = 0/0 = NaN. As in PyTorch's
SDPA, its weights are 0 instead (so its output is 0), and no NaN reaches the gradients either: its
scores are replaced by zeros before the softmax and its weights zeroed after it.

Two implementations of the same arithmetic:

- ``attention`` composes it from differentiable ops (matmul, masked_fill, softmax, the dropout
  product), which know their own backward and every higher derivative; MultiheadAttention uses it
  when it returns the weights too (need_weights=True), and SDPA otherwise.
- ``SDPA`` (``F.scaled_dot_product_attention``) is one fused op. Its forward keeps the weights P
  (and the dropout mask) for backward; its backward is four matmuls and one elementwise pass:

      dV = P_d^T dO,   dP = (dO V^T) * D,   dS = P * (dP - rowsum(dP * P)),
      dQ = scale dS K,   dK = scale dS^T Q           (P_d = P * D: the weights after dropout)

  so no (..., L, S) temporary is alive beyond P and dP, as in PyTorch's math backend. Causal
  masking adds a (L, S) matrix of 0 / -inf, broadcast over the batch: no (..., L, S) mask is
  made, and the (L, S) one is made once per shape and device, then kept. Under create_graph
  the same formulas run as Tensor ops, with P recomputed from Q and K, so second derivatives
  stay exact.
"""

from __future__ import annotations

import contextlib
import functools
import math

import numpy as np
from numpy import ndarray

from .. import kernels
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import device_of, get_array_module, quiet_fp
from ..conversions import convert
from ..random import bernoulli_mask
from .matmul import matmul_arrays


def attention(
    query,
    key,
    value,
    mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
):
    """(output, weights) of scaled dot-product attention; ``mask`` is None, a boolean ARRAY
    (True = allowed) or a float Tensor added to the scores. Shapes are checked by the caller."""
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    scores = (query * scale) @ key.transpose(-2, -1)
    xp = get_array_module(scores._data)
    if is_causal:
        causal = _causal_mask(xp, L, S, device_of(scores._data))
        scores = scores.masked_fill(causal, -math.inf)
    if mask is not None:
        if isinstance(mask, type(scores)):  # float mask: added
            scores = scores + mask
        else:  # boolean mask: -inf where not allowed
            scores = scores.masked_fill(~mask, -math.inf)
    if mask is not None or is_causal:
        # rows with no allowed key: softmax on zeros (finite gradients), then zero weights
        dead = (scores._data == -math.inf).all(axis=-1, keepdims=True)
        if xp is not np or dead.any():  # on a GPU, masking always beats a host sync
            scores = scores.masked_fill(dead, 0.0)
            weights = scores.softmax(dim=-1).masked_fill(dead, 0.0)
        else:
            weights = scores.softmax(dim=-1)
    else:
        weights = scores.softmax(dim=-1)
    if dropout_p > 0.0:
        keep = 1.0 - dropout_p
        drop = bernoulli_mask(weights.shape, keep, weights._data)
        weights = weights * type(weights)._make(drop, False) * (1.0 / keep)
    return weights @ value, weights


def _forbidden(xp, mask, is_causal: bool, L: int, S: int, device):
    """Where the scores become -inf: a boolean array (broadcastable to the scores) or None."""
    if is_causal:
        return _causal_mask(xp, L, S, device)
    if mask is not None and mask.dtype == bool:
        return ~mask
    return None


@functools.lru_cache(maxsize=8)
def _causal_mask(xp, L: int, S: int, device) -> object:
    """True above the diagonal of an (L, S) matrix: the keys causal attention forbids. Made once
    per shape and device and kept, read only: every layer of every step needs the same one (and
    on a GPU making it is 3 launches)."""
    with _on(xp, device):
        forbidden = ~xp.tril(xp.ones((L, S), dtype=bool))
    if xp is np:
        forbidden.flags.writeable = False
    return forbidden


@functools.lru_cache(maxsize=8)
def _causal_bias(xp, L: int, S: int, device, dtype) -> object:
    """The causal mask as 0 / -inf in ``dtype``, added to the scores; kept as _causal_mask is."""
    with _on(xp, device):
        bias = xp.where(_causal_mask(xp, L, S, device), -xp.inf, 0.0).astype(dtype)
    if xp is np:  # laid out keys-first, as the CPU's scores are (see _scores)
        bias = xp.ascontiguousarray(bias.T).T
        bias.flags.writeable = False
    return bias


def _on(xp, device):
    """A context in which ``xp`` allocates on ``device``."""
    return contextlib.nullcontext() if xp is np else xp.cuda.Device(device.index or 0)


def _low(a) -> bool:
    """A 2-byte float (float16, or ml_dtypes' bfloat16, which NumPy reports as kind 'V')?"""
    return a.dtype.itemsize == 2 and a.dtype.kind in "fV"


def _operand(a, scale: float | None = None):
    """``a`` (times ``scale``) as a C-contiguous array in the dtype attention computes in: a's
    own, or float32 for 2-byte floats (their products accumulate in float32 and NumPy has no
    2-byte BLAS). Attention heads are usually transposed views ((B, T, H, E) -> (B, H, T, E)),
    and NumPy's batched matmul ran 2x slower on them (0.51 ms against 0.26 for a GPT's Q K^T, the
    copy costing 0.05): each operand is made contiguous once, in the pass that scales or widens
    it."""
    xp = get_array_module(a)
    if _low(a):
        if xp is np:  # widened from a contiguous copy: 2x faster than from the strided view
            a = convert(xp.ascontiguousarray(a), np.float32)
        else:  # on a GPU: widened into a contiguous array in one launch, not two
            a = a.astype(xp.float32, order="C")
        if scale is not None:
            a *= xp.float32(scale)
        return a
    if scale is None:
        return xp.ascontiguousarray(a)
    return xp.multiply(a, a.dtype.type(scale), out=xp.empty(a.shape, a.dtype))


def _scores(a, b):
    """a b^T (..., L, S) over the last two axes, as attention's scores Q K^T and their gradient
    dO V^T are. On the CPU the result is laid out keys-first in memory (the transpose of b a^T,
    returned as a view): the softmax's max and sums over the keys then run across contiguous
    rows. NumPy's max along a short last axis is a slow loop per row: 0.43 ms on a GPT's
    (16, 4, 64, 64) scores, 0.12 ms keys-first, where the matmul costs the same. (GPU kernels
    read rows: C order there.)"""
    xp = get_array_module(a)
    if xp is np:
        return xp.swapaxes(matmul_arrays(b, xp.swapaxes(a, -1, -2)), -1, -2)
    return matmul_arrays(a, xp.swapaxes(b, -1, -2))


def _row_sums(s):
    """Sums over the last axis of a float array, as a matrix-vector product per matrix, in any
    layout (NumPy's sum along a short last axis is a slow loop: 0.15 ms against 0.02 on a GPT's
    (16, 4, 64, 64) scores)."""
    return s @ get_array_module(s).ones(s.shape[-1], s.dtype)


def _row_dots(a, b):
    """sum(a * b) over the last axis, without the (..., L, S) product as a temporary (einsum
    reads either layout well: 0.07 ms keys-first, where vecdot takes 0.19)."""
    return get_array_module(a).einsum("...ij,...ij->...i", a, b)


def _weighted_values(p, va, q, out=None):
    """P V, laid out in memory as the query is. Attention's heads are usually a transposed view
    of (B, L, H, E) memory (q, k, v cut from one projection); PyTorch's CPU kernel then returns
    its output in that order too, so that ``out.transpose(1, 2)`` is contiguous and its
    ``.view(B, L, H * E)`` needs no copy. A matmul writes into the transposed view at the cost
    of a plain one (0.12 ms on a GPT's (16, 4, 64, 32) heads; the copy it saves ~0.04 ms).
    Backward lays out dQ, dK and dV so (``q`` is then the input whose gradient it is): the
    heads' transpose and reshape back to (B, L, H * E) are views, not copies. ``out``: where
    to write it instead (an array of the product's shape)."""
    xp = get_array_module(p)
    if out is not None:
        return xp.matmul(p, va, out=out)
    heads_first_view = q.ndim == 4 and q.strides[1] < q.strides[2] and xp is np
    if not heads_first_view or p.ndim != 4:
        return matmul_arrays(p, va)
    shape = p.shape[:2] + (p.shape[2], va.shape[-1])
    memory = xp.empty((shape[0], shape[2], shape[1], shape[3]), xp.result_type(p, va))
    out = memory.transpose(0, 2, 1, 3)
    xp.matmul(p, va, out=out)
    return out


class SDPA(Op):
    """out = dropout(softmax(scale Q K^T + mask)) V, fused (see the module docstring).

    ``mask``: None, a boolean array (True = allowed) or a float array added to the scores.
    float16/bfloat16 Q, K, V are computed in float32: widened once (Q scaled in float32), scores,
    softmax and both products in float32, and only the output rounded, once (PyTorch's CPU kernel
    also keeps its scores in float32); backward rounds each gradient once at its end.

    Saves Q, K, V (the inputs: no copies) and the weights P in the compute dtype (float32 for
    2-byte inputs) and, with dropout, the 0/1 keep mask. float32/float64 inputs also keep their
    contiguous operands (Q scaled: see _operand); 2-byte ones are widened again in backward, which
    costs less than keeping float32 copies. Cost: 2 matmuls forward, 4 backward, and 6 passes over
    the (..., L, S) scores forward (mask, max, subtract, exp, row sums as a product, normalise) and
    3 backward. On a GPU the softmax is 3 kernels and its backward 2
    (kernels/attention.py); a causal mask is made once per shape (_causal_bias)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, q, k, v, mask, dropout_p, is_causal, scale):
        xp = get_array_module(q)
        L, S = q.shape[-2], k.shape[-2]
        qa, ka, va = _operand(q, scale), _operand(k), _operand(v)
        s = _scores(qa, ka)
        device = device_of(s)
        forbidden = _forbidden(xp, mask, is_causal, L, S, device)
        if is_causal:  # added as 0 / -inf: a pass as cheap as any, unlike where=
            s += _causal_bias(xp, L, S, device, s.dtype)
        elif forbidden is not None:
            s += xp.where(forbidden, -xp.inf, 0.0).astype(s.dtype)
        elif mask is not None:  # an additive float mask; in place where it keeps s's shape
            fits = xp.broadcast_shapes(s.shape, mask.shape) == s.shape  # (and so its layout)
            s = xp.add(s, mask, out=s) if fits else s + mask
        dead = None
        if mask is not None:  # (causal masking always leaves key 0 to every query)
            # a query with no allowed key: softmax of zeros (finite), then weights of 0
            dead = xp.isneginf(s).all(axis=-1, keepdims=True)
            if xp is np and not dead.any():
                dead = None
            else:
                s = xp.where(dead, 0.0, s)
        # (no keys, S = 0: nothing to normalise; the output is the empty sum, zeros)
        if S and (type(s) is ndarray or not kernels.attention.softmax_rows(s)):  # True: done
            s -= s.max(axis=-1, keepdims=True)
            xp.exp(s, out=s)
            s *= (1.0 / _row_sums(s))[..., None]
        if dead is not None:
            s *= ~dead
        p = s  # the weights, in the compute dtype
        keep = None
        if dropout_p > 0.0:
            keep = bernoulli_mask(p.shape, 1.0 - dropout_p, q)  # 0/1: exact in q's dtype
            p_d = p * keep
            p_d *= p.dtype.type(1.0 / (1.0 - dropout_p))
        ctx.scale, ctx.dropout_p, ctx.forbidden, ctx.mask, ctx.dead = (
            scale,
            dropout_p,
            forbidden,
            mask,
            dead,
        )
        operands = (None, None, None) if _low(q) else (qa, ka, va)
        ctx.save_for_backward(q, k, v, p, keep, *operands)
        out = _weighted_values(p if keep is None else p_d, va, q)
        return convert(out, q.dtype)  # the one rounding of 2-byte inputs (layout kept)

    @staticmethod
    def backward(ctx, g_out):
        q, k, v, p, keep, qa, ka, va = ctx.saved_tensors
        if is_grad_enabled():  # create_graph=True
            return _sdpa_backward_graph(ctx, g_out, q, k, v, keep) + (None,) * 4
        xp = get_array_module(p._data)
        need_q, need_k, need_v = ctx.needs_input_grad[:3]
        if qa is None:  # 2-byte inputs: widened again (see the class docstring)
            qa, ka, va = _operand(q._data, ctx.scale), _operand(k._data), _operand(v._data)
        else:
            qa, ka, va = qa._data, ka._data, va._data
        pa, go = p._data, _operand(g_out._data)
        drop = None
        if keep is not None:
            drop = keep._data.astype(pa.dtype) * pa.dtype.type(1.0 / (1.0 - ctx.dropout_p))
        gq = gk = gv = None
        # each gradient laid out in memory as its input is (see _weighted_values); on the CPU,
        # where Q, K and V are views of one array, in one array as they are (kernels/attention.py)
        outs = (None,) * 3
        shared = need_q and need_k and need_v and pa.shape[:-2] == q._data.shape[:-2]
        if type(pa) is ndarray and shared and not _low(q._data):
            outs = kernels.attention.shared_gradients((q._data, k._data, v._data), pa.dtype)
            outs = outs or (None,) * 3
        if need_v:
            pd = pa if drop is None else pa * drop
            gv = _weighted_values(xp.swapaxes(pd, -1, -2), go, v._data, outs[2])
        if need_q or need_k:
            ds = _scores(go, va)  # dP
            if drop is not None:
                ds *= drop
            if type(ds) is ndarray or not kernels.attention.softmax_rows_backward(ds, pa):
                ds -= _row_dots(ds, pa)[..., None]
                ds *= pa  # dS
            if need_q:
                gq = _weighted_values(ds, ka, q._data, outs[0])
                gq *= ctx.scale
            if need_k:  # qa = scale Q: scaled already
                gk = _weighted_values(xp.swapaxes(ds, -1, -2), qa, k._data, outs[1])
        T, dtype = type(p), q._data.dtype  # each gradient rounded once to its input's dtype
        grads = (None if g is None else T._make(convert(g, dtype)) for g in (gq, gk, gv))
        return tuple(grads) + (None,) * 4


def _sdpa_backward_graph(ctx, g_out, q, k, v, keep) -> tuple:
    """SDPA's gradients as Tensor ops, the weights recomputed from q and k (create_graph)."""
    T = type(q)
    need_q, need_k, need_v = ctx.needs_input_grad[:3]
    s = (q * ctx.scale) @ k.transpose(-2, -1)
    if ctx.forbidden is not None:
        s = s.masked_fill(ctx.forbidden, -math.inf)
    elif ctx.mask is not None:
        s = s + T._make(ctx.mask.astype(s._data.dtype, copy=False), False)
    if ctx.dead is not None:
        s = s.masked_fill(ctx.dead, 0.0)
    p = s.softmax(dim=-1)
    if ctx.dead is not None:
        p = p.masked_fill(ctx.dead, 0.0)
    drop = None if keep is None else keep * (1.0 / (1.0 - ctx.dropout_p))
    p_d = p if drop is None else p * drop
    gv = p_d.transpose(-2, -1) @ g_out if need_v else None
    gq = gk = None
    if need_q or need_k:
        dp = g_out @ v.transpose(-2, -1)
        if drop is not None:
            dp = dp * drop
        ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True))
        gq = (ds @ k) * ctx.scale if need_q else None
        gk = (ds.transpose(-2, -1) @ q) * ctx.scale if need_k else None
    return gq, gk, gv
