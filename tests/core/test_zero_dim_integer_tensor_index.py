"""A 0-d integer tensor used as an index is a plain int, as in PyTorch: ``x[mg.tensor(1)]`` is
``x[1]``, a view of x (a write through it reaches x, and x's writes reach it), with the gradient
of a select; beside an index list it selects first, as an int does."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

A = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.int8])
def test_zero_dim_integer_index_is_a_view(dtype) -> None:
    x = mg.tensor(A)
    y = x[mg.tensor(1, dtype=dtype)]
    y[0] = -5.0
    expected = A.copy()
    expected[1, 0] = -5.0
    np.testing.assert_array_equal(x.numpy(), expected)
    x.mul_(2.0)
    np.testing.assert_array_equal(y.numpy(), expected[1] * 2)


def test_zero_dim_integer_index_beside_a_list_selects_first() -> None:
    x = mg.tensor(np.arange(24.0).reshape(2, 3, 4))
    out = x[:, mg.tensor(2), [0, 3]]
    np.testing.assert_array_equal(out.numpy(), np.arange(24.0).reshape(2, 3, 4)[:, 2, [0, 3]])


def test_zero_dim_integer_index_gradient_is_a_select() -> None:
    x = mg.tensor(A, requires_grad=True)
    w = np.array([1.0, -2.0, 3.0, 0.5])
    (x[mg.tensor(-1)] * mg.tensor(w)).sum().backward()
    expected = np.zeros((3, 4))
    expected[-1] = w
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_zero_dim_integer_index_out_of_range_raises_index_error() -> None:
    with pytest.raises(IndexError):
        mg.tensor(A)[mg.tensor(3)]
