"""F.embedding (a row lookup with max_norm renormalisation: ops/embedding.py) and F.one_hot."""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...backend import get_array_module
from ...ops.embedding import EmbeddingLookup
from ...ops.indexing import check_index_dtype, check_index_range
from ...size import plain_int
from .._utils import padding_index
from .sparse_grad import record_sparse_lookup


# ----------------------------------------------------------------------------------------------
# Embeddings
# ----------------------------------------------------------------------------------------------
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
    Every index must lie in [0, num_embeddings): unlike ``x[i]``, a negative index is an error.
    ``sparse=True``: ``weight.grad`` is a sparse COO tensor of the rows looked up
    (sparse_grad.py)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding: input must be a Tensor of indices, got {type(input).__name__}")
    check_index_dtype(input, ("int64", "int32"), "embedding")
    if weight.ndim != 2:
        raise ValueError(f"embedding: weight must be 2-D (num, dim), got {tuple(weight.shape)}")
    n = weight.shape[0]
    idx = input._data
    check_index_range(idx, n, "embedding", hint=f" (the weight has {n} rows)")
    padding_idx = padding_index(padding_idx, n)
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    out = EmbeddingLookup.apply(weight, idx, padding_idx)
    if scale_grad_by_freq and out.requires_grad:
        # each looked-up row's gradient divided by how often its index occurs in this input
        xp = get_array_module(idx)
        _, inverse, counts = xp.unique(idx.reshape(-1), return_inverse=True, return_counts=True)
        per_position = (1.0 / counts[inverse]).reshape(idx.shape + (1,))
        scale = Tensor._make(per_position.astype(weight._data.dtype), False)
        out.register_hook(lambda g: g * scale)
    if sparse:  # weight.grad becomes a sparse COO tensor of the rows looked up
        record_sparse_lookup(weight, out, idx, padding_idx)
    return out


def _row_norms(xp: Any, a: Any, p: float) -> Any:
    """The p-norm of each row of |w| (``a``), as torch.norm: (sum a^p)^(1/p), max a for p = inf,
    min a for p = -inf, and the count of nonzeros for p = 0."""
    if p == math.inf:
        return a.max(axis=1)
    if p == -math.inf:
        return a.min(axis=1)
    if p == 0:
        return (a != 0).sum(axis=1).astype(a.dtype)
    return (a**p).sum(axis=1) ** (1.0 / p)


def _renorm_rows(weight: Tensor, idx: Any, max_norm: float, norm_type: float) -> None:
    """In place, outside the graph: rows looked up whose norm exceeds max_norm are scaled down."""
    xp = get_array_module(weight._data)
    rows = xp.unique(idx.reshape(-1))
    w = weight._data[rows]
    acc = xp.float64 if w.dtype == xp.float64 else xp.float32  # half precision: float32 sums
    norms = _row_norms(xp, xp.abs(w.astype(acc)), float(norm_type))
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    weight._data[rows] = (w * scale[:, None]).astype(weight._data.dtype)
    weight._bump_version()


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """(..., ) int64 classes -> (..., num_classes) int64 with a 1 at each class;
    ``num_classes=-1`` means max(tensor) + 1."""
    check_index_dtype(tensor, ("int64",), "one_hot", "class values")
    num_classes = plain_int(num_classes)  # (a NumPy integer counts as an int)
    if not isinstance(num_classes, int) or isinstance(num_classes, bool):
        raise TypeError(f"one_hot: num_classes must be an int, got {type(num_classes).__name__}")
    data = tensor._data
    if data.size and int(data.min()) < 0:  # (before num_classes is inferred from the max)
        raise RuntimeError(f"one_hot: class values must be non-negative, got {int(data.min())}")
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
