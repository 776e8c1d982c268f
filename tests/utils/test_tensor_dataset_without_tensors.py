"""TensorDataset() with no tensors is built, as PyTorch's; only len() fails (IndexError)."""

from __future__ import annotations

import pytest

from minigenesis.utils.data import TensorDataset


def test_tensor_dataset_without_tensors_builds_and_fails_at_len():
    d = TensorDataset()
    assert d.tensors == ()
    assert d[0] == ()
    with pytest.raises(IndexError):
        len(d)
