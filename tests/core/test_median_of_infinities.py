"""The median of all elements is the lower middle element, infinities included, and its gradient
is shared evenly among the elements equal to it (PyTorch's rule). Oracle: the sorted values."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", [mg.float16, mg.bfloat16, mg.float32, mg.float64])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_an_infinite_element_is_that_infinity(dtype, name):
    for values in ([np.inf], [-np.inf], [np.inf, 2.0, np.inf], [-np.inf, -np.inf, 1.0, 5.0]):
        want = sorted(values)[(len(values) - 1) // 2]
        got = getattr(mg.tensor(values, dtype=dtype), name)()
        assert got.item() == want


def test_median_gradient_is_shared_among_the_infinite_elements_equal_to_it():
    x = mg.tensor([-np.inf, 3.0, -np.inf, -np.inf, 7.0], requires_grad=True)
    m = x.median()
    (g,) = mg.autograd.grad(m, x)
    assert m.item() == -np.inf
    np.testing.assert_array_equal(g.numpy(), np.float32([1 / 3, 0, 1 / 3, 1 / 3, 0]))


def test_median_gradient_of_a_finite_median_keeps_second_order_terms():
    x = mg.tensor([3.0, 2.0, 1.0, 2.0, np.nan, 0.0], requires_grad=True)
    m = x.nanmedian()
    (g,) = mg.autograd.grad(m * m, x, create_graph=True)  # 2 m / 2 on each of the two 2s
    np.testing.assert_array_equal(g.detach().numpy(), [0, 2, 0, 2, 0, 0])
    (gg,) = mg.autograd.grad(g.sum(), x)  # d/dx (2 m) = 2 * share
    np.testing.assert_array_equal(gg.numpy(), [0, 1, 0, 1, 0, 0])
