"""F.embedding_bag: one vector per bag of indices, the sum, mean or max of the bag's rows.

A bag is a variable-length list of tokens (a sentence for a bag-of-words classifier). The bags
arrive as one flat index tensor and the position where each bag starts (``offsets``):

    input   = [4, 1, 7,   2, 2,   9]        offsets = [0, 3, 5]
    bags:     {4, 1, 7}  {2, 2}  {9}
    mode="sum":  out[b] = sum_{i in bag b} w_i W[input_i]   (w_i = per_sample_weights, or 1)
    mode="mean": out[b] = (1 / |bag b|) sum_{i in bag b} W[input_i]
    mode="max":  out[b] = the element-wise max over the bag's rows

or as a 2-D (B, N) tensor of B bags of N indices each. Entries equal to ``padding_idx`` are left
out of their bag (and of the mean's count); an empty bag gives zeros. It is built from
``F.embedding`` (the rows, with their gradient, sparse if asked) and a scatter-add per bag
(``index_add``), so the gradient of the rows flows back as for any lookup.
"""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...backend import get_array_module
from ...creation import zeros
from ...dtypes import float32
from ...ops.indexing import check_index_dtype
from ...ops.round_once import is_two_byte_float
from .embeddings import embedding

_MODES = ("sum", "mean", "max")


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """(B, embedding_dim): each bag's rows of ``weight`` reduced by ``mode`` (see the module)."""
    if isinstance(weight, Tensor) and weight._data.dtype.kind not in "fV":  # PyTorch's check
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: "
            f"Half, BFloat16, Float, Double; but got {weight.dtype} instead"
        )
    if mode not in _MODES:
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode!r}")
    check_index_dtype(input, ("int64", "int32"), "embedding_bag")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                f"on GitHub."
            )
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(
                f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is "
                f"not None, then it must have the same shape as the input "
                f"({tuple(input.shape)})"
            )
        if per_sample_weights.dtype is not weight.dtype:  # PyTorch's kernel takes one dtype
            raise RuntimeError(
                "embedding_bag: per_sample_weights must have the weight's dtype "
                f"{weight.dtype.name}, got {per_sample_weights.dtype.name}"
            )
    flat, starts, n_bags = _bags(input, offsets, include_last_offset)
    xp = get_array_module(flat)
    # the bag each position belongs to: the last start at or before it
    bag = xp.searchsorted(starts, xp.arange(flat.size), side="right") - 1
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    keep = xp.ones(flat.size, dtype=bool) if padding_idx is None else flat != padding_idx
    flat, bag = flat[keep], bag[keep]
    table = weight
    if mode != "max" and max_norm is None and not sparse and is_two_byte_float(weight):
        table = weight.to(float32)  # the weight's gradient summed in float32 too, rounded once
    rows = embedding(
        Tensor._make(flat), table, None, max_norm, norm_type, scale_grad_by_freq, sparse
    )
    dim = weight.shape[1]
    if mode == "max":
        return _bag_max(rows, bag, n_bags, dim)
    psw = per_sample_weights
    if is_two_byte_float(weight):  # products, sums and means in float32, rounded once (PyTorch)
        rows, psw = rows.to(float32), (None if psw is None else psw.to(float32))
    if psw is not None:
        rows = rows * psw.reshape(-1)[Tensor._make(xp.flatnonzero(keep))][:, None]
    bag_t = Tensor._make(bag.astype(xp.int64))
    out = zeros(n_bags, dim, dtype=rows.dtype, device=weight.device).index_add(0, bag_t, rows)
    if mode == "mean":
        counts = xp.maximum(xp.bincount(bag, minlength=n_bags), 1)  # an empty bag stays zero
        out = out / Tensor._make(counts[:, None].astype(rows._data.dtype))
    return out.to(weight.dtype)


def _bags(input: Tensor, offsets: Tensor | None, include_last_offset: bool) -> tuple:
    """The flat index array, each bag's start in it, and the number of bags."""
    idx = input._data
    xp = get_array_module(idx)
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type Tensor"
            )
        n_bags, length = idx.shape
        return idx.reshape(-1), xp.arange(n_bags) * length, n_bags
    if input.ndim != 1:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}"
        )
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = offsets._data.astype(xp.int64)
    if starts.size and starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {int(starts[0])}"
        )
    if starts.size and (starts[-1] > idx.size or (xp.diff(starts) < 0).any()):
        raise RuntimeError(
            f"offsets must be non-decreasing and at most the input's length ({idx.size}), "
            f"got {starts.tolist()}"
        )
    if include_last_offset:  # offsets holds B + 1 boundaries: the last closes the last bag
        starts = starts[:-1]
    return idx, starts, int(starts.size)


def _bag_max(rows: Tensor, bag: Any, n_bags: int, dim: int) -> Tensor:
    """Each bag's element-wise max, as a max over a (bags, longest bag, dim) table padded with
    -inf; an empty bag gives zeros. The gradient reaches the row holding each max."""
    xp = get_array_module(bag)
    counts = xp.bincount(bag, minlength=n_bags)
    longest = int(counts.max()) if counts.size else 0
    if longest == 0:
        return zeros(n_bags, dim, dtype=rows.dtype, device=rows.device) + rows.sum() * 0
    # slot of each kept position inside its bag: its rank among the bag's positions
    first = xp.concatenate(([0], xp.cumsum(counts)[:-1]))
    slot = xp.arange(bag.size) - first[bag]
    table_index = xp.zeros((n_bags, longest), dtype=xp.int64)
    table_index[bag, slot] = xp.arange(bag.size)
    filled = xp.zeros((n_bags, longest), dtype=bool)
    filled[bag, slot] = True
    table = rows[Tensor._make(table_index.reshape(-1))].reshape(n_bags, longest, dim)
    table = table.masked_fill(Tensor._make(~filled[:, :, None]), float("-inf"))
    out = table.amax(dim=1)
    return out.masked_fill(Tensor._make((counts == 0)[:, None]), 0.0)
