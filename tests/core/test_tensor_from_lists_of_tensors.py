"""``mg.tensor`` of a list holding tensors: as PyTorch, each tensor in a list is read as the one
number it holds (of its dtype, for the inference), so [tensor([1.]), tensor([2.])] is a (2,)
tensor, not (2, 1); a tensor of several elements in a list is refused (mg.stack joins those).
A tensor given alone keeps its shape. The oracle is the same list written with Python numbers."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    "data,numbers",
    [
        ([mg.tensor([1.0]), mg.tensor([2.0])], [1.0, 2.0]),
        ([mg.tensor([[1.0]]), mg.tensor(2.0)], [1.0, 2.0]),
        ([[mg.tensor([1.5])], [mg.tensor(2.0)]], [[1.5], [2.0]]),
        ([mg.tensor([1], dtype=mg.int8), 2], [1, 2]),
        ([mg.tensor([True]), mg.tensor(False)], [True, False]),
    ],
)
def test_a_one_element_tensor_in_a_list_is_read_as_its_number(data, numbers):
    ours, plain = mg.tensor(data), mg.tensor(numbers)
    assert ours.shape == plain.shape and ours.dtype == plain.dtype
    np.testing.assert_array_equal(ours.numpy(), np.array(numbers))


def test_a_tensor_of_several_elements_in_a_list_is_refused():
    with pytest.raises(ValueError, match="one element"):
        mg.tensor([mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])])
    with pytest.raises(ValueError, match="one element"):
        mg.tensor([mg.zeros(0)])


def test_a_tensor_alone_and_lists_of_arrays_keep_their_shapes():
    assert mg.tensor(mg.tensor([1.0])).shape == (1,)
    arrays = [np.array([1.0, 2.0]), np.array([3.0, 4.0])]
    np.testing.assert_array_equal(mg.tensor(arrays).numpy(), np.stack(arrays))
    # a float64 0-d tensor with a Python int: float64, as the tensor's own dtype counts
    assert mg.tensor([mg.tensor(1.5, dtype=mg.float64), 2]).dtype == mg.float64
