"""A PackedSequence casts and moves its ``data`` as a Tensor does (``double()``, ``long()``,
``cpu()`` ...), keeping ``batch_sizes`` and the sort permutation; a cast to the dtype it has
returns the same object, as PyTorch's ``to`` does."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.nn.utils.rnn import pack_sequence

SEQS = [np.array([[1.5, -2.0], [3.25, 4.0]]), np.array([[5.0, 6.5], [7.0, 8.0], [9.0, -1.0]])]

CASTS = {
    "double": mg.float64,
    "float": mg.float32,
    "half": mg.float16,
    "long": mg.int64,
    "int": mg.int32,
    "short": mg.int16,
    "char": mg.int8,
    "byte": mg.uint8,
}


@pytest.mark.parametrize("method", sorted(CASTS))
def test_cast_methods_cast_the_data_and_keep_the_packing(method: str) -> None:
    packed = pack_sequence([mg.tensor(s, dtype=mg.float32) for s in SEQS], enforce_sorted=False)
    cast = getattr(packed, method)()
    assert cast.data.dtype == CASTS[method]
    want = packed.data.numpy().astype(CASTS[method].numpy_dtype)
    np.testing.assert_array_equal(cast.data.numpy(), want)
    assert cast.batch_sizes.tolist() == [2, 2, 1]
    assert cast.sorted_indices.tolist() == [1, 0] and cast.unsorted_indices.tolist() == [1, 0]


def test_to_the_same_dtype_and_device_returns_the_packing_itself() -> None:
    packed = pack_sequence([mg.tensor(s, dtype=mg.float32) for s in SEQS[::-1]])
    assert packed.float() is packed and packed.cpu() is packed and packed.to("cpu") is packed
    assert packed.double() is not packed
    assert not packed.is_pinned() and packed.pin_memory() is packed
