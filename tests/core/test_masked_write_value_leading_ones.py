"""``x[mask] = v`` and ``x[idx] = v`` take a value with leading size-1 dims, as PyTorch does: the
value's leading 1s are dropped before broadcasting (NumPy alone refuses a 2-D value under a
boolean mask). The gradient flows back to the value in its own shape."""

from __future__ import annotations

import numpy as np

import minigenesis as mg


def test_full_mask_write_takes_a_value_with_leading_ones() -> None:
    a = np.arange(6.0).reshape(2, 3)
    mask = np.array([[True, False, True], [False, True, True]])
    v = np.array([[10.0, 20.0, 30.0, 40.0]])
    x = mg.tensor(a)
    x[mg.tensor(mask)] = mg.tensor(v)
    expected = a.copy()
    expected[mask] = v[0]
    np.testing.assert_array_equal(x.numpy(), expected)


def test_row_mask_write_takes_a_value_with_leading_ones() -> None:
    a = np.zeros((3, 2))
    x = mg.tensor(a)
    x[mg.tensor([True, False, True])] = mg.tensor([[[1.0, 2.0]]])
    np.testing.assert_array_equal(x.numpy(), [[1.0, 2.0], [0.0, 0.0], [1.0, 2.0]])


def test_masked_write_gradient_reaches_the_value_in_its_shape() -> None:
    mask = np.array([[True, False, True], [False, True, True]])
    w = np.arange(6.0).reshape(2, 3)
    x = mg.zeros(2, 3, dtype=mg.float64, requires_grad=True)
    v = mg.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=mg.float64, requires_grad=True)
    y = x.clone()
    y[mg.tensor(mask)] = v
    (y * mg.tensor(w)).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), w[mask][None])
    np.testing.assert_array_equal(x.grad.numpy(), np.where(mask, 0.0, w))
