"""``x.repeat_interleave(r, dim)`` returns a new, writable, row-major tensor for every r, as
PyTorch's: with r == 1 it is a copy (a write to it must not reach x), and with x.shape[dim] == 1
it is not a stride-0 view (which would be read-only, or share one element between places)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_repeat_interleave_once_is_a_copy_not_a_view(dim) -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = mg.tensor(a)
    y = x.repeat_interleave(1, dim)
    y.fill_(-1.0)
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(y.numpy(), -np.ones(6 if dim is None else (2, 3)))


def test_repeat_interleave_of_one_element_is_writable_elementwise() -> None:
    x = mg.tensor([1.5])
    y = x.repeat_interleave(3)
    y[0] = 5.0
    np.testing.assert_array_equal(y.numpy(), [5.0, 1.5, 1.5])
    np.testing.assert_array_equal(x.numpy(), [1.5])
    assert y.is_contiguous() and y.stride() == (1,)


def test_repeat_interleave_once_keeps_dtype_and_gradient() -> None:
    assert mg.tensor([True, False]).repeat_interleave(1).dtype == mg.bool
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    w = np.arange(6.0).reshape(2, 3) + 1
    (x.repeat_interleave(1, 0) * mg.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w)
