"""The Transformer of "Attention Is All You Need", with PyTorch's modules, arguments and names.

One encoder layer is self-attention then a position-wise feed-forward net, each wrapped in a
residual connection and a LayerNorm; a decoder layer adds cross-attention to the encoder's output
(``memory``) between the two:

    post-norm (norm_first=False, the paper):   x = norm1(x + SA(x));     x = norm2(x + FF(x))
    pre-norm  (norm_first=True):               x = x + SA(norm1(x));     x = x + FF(norm2(x))
    SA(x) = dropout(self_attn(x, x, x))        FF(x) = dropout(linear2(dropout(act(linear1(x)))))

Sub-modules carry PyTorch's names (``self_attn.in_proj_weight``, ``multihead_attn``, ``linear1``,
``linear2``, ``norm1``..``norm3``; ``encoder.layers.0...``, ``encoder.norm``), so a state_dict
moves between the two libraries either way.

Masks follow ``nn.MultiheadAttention``: a boolean True, or a float -inf, means "may not attend".
``src_mask``/``tgt_mask``/``memory_mask`` are (L, S) or (N * nhead, L, S); the key padding masks
are (N, S). ``is_causal`` is a hint that the mask given is the causal one (the stacks detect it
themselves when it is left as None); without a mask it asks for the causal mask.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.grad_mode import state as grad_state
from ..creation import full
from ..size import plain_int
from . import functional as F
from . import init
from .activation import GELU, ReLU
from .attention import MultiheadAttention, matched_masks
from .containers import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm


def _activation(activation: str | Callable) -> Callable:
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"activation should be relu/gelu or a callable, not {activation!r}")
    if not callable(activation):
        raise TypeError(f"activation must be 'relu', 'gelu' or a callable, got {activation!r}")
    return activation


def _check_mask(mask: Tensor | None, name: str) -> None:
    """Only boolean and floating-point masks mean something (as PyTorch's _canonical_mask)."""
    if mask is not None:
        if not isinstance(mask, Tensor):
            raise TypeError(f"{name} must be a Tensor or None, got {type(mask).__name__}")
        if mask.dtype is not _dt.bool_ and not mask.dtype.is_floating_point:
            raise AssertionError(
                f"only bool and floating types of {name} are supported, got {mask.dtype.name}"
            )


def _seq_len(x: Tensor, batch_first: bool) -> int:
    return x.shape[1 if batch_first and x.ndim == 3 else 0]


def _detect_is_causal(mask: Tensor | None, is_causal: bool | None, size: int) -> bool:
    """is_causal, or (when None) whether ``mask`` is exactly the square causal mask."""
    if is_causal is not None:
        return is_causal
    if mask is None or tuple(mask.shape) != (size, size):
        return False
    causal = Transformer.generate_square_subsequent_mask(size, device=mask.device)
    if mask.dtype is _dt.bool_:
        return bool((mask == (causal != 0)).all())
    return bool((mask.to(causal.dtype) == causal).all())


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward net, each with a residual connection and a LayerNorm."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.batch_first = batch_first
        self.activation = _activation(activation)
        # PyTorch's flag for its fast path: 1 for ReLU, 2 for GELU, 0 for another activation
        act = self.activation
        self.activation_relu_or_gelu = (
            1
            if act is F.relu or isinstance(act, ReLU)
            else 2
            if act is F.gelu or isinstance(act, GELU)
            else 0
        )

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """src (S, N, E), (N, S, E) with batch_first, or unbatched (S, E) -> the same shape."""
        _check_mask(src_mask, "src_mask")
        _check_mask(src_key_padding_mask, "src_key_padding_mask")
        src_key_padding_mask, src_mask = matched_masks(
            src_key_padding_mask, "src_key_padding_mask", src_mask, "src_mask", src
        )
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal) -> Tensor:
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention to ``memory``, and a feed-forward net (three residual
    blocks, three LayerNorms)."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.batch_first = batch_first
        self.activation = _activation(activation)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """tgt (T, N, E) and memory (S, N, E) ((N, ., E) with batch_first) -> like tgt."""
        for mask, name in (
            (tgt_mask, "tgt_mask"),
            (memory_mask, "memory_mask"),
            (tgt_key_padding_mask, "tgt_key_padding_mask"),
            (memory_key_padding_mask, "memory_key_padding_mask"),
        ):
            _check_mask(mask, name)
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            cross = self._mha_block(
                x, memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = self.norm2(x + cross)
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal) -> Tensor:
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal) -> Tensor:
        x = self.multihead_attn(
            x,
            mem,
            mem,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _clones(layer: Module, n: int) -> ModuleList:
    """n independent copies of ``layer`` (each with its own parameters, as PyTorch)."""
    n = plain_int(n)  # (a NumPy integer counts as an int)
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"num_layers must be a non-negative int, got {n!r}")
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


