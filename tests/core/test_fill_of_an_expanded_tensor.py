"""fill_ and zero_ of an expanded tensor: PyTorch allows them (every place that shares memory
takes the one value), so the value lands in the memory the expanded view reads, which is the
original tensor's; other in-place ops on it stay refused. The oracle is NumPy's own fill of
the same places."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_fill_of_an_expanded_tensor_writes_the_memory_it_reads(device):
    base = mg.zeros(3, 1, device=device)
    view = base.expand(3, 4)
    assert view.fill_(2.0) is view
    np.testing.assert_array_equal(base.cpu().numpy(), np.full((3, 1), 2.0))
    np.testing.assert_array_equal(view.cpu().numpy(), np.full((3, 4), 2.0))


def test_zero_of_an_expanded_view_of_a_slice_writes_only_the_slice():
    full = mg.arange(1.0, 7.0).reshape(2, 3)
    view = full[:, 1:].unsqueeze(1).expand(2, 4, 2)
    view.zero_()
    expected = np.arange(1.0, 7.0).reshape(2, 3)
    expected[:, 1:] = 0
    np.testing.assert_array_equal(full.numpy(), expected)


def test_fill_of_an_expanded_integer_tensor_converts_the_value_as_pytorch():
    base = mg.zeros(3, dtype=mg.uint8)
    base.expand(2, 3).fill_(-1)  # uint8 takes -1 as 255
    assert base.tolist() == [255, 255, 255]


def test_other_in_place_ops_on_an_expanded_tensor_stay_refused():
    view = mg.zeros(3, 1).expand(3, 4)
    with pytest.raises(RuntimeError):
        view.add_(1.0)
    leaf = mg.zeros(3, 1, requires_grad=True)
    with pytest.raises(RuntimeError):
        leaf.expand(3, 4).fill_(1.0)
