"""An in-place write into a piece of a view whose elements overlap in memory (unfold windows with
step < size, an as_strided with repeated places) changes exactly the written elements of the
base, in a graph as outside one: the overlapping view's other, stale copies of those elements
must not write the old values back. Oracle: the same write done on a NumPy array, and the
gradient by hand (the scaled elements get 3 times the upstream gradient)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

A = np.arange(1.0, 7.0).reshape(2, 3)
W = np.arange(6.0).reshape(2, 3)


def _unfold_piece(t):
    return t.unfold(1, 2, 1)[0, 0]  # windows [1, 2], [2, 3] share the 2: this is y[0, 0:2]


def _strided_piece(t):
    return t.as_strided((2, 2), (1, 1))[1]  # rows [1, 2], [2, 3] share the 2: this is y[0, 1:3]


@pytest.mark.parametrize(
    ("piece", "places"),
    [(_unfold_piece, (0, slice(0, 2))), (_strided_piece, (0, slice(1, 3)))],
)
@pytest.mark.parametrize("in_graph", [False, True])
def test_write_into_piece_of_overlapping_view_reaches_exactly_its_elements(
    piece, places, in_graph
) -> None:
    x = mg.tensor(A, requires_grad=in_graph)
    y = x * 1
    piece(y).mul_(3.0)
    expected = A.copy()
    expected[places] *= 3.0
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    np.testing.assert_array_equal(piece(y).detach().numpy(), expected[places])
    if in_graph:
        (y * mg.tensor(W)).sum().backward()
        grad = W.copy()
        grad[places] *= 3.0
        np.testing.assert_array_equal(x.grad.numpy(), grad)
