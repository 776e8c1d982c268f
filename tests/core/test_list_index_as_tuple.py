"""A list used as an index: PyTorch (as NumPy before 1.23) reads a short list that holds a
sequence, slice, tensor, ``...`` or None as a tuple of per-dim indices, with a deprecation
warning; any other list is one index along dim 0. Oracle: NumPy's basic/advanced indexing of the
tuple spelled out."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg

A = np.arange(12).reshape(3, 4)


@pytest.mark.parametrize(
    "index,as_tuple",
    [
        ([(1, 0)], ((1, 0),)),  # a list holding one tuple: rows 1 and 0
        ([[1, 0]], ([1, 0],)),
        ([(1, 0), (2, 3)], ([1, 0], [2, 3])),  # one index per dim: elements (1, 2), (0, 3)
        ([[1, 0], slice(None)], ([1, 0], slice(None))),
        ([None, 1], (None, 1)),
        ([Ellipsis, 1], (Ellipsis, 1)),
        ([[True, False, True]], (np.array([True, False, True]),)),
    ],
)
def test_a_list_holding_a_sequence_indexes_as_a_tuple_with_a_warning(index, as_tuple):
    x = mg.tensor(A)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        got = x[index]
    want = A[tuple(np.array(i) if isinstance(i, (list, tuple)) else i for i in as_tuple)]
    np.testing.assert_array_equal(got.numpy(), want)


def test_a_list_of_numbers_is_still_one_index_without_a_warning():
    x = mg.tensor(A)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(x[[1, 0]].numpy(), A[[1, 0]])
        np.testing.assert_array_equal(x[[True, False, True]].numpy(), A[[True, False, True]])


def test_a_list_holding_tensors_indexes_one_dim_per_tensor():
    x = mg.tensor(A)
    with pytest.warns(UserWarning):
        assert x[[mg.tensor(1), mg.tensor(2)]].item() == A[1, 2]


def test_writing_and_differentiating_through_a_list_holding_a_tuple():
    x = mg.tensor(A.astype(float), requires_grad=True)
    with pytest.warns(UserWarning):
        x[[(1, 0)]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1] * 4, [1] * 4, [0] * 4])
    y = mg.tensor(A.copy())
    with pytest.warns(UserWarning):
        y[[(1, 0)]] = 5
    np.testing.assert_array_equal(y.numpy(), np.r_[np.full((2, 4), 5), A[2:]])


def test_a_list_holding_numpy_arrays_indexes_one_dim_per_array():
    # (a NumPy array is a sequence: [rows, cols] picks elements, not rows of a (2, 2) index)
    x = mg.tensor(np.arange(16).reshape(4, 4))
    rows, cols = np.array([0, 2]), np.array([1, 3])
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        got = x[[rows, cols]]
    np.testing.assert_array_equal(got.numpy(), np.arange(16).reshape(4, 4)[rows, cols])
