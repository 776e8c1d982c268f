"""``x[index] = v`` with a value that does not broadcast to ``x[index]`` raises PyTorch's
RuntimeError (not NumPy's ValueError), for basic and advanced indices, inside a graph and
outside, and for index_put; x is left unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    ("index", "value_shape"),
    [(0, (4, 3)), ((slice(None), 1), (3,)), ("rows", (3, 3, 4)), ("mask", (2,))],
)
@pytest.mark.parametrize("in_graph", [False, True])
def test_value_that_does_not_broadcast_raises_runtime_error(index, value_shape, in_graph) -> None:
    x = mg.zeros(2, 3, 4, requires_grad=in_graph)
    y = x.clone()
    if index == "rows":
        index = mg.tensor([0, 1])
    elif index == "mask":
        index = mg.tensor([True, True])  # picks (2, 3, 4)
    with pytest.raises(RuntimeError, match="broadcast"):
        y[index] = mg.ones(value_shape)
    np.testing.assert_array_equal(y.detach().numpy(), np.zeros((2, 3, 4)))


def test_index_put_value_that_does_not_broadcast_raises_runtime_error() -> None:
    with pytest.raises(RuntimeError, match="broadcast"):
        mg.zeros(2, 3, 4).index_put((mg.tensor([0]),), mg.ones(2, 2))
