"""default_collate on a batch whose first sample is a tensor: every sample must be a tensor of
the first one's shape (PyTorch's torch.stack rules and messages)."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.utils.data import DataLoader, default_collate


def test_collate_of_tensor_then_numpy_array_raises_type_error_naming_the_element():
    with pytest.raises(
        TypeError, match=r"expected Tensor as element 1 in argument 0, but got numpy\.ndarray"
    ):
        default_collate([mg.tensor([1.0]), np.ones(1)])


def test_collate_of_tensor_then_python_number_raises_type_error():
    with pytest.raises(TypeError, match=r"expected Tensor as element 2 in argument 0, but got int"):
        default_collate([mg.tensor(1), mg.tensor(2), 3])


def test_collate_of_tensors_with_different_ndim_names_both_shapes():
    with pytest.raises(
        RuntimeError, match=r"equal size, but got \[1\] at entry 0 and \[\] at entry 1"
    ):
        default_collate([mg.tensor([1]), mg.tensor(2)])


def test_loader_over_uneven_tensors_raises_stack_error():
    data = [mg.zeros(2), mg.zeros(2), mg.zeros(3)]
    with pytest.raises(RuntimeError, match=r"got \[2\] at entry 0 and \[3\] at entry 2"):
        list(DataLoader(data, batch_size=3))
