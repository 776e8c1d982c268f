"""Max pooling over a window whose real elements all equal the padding value (-inf, or int64's
smallest integer): the index is the window's first element inside the input (PyTorch's kernel
starts there and replaces only on a larger value), never a position in the padding."""

import numpy as np

import minigenesis as mg
import minigenesis.nn.functional as F


def _first_inside(n_out: int, s: int, p: int, d: int) -> np.ndarray:
    """The first coordinate >= 0 of each window o (start o*s - p, step d)."""
    start = np.arange(n_out) * s - p
    return np.array([next(v for v in range(st, st + 10 * d, d) if v >= 0) for st in start])


def test_max_pool2d_all_minus_inf_windows_index_their_first_inside_element():
    x = np.full((1, 1, 5, 5), -np.inf)
    values, indices = F.max_pool2d(mg.tensor(x), 3, 1, 1, dilation=2, return_indices=True)
    # windows start at -1, 0, 1 with step 2: the first inside coordinates are 1, 0, 1
    rows = cols = _first_inside(3, 1, 1, 2)
    np.testing.assert_array_equal(rows, [1, 0, 1])
    assert values.shape == indices.shape == (1, 1, 3, 3)
    np.testing.assert_array_equal(indices.numpy()[0, 0], rows[:, None] * 5 + cols[None, :])


def test_max_pool2d_padding_never_indexed_where_minus_inf_ties_it():
    x = np.full((1, 1, 3, 4), -np.inf)
    x[0, 0, 2, 3] = 1.0
    values, indices = F.max_pool2d(mg.tensor(x), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(values.numpy()[0, 0], [[-np.inf, -np.inf], [-np.inf, 1.0]])
    # windows start at rows -1, 1 and columns -1, 1: the first inside is (0 or 1, 0 or 1)
    np.testing.assert_array_equal(indices.numpy()[0, 0], [[0, 1], [4, 11]])
    # so max_unpool2d takes them back (an index in the padding was negative: an error)
    back = F.max_unpool2d(values, indices, 3, 2, 1, output_size=(3, 4))
    assert back.numpy()[0, 0, 2, 3] == 1.0


def test_max_pool_gradient_of_a_minus_inf_window_reaches_the_input():
    x = mg.tensor(np.full((1, 1, 5), -np.inf), requires_grad=True)
    y = F.max_pool1d(x, 3, 2, 1)
    y.backward(mg.ones_like(y))
    # windows [-1, 0, 1], [1, 2, 3], [3, 4, 5]: first inside elements 0, 1 and 3
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [1.0, 1.0, 0.0, 1.0, 0.0])


def test_max_pool3d_and_int64_windows_of_the_smallest_value_index_inside():
    x = np.full((1, 1, 3, 4, 3), -np.inf)
    _, idx = F.max_pool3d(mg.tensor(x), 3, 2, 1, return_indices=True)
    d, h, w = (_first_inside(2, 2, 1, 1),) * 3
    want = (d[:, None, None] * 4 + h[None, :, None]) * 3 + w[None, None, :]
    np.testing.assert_array_equal(idx.numpy()[0, 0], want)
    low = np.full((1, 1, 3, 4), np.iinfo(np.int64).min)
    _, idx2 = F.max_pool2d(mg.tensor(low), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(idx2.numpy()[0, 0], [[0, 1], [4, 5]])
