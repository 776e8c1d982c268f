"""An empty list used as an index picks nothing: ``x[[]]`` is an empty int64 index (NumPy alone
would read ``[]`` as a float64 array and refuse it), alone, in a tuple, or beside a slice or an
int; the write ``x[[]] = v`` changes nothing and the gradient through the read is zero."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    ("index", "np_index"),
    [
        ([], np.zeros(0, dtype=np.int64)),
        (([],), (np.zeros(0, dtype=np.int64),)),
        ((slice(None), []), (slice(None), np.zeros(0, dtype=np.int64))),
        ((1, []), (1, np.zeros(0, dtype=np.int64))),
        (([], [2]), (np.zeros(0, dtype=np.int64), np.array([2]))),
    ],
)
def test_empty_list_index_reads_an_empty_selection(index, np_index) -> None:
    a = np.arange(12.0).reshape(3, 4)
    out = mg.tensor(a)[index]
    expected = a[np_index]
    assert tuple(out.shape) == expected.shape
    assert out.dtype == mg.float64


def test_empty_list_index_write_changes_nothing() -> None:
    a = np.arange(12.0).reshape(3, 4)
    x = mg.tensor(a)
    x[[]] = 5.0
    x[:, []] = mg.ones(3, 0)
    np.testing.assert_array_equal(x.numpy(), a)


def test_empty_list_index_gradient_is_zero() -> None:
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    x[[]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))
