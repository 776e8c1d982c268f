"""Embedding: a lookup table. Row i of the weight is the learned vector of token i.

``F.embedding(idx, W)`` is ``W[idx]`` (``nn/functional/embeddings.py``); its gradient scatters
dL/dy back into the rows that were looked up, *adding* when the same index appears twice
(``ops/embedding.py``). ``padding_idx`` names a row that is never updated (its gradient is zero),
as PyTorch does for padding tokens.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..creation import empty
from . import functional as F
from . import init
from ._utils import padding_index
from .module import Module
from .parameter import Parameter


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
        padding_idx = padding_index(padding_idx, num_embeddings)
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
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)  # fmt: skip

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse:
            s += ", sparse=True"
        return s


class EmbeddingBag(Module):
    """Sums, means or maxes of bags of embeddings (``F.embedding_bag``), without building the
    (bags, tokens, dim) tensor of every row first: a bag-of-words text classifier's first layer.
    The weight is initialised N(0, 1), the ``padding_idx`` row zeroed, as PyTorch does."""

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight: Tensor | None = None,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        self.padding_idx = padding_index(padding_idx, num_embeddings)
        if _weight is None:
            self.weight = Parameter(
                empty(num_embeddings, embedding_dim, dtype=dtype, device=device)
            )
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, **kwargs: Any
    ) -> EmbeddingBag:
        """An EmbeddingBag holding ``embeddings`` (frozen unless ``freeze=False``)."""
        if embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, _weight=embeddings, **kwargs)
        bag.weight.requires_grad = not freeze
        return bag

    def forward(
        self, input: Tensor, offsets: Tensor | None = None, per_sample_weights: Tensor | None = None
    ) -> Tensor:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset,
                               self.padding_idx)  # fmt: skip

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
