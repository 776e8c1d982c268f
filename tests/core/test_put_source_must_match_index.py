"""``put`` / ``put_`` take one source element per index: a source with another number of
elements is refused with PyTorch's IndexError (a 1-element source was broadcast over every
index, silently writing one value many times); a source of index's size in another shape is
fine, read in flat order."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
def test_put_refuses_a_source_of_another_size(accumulate, inplace) -> None:
    x = mg.zeros(2, 3)
    put = x.put_ if inplace else x.put
    with pytest.raises(IndexError, match="same number of elements"):
        put(mg.tensor([0, 1]), mg.tensor([1.0]), accumulate=accumulate)
    np.testing.assert_array_equal(x.numpy(), np.zeros((2, 3)))


def test_put_reads_a_same_size_source_in_flat_order() -> None:
    x = mg.zeros(2, 3)
    out = x.put(mg.tensor([[5, 0]]), mg.tensor([[7.0], [8.0]]))
    expected = np.zeros(6)
    expected[[5, 0]] = [7.0, 8.0]
    np.testing.assert_array_equal(out.numpy(), expected.reshape(2, 3))
