"""x[idx] with one integer index array (a batch draw X[ix], an embedding's C[X]) takes its own
short path (whole rows gathered by NumPy, rows scatter-added back): the values, the layout and
the gradient against NumPy references, on the shapes and layouts that path can meet."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("shape", [(7,), (7, 5), (7, 3, 4)])
def test_rows_picked_with_repeats_and_negatives_match_numpy(shape, index_dtype):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(shape)
    idx = np.array([[0, -1, 3], [3, 3, -7]], dtype=index_dtype)
    x = mg.tensor(x_np, requires_grad=True)
    y = x[mg.tensor(idx)]
    np.testing.assert_array_equal(y.detach().numpy(), x_np[idx])
    g = rng.standard_normal(y.shape)
    y.backward(mg.tensor(g))
    expected = np.zeros(shape)
    np.add.at(expected, idx, g)  # repeated rows add up
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12, atol=0)


def test_rows_of_a_transposed_tensor_come_out_row_major():
    x_np = np.arange(12.0).reshape(3, 4)
    x = mg.tensor(x_np).t()  # (4, 3), not C-contiguous
    y = x[mg.tensor([2, 0])]
    np.testing.assert_array_equal(y.numpy(), x_np.T[[2, 0]])
    assert y.is_contiguous()
    assert y.view(-1).shape == (6,)


def test_an_index_past_the_rows_raises_index_error():
    x = mg.zeros(4, 2)
    with pytest.raises(IndexError):
        x[mg.tensor([1, 4])]
    with pytest.raises(IndexError):
        x[mg.tensor([-5])]


def test_a_tensor_index_gives_a_copy_not_a_view():
    x = mg.zeros(3, 2)
    y = x[mg.tensor([0, 1])]
    y += 1
    assert float(x.sum()) == 0.0