def _why_not_nested(layer: Module) -> str:
    """Why PyTorch's TransformerEncoder cannot run ``layer`` on nested tensors (its fast
    inference path), in PyTorch's words; "" when it can. The first reason found is given."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    reasons = (
        (layer.norm_first, f"{name}.norm_first was True"),
        (
            not attn.batch_first,
            f"{name}.self_attn.batch_first was not True(use batch_first for better inference "
            "performance)",
        ),
        (not attn._qkv_same_embed_dim, f"{name}.self_attn._qkv_same_embed_dim was not True"),
        (attn.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
        (layer.norm1.eps != layer.norm2.eps, f"{name}.norm1.eps was not equal to {name}.norm2.eps"),
        (attn.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd"),
    )
    return next((why for failed, why in reasons if failed), "")


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` one after another, then ``norm`` if given."""

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        # enable_nested_tensor / mask_check select PyTorch's fast inference path, which runs
        # each sequence of a padded batch at its own length: the values are those of the masked
        # computation, but the padded positions come out 0 (see _nested_padding). PyTorch's
        # warning that the layer rules its fast path out is given as PyTorch gives it.
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(
                f"enable_nested_tensor is True, but self.use_nested_tensor is False because "
                f"{why_not}",
                stacklevel=2,
            )
        self.use_nested_tensor = enable_nested_tensor and not why_not

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        _check_mask(mask, "mask")
        _check_mask(src_key_padding_mask, "src_key_padding_mask")
        src_key_padding_mask, mask = matched_masks(
            src_key_padding_mask, "src_key_padding_mask", mask, "mask", src
        )
        batch_first = bool(self.layers) and self.layers[0].batch_first
        is_causal = _detect_is_causal(mask, is_causal, _seq_len(src, batch_first))
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        out = src
        for layer in self.layers:
            out = layer(
                out,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if padded is not None:  # PyTorch's nested tensor back to a padded one: zeros there
            out = out.masked_fill(padded.unsqueeze(-1), 0.0)
        return self.norm(out) if self.norm is not None else out

    def _nested_padding(self, src: Tensor, mask: Any, padding: Any) -> Tensor | None:
        """The (N, S) positions that PyTorch's nested-tensor path returns as 0, or None where it
        takes the ordinary path: inference (the first layer in eval mode, and no gradient to
        record for src or the first layer's parameters), a batched src with a key padding mask
        that only pads the ends of the rows (when mask_check: else the mask is taken to), no
        attention mask, CUDA autocast off, and a layer PyTorch can nest (use_nested_tensor).
        A float mask pads where it is nonzero."""
        if not (getattr(self, "use_nested_tensor", False) and self.layers) or padding is None:
            return None
        first = self.layers[0]
        if first.training or src.ndim != 3 or mask is not None:
            return None
        if grad_state.autocast_dtype is not None and grad_state.autocast_dtype.cuda is not None:
            return None
        attn = first.self_attn
        params = (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                  attn.out_proj.bias, first.norm1.weight, first.norm1.bias, first.norm2.weight,
                  first.norm2.bias, first.linear1.weight, first.linear1.bias,
                  first.linear2.weight, first.linear2.bias)  # fmt: skip
        if is_grad_enabled() and any(t is not None and t.requires_grad for t in (src, *params)):
            return None
        pad = padding if not padding.dtype.is_floating_point else padding != 0
        keep = (~pad)._data.astype(int)
        # left-aligned: each row's kept positions come first (no kept one after a padded one)
        if (keep[:, 1:] > keep[:, :-1]).any():
            return None
        return pad


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, each attending to the same ``memory``, then
    ``norm`` if given."""

    def __init__(
        self,
        decoder_layer: TransformerDecoderLayer,
        num_layers: int,
        norm: Module | None = None,
    ) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batch_first = bool(self.layers) and self.layers[0].batch_first
        tgt_is_causal = _detect_is_causal(tgt_mask, tgt_is_causal, _seq_len(tgt, batch_first))
        out = tgt
        for layer in self.layers:
            out = layer(
                out,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """An encoder stack over ``src`` and a decoder stack over ``tgt`` that attends to the
    encoder's output; each stack ends in a LayerNorm. Weights with 2+ dims are xavier_uniform."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable = "relu",
        custom_encoder: Any | None = None,
        custom_decoder: Any | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps)
        layer_kw = {"batch_first": batch_first, "norm_first": norm_first, "bias": bias, **kw}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(*layer_args, **layer_kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(*layer_args, **layer_kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """src (S, N, E), tgt (T, N, E) ((N, ., E) with batch_first; unbatched (S, E), (T, E))
        -> (T, N, E) like tgt."""
        batch_dim = 0 if self.batch_first else 1
        if src.ndim == 3 and (tgt.ndim != 3 or src.shape[batch_dim] != tgt.shape[batch_dim]):
            raise RuntimeError(
                f"Transformer: the batch number of src {tuple(src.shape)} and tgt "
                f"{tuple(tgt.shape)} must be equal (dim {batch_dim}, batch_first="
                f"{self.batch_first})"
            )
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(
                f"Transformer: the feature number of src {tuple(src.shape)} and tgt "
                f"{tuple(tgt.shape)} must be equal to d_model={self.d_model}"
            )
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """(sz, sz) float mask: 0 on and below the diagonal, -inf above it (position i may
        attend to positions 0..i)."""
        return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(1)
