"""Embedding: a lookup table. Row i of the weight is the learned vector of token i.

``embedding(idx, W)`` is ``W[idx]``; its gradient scatters dL/dy back into the rows that were
looked up, *adding* when the same index appears twice (``ops/indexing.py``). ``padding_idx`` names a
row that is never updated (its gradient is zero), as PyTorch does for padding tokens.
"""

from __future__ import annotations

from typing import Any

from ..autograd.function import Op
from ..backend import get_array_module
from ..creation import empty
from ..ops.indexing import IndexAddGrad, check_index_dtype, check_index_range
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


class EmbeddingLookup(Op):
    """y = W[idx];   dL/dW = zeros with dL/dy rows added at idx (row padding_idx kept at 0)."""

    @staticmethod
    def forward(ctx, weight, idx, padding_idx):
        ctx.idx, ctx.num, ctx.padding_idx = idx, weight.shape[0], padding_idx
        return weight[idx]

    @staticmethod
    def backward(ctx, gy):
        idx = ctx.idx
        if ctx.padding_idx is not None:
            # Send the padding rows' gradient to nowhere: route them to an extra scratch row.
            xp = get_array_module(idx)
            idx = xp.where(idx == ctx.padding_idx, ctx.num, idx)
            g = IndexAddGrad.apply(gy, idx, (ctx.num + 1,) + tuple(gy.shape[idx.ndim :]))
            return g[: ctx.num], None, None
        return IndexAddGrad.apply(gy, idx, (ctx.num,) + tuple(gy.shape[idx.ndim :])), None, None


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` picked by the integer tensor ``input``: shape input.shape + (dim,).
    Every index must lie in [0, num_embeddings): unlike ``x[i]``, a negative index is an error."""
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding: input must be a Tensor of indices, got {type(input).__name__}")
    check_index_dtype(input, ("int64", "int32"), "embedding")
    if weight.ndim != 2:
        raise ValueError(f"embedding: weight must be 2-D (num, dim), got {tuple(weight.shape)}")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse are not supported")
    n = weight.shape[0]
    idx = input._data
    check_index_range(idx, n, "embedding", hint=f" (the weight has {n} rows)")
    padding_idx = _padding_index(padding_idx, n)
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    return EmbeddingLookup.apply(weight, idx, padding_idx)


def _renorm_rows(weight: Tensor, idx: Any, max_norm: float, norm_type: float) -> None:
    """In place, outside the graph: rows looked up whose norm exceeds max_norm are scaled down."""
    xp = get_array_module(weight._data)
    rows = xp.unique(idx.reshape(-1))
    w = weight._data[rows]
    norms = (xp.abs(w.astype(xp.float32)) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    weight._data[rows] = (w * scale[:, None]).astype(weight._data.dtype)
    weight._bump_version()


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """(..., ) int64 classes -> (..., num_classes) int64 with a 1 at each class;
    ``num_classes=-1`` means max(tensor) + 1."""
    check_index_dtype(tensor, ("int64",), "one_hot", "class values")
    if not isinstance(num_classes, int) or isinstance(num_classes, bool):
        raise TypeError(f"one_hot: num_classes must be an int, got {type(num_classes).__name__}")
    data = tensor._data
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError(
                "one_hot: cannot infer the number of classes from an empty tensor: pass num_classes"
            )
        num_classes = int(data.max()) + 1
    check_index_range(data, num_classes, "one_hot", "class value", error=RuntimeError)
    xp = get_array_module(data)
    out = (data[..., None] == xp.arange(num_classes)).astype(xp.int64)
    return Tensor._make(out, False)


def _padding_index(padding_idx: int | None, num_embeddings: int) -> int | None:
    """``padding_idx`` in [-num_embeddings, num_embeddings), made non-negative."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(
            f"padding_idx must be within num_embeddings: expected a value in "
            f"[{-num_embeddings}, {num_embeddings}), got {padding_idx}"
        )
    return padding_idx % num_embeddings


class Embedding(Module):
    """A (num_embeddings, embedding_dim) table initialised N(0, 1) (PyTorch's default), with the
    ``padding_idx`` row zeroed."""

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        padding_idx = _padding_index(padding_idx, num_embeddings)
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(
                empty(num_embeddings, embedding_dim, dtype=dtype, device=device),
                requires_grad=not _freeze,
            )
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(
                    f"_weight has shape {tuple(_weight.shape)}, expected "
                    f"({num_embeddings}, {embedding_dim})"
                )
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None, **kwargs: Any
    ) -> Embedding:
        """An Embedding holding ``embeddings`` (frozen unless ``freeze=False``)."""
        if embeddings.ndim != 2:
            raise ValueError("from_pretrained: embeddings must be 2-D")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, _weight=embeddings, _freeze=freeze, **kwargs)

    def forward(self, input: Tensor) -> Tensor:
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
