"""Sparse COO tensors in checkpoints: a weights-only load rebuilds them (indices, values, size,
the coalesced flag) through sparse_coo_tensor's checks, and refuses parts that do not fit."""

from __future__ import annotations

import io

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.serialization import CheckpointError
from minigenesis.size import Size


def _reloaded(obj):
    buffer = io.BytesIO()
    mg.save(obj, buffer)
    buffer.seek(0)
    return mg.load(buffer)  # weights_only=True, the default


def test_sparse_tensors_come_back_from_a_weights_only_load() -> None:
    s = mg.sparse_coo_tensor([[0, 1, 1], [1, 0, 0]], [1.0, 2.0, 3.0], (2, 3))
    hybrid = mg.tensor([[0.0, 1.0], [0.0, 0.0], [2.0, 3.0]]).to_sparse(1)
    back = _reloaded({"s": s, "coalesced": s.coalesce(), "hybrid": hybrid, "dense": mg.ones(2)})
    for name, original in [("s", s), ("coalesced", s.coalesce()), ("hybrid", hybrid)]:
        got = back[name]
        assert got.is_sparse and got.is_coalesced() == original.is_coalesced()
        assert tuple(got.shape) == tuple(original.shape) and got._nnz() == original._nnz()
        np.testing.assert_array_equal(got._indices().numpy(), original._indices().numpy())
        np.testing.assert_array_equal(got.to_dense().numpy(), original.to_dense().numpy())
    np.testing.assert_array_equal(back["dense"].numpy(), np.ones(2))


def test_a_sparse_tensor_whose_indices_exceed_its_size_is_refused() -> None:
    s = mg.sparse_coo_tensor([[0, 4]], [1.0, 2.0], (5,))
    s.shape = Size((3,))  # what a crafted file could claim: index 4 in a size of 3
    with pytest.raises(CheckpointError, match="out of bounds"):
        _reloaded(s)
