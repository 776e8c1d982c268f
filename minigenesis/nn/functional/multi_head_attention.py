"""F.multi_head_attention_forward: multi-head attention from weights passed in, as PyTorch's
functional form (OpenAI CLIP's AttentionPool2d calls it with separate q/k/v projection weights).

    q, k, v = query W_q^T + b_q,  key W_k^T + b_k,  value W_v^T + b_v
    head h  = softmax(q_h k_h^T / sqrt(head_dim) + mask) v_h
    output  = concat(heads) W_out^T + b_out

It is the computation of ``nn.MultiheadAttention.forward`` (nn/attention.py), with the weights read
from the arguments instead of a module's attributes, so masks, bias_k/bias_v, add_zero_attn,
dropout and the returned weights behave identically. Inputs are (L, N, E) or unbatched (L, E).
"""

from __future__ import annotations

from ..._tensor import Tensor
from .linear_maps import linear


class _PassedWeights:
    """The attributes ``MultiheadAttention.forward`` reads, filled from the functional's
    arguments (the module's projection and mask helpers are borrowed as they are)."""

    batch_first = False

    def __init__(self, embed_dim, num_heads, key, value, weights, biases, options) -> None:
        in_proj_weight, q_w, k_w, v_w, separate = weights
        in_proj_bias, bias_k, bias_v, out_w, out_b = biases
        add_zero_attn, dropout_p, training = options
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim, self.vdim = key.shape[-1], value.shape[-1]
        self._qkv_same_embed_dim = not separate
        self.in_proj_weight, self.in_proj_bias = in_proj_weight, in_proj_bias
        self.q_proj_weight, self.k_proj_weight, self.v_proj_weight = q_w, k_w, v_w
        self.bias_k, self.bias_v = bias_k, bias_v
        self.add_zero_attn, self.dropout, self.training = add_zero_attn, dropout_p, training
        self.out_proj = lambda x: linear(x, out_w, out_b)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Returns (output (L, N, E), attention weights (N, L, S) averaged over heads, or
    (N, num_heads, L, S), or None when need_weights=False). ``in_proj_weight`` (3E, E) holds
    W_q, W_k, W_v stacked; with ``use_separate_proj_weight=True`` they come as q/k/v_proj_weight
    instead (key and value may then have other sizes). ``in_proj_bias`` (3E,) stacks the biases."""
    from ..attention import MultiheadAttention  # the module builds on this package

    embed_dim = query.shape[-1]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(  # PyTorch asserts
            f"multi_head_attention_forward: query's embedding size {embed_dim} is not "
            f"embed_dim_to_check={embed_dim_to_check}"
        )
    if num_heads <= 0 or embed_dim % num_heads:
        raise AssertionError(
            f"multi_head_attention_forward: embed_dim {embed_dim} is not divisible by "
            f"num_heads {num_heads}"
        )
    if static_k is not None or static_v is not None:
        raise NotImplementedError(
            "multi_head_attention_forward: static_k/static_v (precomputed per-head keys and "
            "values) are not supported; pass key and value instead"
        )
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError(
                "multi_head_attention_forward: use_separate_proj_weight=True needs "
                "q_proj_weight, k_proj_weight and v_proj_weight"
            )
    elif in_proj_weight is None:
        raise AssertionError(
            "multi_head_attention_forward: use_separate_proj_weight=False needs in_proj_weight"
        )
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("multi_head_attention_forward: give both bias_k and bias_v, or none")
    weights = _PassedWeights(
        embed_dim,
        num_heads,
        key,
        value,
        (in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, use_separate_proj_weight),
        (in_proj_bias, bias_k, bias_v, out_proj_weight, out_proj_bias),
        (add_zero_attn, dropout_p, training),
    )
    for name in ("_check_shapes", "_project", "_merged_mask"):  # the module's own helpers
        setattr(weights, name, getattr(MultiheadAttention, name).__get__(weights))
    return MultiheadAttention.forward(
        weights,
        query,
        key,
        value,
        key_padding_mask=key_padding_mask,
        need_weights=need_weights,
        attn_mask=attn_mask,
        average_attn_weights=average_attn_weights,
        is_causal=is_causal,
    )
