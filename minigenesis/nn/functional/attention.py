"""F.scaled_dot_product_attention: masks, scale, dropout and grouped heads around the composition in
ops/attention.py.
"""

from __future__ import annotations

import math

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autocast_policy import LOWER, autocast_function
from ...backend import get_array_module
from ...ops.attention import SDPA, attention
from ...ops.round_once import in_float32, is_two_byte_float
from ...ops.same_dtype import SCALAR_NAMES, check_same_dtype


# ----------------------------------------------------------------------------------------------
# Attention (the composition: ops/attention.py)
# ----------------------------------------------------------------------------------------------
@autocast_function(LOWER)
def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
):
    """softmax(Q K^T * scale + mask) V for query (..., L, E), key (..., S, E), value (..., S, Ev).

    ``attn_mask``: boolean (True = take part) or float (added), broadcastable to (..., L, S).
    ``is_causal``: query i attends to keys j <= i; cannot be combined with ``attn_mask``.
    ``dropout_p``: dropout on the attention weights (applied whenever it is > 0, as PyTorch's
    functional form does: pass 0.0 in eval mode). ``enable_gqa``: key/value may have fewer heads
    (dim -3) than the query; each is shared by a group of query heads."""
    name = "scaled_dot_product_attention"
    # shape and argument errors are RuntimeError, as PyTorch's kernel raises them
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"{name}: query, key and value need at least 2 dims (..., seq, embed)")
    if key.shape[-1] != query.shape[-1]:
        raise RuntimeError(
            f"{name}: query {tuple(query.shape)} and key {tuple(key.shape)} must have the same "
            f"embedding size (last dim)"
        )
    if value.shape[-2] != key.shape[-2]:
        raise RuntimeError(
            f"{name}: key {tuple(key.shape)} and value {tuple(value.shape)} must have the same "
            f"sequence length (dim -2)"
        )
    check_same_dtype(name, LOWER, query=query, key=key, value=value)
    if query._data.dtype.kind not in "fV":  # PyTorch's math kernel: floating inputs only
        d = query._data.dtype.name
        raise RuntimeError(f"expected scalar type Float but found {SCALAR_NAMES.get(d, d)}")
    if not 0.0 <= dropout_p < 1.0:
        raise RuntimeError(f"{name}: dropout_p must be in [0, 1), got {dropout_p}")
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = _repeat_heads(key, query.shape[-3]), _repeat_heads(value, query.shape[-3])
    mask = None
    if attn_mask is not None:
        L, S = query.shape[-2], key.shape[-2]
        if tuple(attn_mask.shape[-2:]) not in ((L, S), (1, S), (L, 1), (1, 1)):
            raise RuntimeError(
                f"{name}: attn_mask of shape {tuple(attn_mask.shape)} does not broadcast to the "
                f"scores (..., {L}, {S}) of query {tuple(query.shape)} and key {tuple(key.shape)}"
            )
        if is_causal:  # both, as PyTorch: the causal mask applies on top of attn_mask
            allowed = Tensor._make(get_array_module(attn_mask._data).tri(L, S, dtype=bool), False)
            if attn_mask._data.dtype == bool:
                attn_mask = attn_mask & allowed
            else:
                attn_mask = attn_mask.masked_fill(~allowed, -math.inf)
            is_causal = False
        if attn_mask._data.dtype == bool:
            mask = attn_mask._data
        elif attn_mask.dtype not in (_dt.float32, query.dtype):  # PyTorch's rule for the mask
            raise RuntimeError(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {attn_mask.dtype.name} and query.dtype: {query.dtype.name}"
            )
        else:
            mask = attn_mask if attn_mask.dtype == query.dtype else attn_mask.to(query.dtype)
            if mask.requires_grad:  # a learned additive mask: the composed ops differentiate it
                if is_two_byte_float(query):  # float32 inside, rounded once, as SDPA's op
                    return in_float32(
                        lambda *qkvm: attention(*qkvm, dropout_p, is_causal, scale)[0],
                        *(query, key, value, mask),
                    )
                return attention(query, key, value, mask, dropout_p, is_causal, scale)[0]
            mask = mask._data
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    return SDPA.apply(query, key, value, mask, dropout_p, is_causal, scale)


def _repeat_heads(t, heads: int):
    """(..., Hk, S, E) -> (..., heads, S, E): each of the Hk heads repeated heads/Hk times."""
    hk = t.shape[-3]
    if heads % hk:
        raise RuntimeError(
            f"scaled_dot_product_attention: {heads} query heads cannot be grouped over {hk} "
            f"key/value heads"
        )
    lead = tuple(t.shape[:-3])
    expanded = t.unsqueeze(-3).expand(lead + (hk, heads // hk) + tuple(t.shape[-2:]))
    return expanded.reshape(lead + (heads,) + tuple(t.shape[-2:]))
