"""scatter_add / scatter / scatter_reduce / gather with an index smaller than self and src in the
other dims: the gradient to src is dL/dout gathered at index over index's block, zero outside it
(NumPy's take_along_axis on the leading block is the oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

# (self's shape, src's shape, index, dim)
CASES = [
    ((3, 2), (1, 1), [[2]], 0),
    ((3, 2), (2, 4), [[2]], 0),
    ((4, 3), (3, 5), [[2, 0], [1, 3]], 0),
    ((4, 3), (5, 3), [[2], [1], [0]], 1),
    ((2, 3, 4), (3, 3, 3), [[[1, 0]], [[2, 2]]], 2),
]


def _expected_src_grad(g: np.ndarray, index: np.ndarray, dim: int, src_shape) -> np.ndarray:
    block = tuple(slice(None) if e == dim else slice(0, n) for e, n in enumerate(index.shape))
    out = np.zeros(src_shape)
    out[tuple(slice(0, n) for n in index.shape)] = np.take_along_axis(g[block], index, axis=dim)
    return out


@pytest.mark.parametrize("shape, src_shape, index, dim", CASES)
@pytest.mark.parametrize(
    "op",
    [
        lambda x, d, i, s: x.scatter_add(d, i, s),
        lambda x, d, i, s: x.scatter(d, i, s),
        lambda x, d, i, s: x.scatter_reduce(d, i, s, "sum"),
    ],
    ids=["scatter_add", "scatter", "scatter_reduce_sum"],
)
def test_scatter_gradient_to_src_is_the_gather_over_the_index_block(
    shape, src_shape, index, dim, op
):
    rng = np.random.default_rng(1)
    x = mg.tensor(rng.standard_normal(shape), requires_grad=True)
    src = mg.tensor(rng.standard_normal(src_shape), requires_grad=True)
    idx = np.array(index)
    g = rng.standard_normal(shape)
    op(x, dim, mg.tensor(idx), src).backward(mg.tensor(g))
    np.testing.assert_allclose(
        src.grad.numpy(), _expected_src_grad(g, idx, dim, src_shape), rtol=1e-12
    )


def test_scatter_add_gradient_of_the_reported_case_is_the_picked_element():
    x = mg.zeros(3, 2, requires_grad=True)
    s = mg.ones(1, 1, requires_grad=True)
    x.scatter_add(0, mg.tensor([[2]]), s).backward(mg.arange(6.0).reshape(3, 2))
    assert s.grad.tolist() == [[4.0]]
    assert x.grad.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]


def test_scatter_add_second_derivative_with_a_smaller_index_matches_finite_differences():
    """d/ds of <dL/ds, v> where L = sum(w * scatter_add(x, idx, s)^2): central differences."""
    rng = np.random.default_rng(2)
    x0, s0 = rng.standard_normal((3, 4)), rng.standard_normal((2, 5))
    w, v = rng.standard_normal((3, 4)), rng.standard_normal((2, 5))
    idx = np.array([[2, 0, 1]])

    def first(s_arr):
        s = mg.tensor(s_arr, requires_grad=True)
        y = mg.tensor(x0).scatter_add(0, mg.tensor(idx), s)
        (gs,) = mg.autograd.grad((mg.tensor(w) * y * y).sum(), s, create_graph=True)
        return s, gs

    s, gs = first(s0)
    (hv,) = mg.autograd.grad((gs * mg.tensor(v)).sum(), s)
    h = 1e-6
    numeric = np.zeros_like(s0)
    for k in np.ndindex(s0.shape):
        e = np.zeros_like(s0)
        e[k] = h
        plus = (first(s0 + e)[1].detach().numpy() * v).sum()
        minus = (first(s0 - e)[1].detach().numpy() * v).sum()
        numeric[k] = (plus - minus) / (2 * h)
    np.testing.assert_allclose(hv.numpy(), numeric, rtol=1e-6, atol=1e-8)
