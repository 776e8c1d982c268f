"""prod's gradient is differentiable again (create_graph=True): its Hessian is
d^2 prod / dx_i dx_j = prod_{k != i, j} x_k (0 on the diagonal), zeros in the input included."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def _hessian(x: np.ndarray) -> np.ndarray:
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                h[i, j] = np.prod(np.delete(x, [i, j]))
    return h


@pytest.mark.parametrize(
    "values", [[1.5, -2.0, 3.0, 0.7], [1.5, 0.0, 3.0, 0.7], [0.0, 2.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
)
@pytest.mark.parametrize("dim", [None, 0])
def test_prod_hessian_is_the_product_of_the_other_elements(values, dim):
    x0 = np.array(values)
    h = mg.autograd.functional.hessian(
        lambda t: t.prod() if dim is None else t.prod(dim), mg.tensor(x0, dtype=mg.float64)
    )
    np.testing.assert_allclose(h.numpy(), _hessian(x0), atol=1e-12)


def test_prod_double_backward_along_a_dim_of_a_matrix():
    x0 = np.array([[1.5, 0.0, -2.0], [0.5, 3.0, 2.0]])
    x = mg.tensor(x0, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(x.prod(1).sum(), x, create_graph=True)
    w = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    (h,) = mg.autograd.grad((g * mg.tensor(w, dtype=mg.float64)).sum(), x)
    want = np.stack([_hessian(row) @ wr for row, wr in zip(x0, w)])
    np.testing.assert_allclose(h.numpy(), want, atol=1e-12)
