"""MultiheadAttention, with PyTorch's parameter layout, masks and return values.

    q, k, v  = query W_q^T + b_q,  key W_k^T + b_k,  value W_v^T + b_v     (one in_proj_weight)
    head h   = softmax(q_h k_h^T / sqrt(head_dim) + mask) v_h               (num_heads of them)
    output   = concat(heads) W_o^T + b_o                                    (out_proj)

Parameters are named as in PyTorch (``in_proj_weight`` (3E, E), ``in_proj_bias`` (3E,),
``out_proj.weight``/``.bias``; ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` when
kdim/vdim differ from embed_dim), so a PyTorch state_dict loads into it.

Mask conventions are PyTorch's, and they are the OPPOSITE of ``F.scaled_dot_product_attention``'s:
here a boolean True means "do not attend" (a padding token in ``key_padding_mask``, a future
position in ``attn_mask``). Both masks become additive float masks (-inf where True) and are summed.

Differences from PyTorch, on purpose: ``is_causal=True`` without an ``attn_mask`` builds the causal
mask itself (PyTorch raises), and a query whose keys are all masked gets zero weights and a zero
attention output instead of NaN (as PyTorch's scaled_dot_product_attention already does).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .._tensor import Tensor
from ..backend import get_array_module
from ..creation import empty, zeros
from ..dtypes import bool_
from ..functions import cat
from ..ops.attention import SDPA, attention
from ..size import plain_int
from . import functional as F
from . import init
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from .parameter import Parameter
from .sdpa_backends import SDPBackend, sdpa_kernel  # noqa: F401 (torch.nn.attention's names)


class MultiheadAttention(Module):
    """Attention from ``num_heads`` heads of size embed_dim // num_heads, in parallel."""

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        embed_dim, num_heads = plain_int(embed_dim), plain_int(num_heads)  # (NumPy ints are ints)
        kdim, vdim = plain_int(kdim), plain_int(vdim)
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"MultiheadAttention: embed_dim and num_heads must be positive, got "
                f"{embed_dim} and {num_heads}"
            )
        if embed_dim % num_heads:  # PyTorch asserts
            raise AssertionError(
                f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by num_heads "
                f"({num_heads})"
            )
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"MultiheadAttention: dropout must be in [0, 1), got {dropout}")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first = dropout, batch_first
        self.add_zero_attn = add_zero_attn
        kw = {"dtype": dtype, "device": device}
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim, **kw))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.register_parameter("in_proj_weight", None)
            self.q_proj_weight = Parameter(empty(embed_dim, embed_dim, **kw))
            self.k_proj_weight = Parameter(empty(embed_dim, self.kdim, **kw))
            self.v_proj_weight = Parameter(empty(embed_dim, self.vdim, **kw))
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(empty(1, 1, embed_dim, **kw))
            self.bias_v = Parameter(empty(1, 1, embed_dim, **kw))
        else:
            self.bias_k = self.bias_v = None
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """PyTorch's: xavier_uniform projections, zero biases, xavier_normal bias_k/bias_v (the
        out_proj weight keeps Linear's default)."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    # ------------------------------------------------------------------ forward
    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """query (L, N, E), key (S, N, kdim), value (S, N, vdim); (N, ., .) with batch_first;
        unbatched (L, E). Returns (output like query, weights (N, L, S) averaged over heads, or
        (N, num_heads, L, S), or None when need_weights=False)."""
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise AssertionError(  # PyTorch asserts
                f"MultiheadAttention: query, key and value must all be 3-d (batched) or 2-d "
                f"(unbatched), got shapes {tuple(query.shape)}, {tuple(key.shape)}, "
                f"{tuple(value.shape)}"
            )
        key_padding_mask, attn_mask = matched_masks(
            key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query
        )
        batched = query.ndim == 3
        if batched and self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        if not batched:
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        L, N, E = query.shape
        S = key.shape[0]
        self._check_shapes(query, key, value)

        q, k, v = self._project(query, key, value)
        mask = self._merged_mask(attn_mask, key_padding_mask, L, S, N, q)
        H, hd = self.num_heads, self.head_dim
        q = q.reshape(L, N, H, hd).permute(1, 2, 0, 3)  # (N, H, L, hd)
        k = k.reshape(-1, N, H, hd).permute(1, 2, 0, 3)  # (N, H, S', hd)
        v = v.reshape(-1, N, H, hd).permute(1, 2, 0, 3)
        if self.add_zero_attn:  # one extra key and value of zeros that every query may attend
            z = zeros(N, H, 1, hd, dtype=k.dtype, device=k.device)
            k, v = _cat_keys(k, z), _cat_keys(v, z)
            mask = None if mask is None else F.pad(mask, (0, 1))
        causal = is_causal and attn_mask is None
        dropout_p = self.dropout if self.training else 0.0
        if need_weights or (mask is not None and mask.requires_grad):
            out, weights = attention(q, k, v, mask, dropout_p, causal)
        else:  # one fused op, which keeps no graph of the weights (ops/attention.py)
            mask = None if mask is None else mask._data
            out = SDPA.apply(q, k, v, mask, dropout_p, causal, 1.0 / math.sqrt(hd))

        out = out.permute(2, 0, 1, 3).reshape(L, N, E)  # heads side by side again
        out = self.out_proj(out)
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(1)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = weights.mean(dim=1)
        return out, (weights if batched else weights.squeeze(0))

    def _check_shapes(self, query: Tensor, key: Tensor, value: Tensor) -> None:
        L, N, E = query.shape
        if E != self.embed_dim:
            raise AssertionError(  # PyTorch asserts
                f"MultiheadAttention: query of shape {tuple(query.shape)} has embedding size {E}, "
                f"expected embed_dim={self.embed_dim}"
            )
        if key.shape[-1] != self.kdim or value.shape[-1] != self.vdim:
            raise AssertionError(  # PyTorch asserts
                f"MultiheadAttention: key {tuple(key.shape)} and value {tuple(value.shape)} must "
                f"end in kdim={self.kdim} and vdim={self.vdim}"
            )
        if key.shape[:2] != value.shape[:2] or key.shape[1] != N:
            # PyTorch asserts that key and value match; a batch that differs from the query's
            # fails in its reshape (RuntimeError)
            error = AssertionError if key.shape[:2] != value.shape[:2] else RuntimeError
            raise error(
                f"MultiheadAttention: key {tuple(key.shape)} and value {tuple(value.shape)} must "
                f"share the sequence and batch dims, with the batch of query {tuple(query.shape)}"
            )

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple:
        """q, k, v = the three input projections (plus bias_k/bias_v as one extra key/value)."""
        E = self.embed_dim
        if self._qkv_same_embed_dim:
            w_q, w_k, w_v = self.in_proj_weight.chunk(3)
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        b = self.in_proj_bias
        b_q, b_k, b_v = b.chunk(3) if b is not None else (None, None, None)
        if query is key and key is value and self._qkv_same_embed_dim:  # self-attention: 1 matmul
            q, k, v = F.linear(query, self.in_proj_weight, b).split(E, dim=-1)
        else:
            q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)
        if self.bias_k is not None:
            N = query.shape[1]
            k = _cat_keys(k, self.bias_k.expand(1, N, E), dim=0)
            v = _cat_keys(v, self.bias_v.expand(1, N, E), dim=0)
        return q, k, v

    def _merged_mask(self, attn_mask, key_padding_mask, L: int, S: int, N: int, like: Tensor):
        """attn_mask (L, S) or (N*H, L, S) plus key_padding_mask (N, S) as ONE additive float
        mask broadcastable to (N, H, L, S'); None when there is neither."""
        H = self.num_heads
        mask = None
        for m, name in ((attn_mask, "attn_mask"), (key_padding_mask, "key_padding_mask")):
            # PyTorch's check: an integer mask would otherwise be added to the scores as it is
            if m is not None and m.dtype is not bool_ and not m.dtype.is_floating_point:
                raise AssertionError(
                    f"only bool and floating types of {name} are supported, got {m.dtype.name}"
                )
        if attn_mask is not None:
            if attn_mask.ndim == 2 and tuple(attn_mask.shape) != (L, S):
                raise RuntimeError(  # PyTorch's type
                    f"MultiheadAttention: the 2-d attn_mask has shape {tuple(attn_mask.shape)}, "
                    f"but should be (L, S) = {(L, S)}"
                )
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != (N * H, L, S):
                raise RuntimeError(  # PyTorch's type
                    f"MultiheadAttention: the 3-d attn_mask has shape {tuple(attn_mask.shape)}, "
                    f"but should be (N * num_heads, L, S) = {(N * H, L, S)}"
                )
            if attn_mask.ndim not in (2, 3):
                raise AssertionError(  # PyTorch asserts
                    f"MultiheadAttention: attn_mask must be 2-d or 3-d, got shape "
                    f"{tuple(attn_mask.shape)}"
                )
            mask = _additive(attn_mask, like)
            if attn_mask.ndim == 3:
                mask = mask.reshape(N, H, L, S)
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (N, S):
                raise AssertionError(  # PyTorch asserts
                    f"MultiheadAttention: key_padding_mask has shape "
                    f"{tuple(key_padding_mask.shape)}, expected (N, S) = {(N, S)}"
                )
            kpm = _additive(key_padding_mask, like).reshape(N, 1, 1, S)
            mask = kpm if mask is None else mask + kpm
        if mask is not None and self.bias_k is not None:
            mask = F.pad(mask, (0, 1))  # the bias key is never masked
        return mask


def matched_masks(padding: Any, padding_name: str, other: Any, other_name: str, like: Tensor):
    """A key padding mask and the attention mask beside it, as PyTorch's ``_canonical_mask``
    passes them on: when one is bool and the other float (or the floats differ), PyTorch warns
    that mixing them is deprecated, and a bool mask becomes 0 / -inf in ``like``'s dtype (the
    same additive mask the attention builds), so the layers below see matching types and do
    not warn again."""
    if padding is None or other is None or padding.dtype == other.dtype:
        return padding, other
    warnings.warn(
        f"Support for mismatched {padding_name} and {other_name} is deprecated. Use same type "
        "for both instead.",
        stacklevel=3,
    )
    return (m if m.dtype.is_floating_point else _additive(m, like) for m in (padding, other))


def _additive(mask: Tensor, like: Tensor) -> Tensor:
    """A boolean mask (True = masked out) -> 0 / -inf floats; a float mask as it is."""
    data = mask._data
    if data.dtype == bool:
        xp = get_array_module(data)
        dt = like._data.dtype
        return Tensor._make(xp.where(data, xp.asarray(-math.inf, dt), xp.zeros((), dt)), False)
    return mask if mask.dtype == like.dtype else mask.to(like.dtype)


def _cat_keys(a: Tensor, b: Tensor, dim: int = 2) -> Tensor:
    return cat([a, b], dim=dim)
