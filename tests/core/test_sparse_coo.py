"""Sparse COO tensors: building them (sparse_coo_tensor, Tensor.to_sparse), coalesce, to_dense,
the transpose, and the sparse @ dense product with its gradients, against NumPy's dense forms
and float64 central differences."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]  # (0, 2) is stored twice: its entries add up
VALUES = [3.0, 4.0, 5.0, 1.0, -2.0]


def _dense_reference() -> np.ndarray:
    a = np.zeros((3, 3))
    np.add.at(a, tuple(np.array(INDICES)), VALUES)
    return a


def test_to_dense_adds_the_entries_stored_at_one_position() -> None:
    s = mg.sparse_coo_tensor(INDICES, VALUES, (3, 3))
    np.testing.assert_array_equal(s.to_dense().numpy(), _dense_reference())
    assert s.layout == mg.sparse_coo and s.is_sparse and s._nnz() == 5


def test_size_is_inferred_from_the_largest_indices() -> None:
    assert tuple(mg.sparse_coo_tensor(INDICES, VALUES).shape) == (3, 3)
    assert tuple(mg.sparse_coo_tensor([[0, 4]], [[1.0, 2.0], [3.0, 4.0]]).shape) == (5, 2)


def test_coalesce_sorts_and_sums_repeated_positions() -> None:
    s = mg.sparse_coo_tensor(INDICES, VALUES, (3, 3))
    assert not s.is_coalesced()
    with pytest.raises(RuntimeError, match="uncoalesced"):
        s.indices()
    c = s.coalesce()
    assert c.is_coalesced()
    assert c.indices().tolist() == [[0, 1, 1, 2], [2, 0, 2, 1]]
    assert c.values().tolist() == [4.0, 4.0, 5.0, -2.0]
    np.testing.assert_array_equal(c.to_dense().numpy(), _dense_reference())


def test_to_sparse_keeps_the_nonzeros_and_round_trips() -> None:
    x = mg.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, -1.0]])
    s = x.to_sparse()
    assert s.is_coalesced() and s.indices().tolist() == [[0, 1, 1], [1, 0, 2]]
    assert s.values().tolist() == [2.0, 3.0, -1.0]
    np.testing.assert_array_equal(s.to_dense().numpy(), x.numpy())
    assert x.layout == mg.strided and not x.is_sparse and x.to_dense() is x


def test_transpose_swaps_the_index_rows() -> None:
    s = mg.sparse_coo_tensor(INDICES, VALUES, (3, 4))
    np.testing.assert_array_equal(s.t().to_dense().numpy(), s.to_dense().numpy().T)


@pytest.mark.parametrize("spell", ["spmm", "sparse.mm", "mm", "matmul", "@", "method"])
def test_sparse_times_dense_equals_the_dense_product(spell: str) -> None:
    s = mg.sparse_coo_tensor(INDICES, VALUES, (3, 3), dtype=mg.float64)
    d = mg.tensor(np.arange(6.0).reshape(3, 2) - 2)
    product = {
        "spmm": lambda: mg.spmm(s, d),
        "sparse.mm": lambda: mg.sparse.mm(s, d),
        "mm": lambda: mg.mm(s, d),
        "matmul": lambda: mg.matmul(s, d),
        "@": lambda: s @ d,
        "method": lambda: s.mm(d),
    }[spell]()
    assert not product.is_sparse
    np.testing.assert_allclose(product.numpy(), _dense_reference() @ d.numpy())


def _central_difference(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad


def test_gradients_reach_the_dense_operand_and_the_values() -> None:
    rng = np.random.default_rng(0)
    d_np, w_np = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    values = mg.tensor(VALUES, dtype=mg.float64, requires_grad=True)
    d = mg.tensor(d_np, requires_grad=True)
    s = mg.sparse_coo_tensor(INDICES, values, (3, 3))
    (mg.sparse.mm(s, d) * mg.tensor(w_np)).sum().backward()

    def loss(v: np.ndarray, dense: np.ndarray) -> float:
        a = np.zeros((3, 3))
        np.add.at(a, tuple(np.array(INDICES)), v)
        return float(((a @ dense) * w_np).sum())

    v_np = np.array(VALUES)
    np.testing.assert_allclose(d.grad.numpy(), _central_difference(lambda x: loss(v_np, x), d_np),
                               rtol=1e-6, atol=1e-8)  # fmt: skip
    np.testing.assert_allclose(values.grad.numpy(),
                               _central_difference(lambda v: loss(v, d_np), v_np),
                               rtol=1e-6, atol=1e-8)  # fmt: skip
    # closed form: dL/dD = A^T W
    np.testing.assert_allclose(d.grad.numpy(), _dense_reference().T @ w_np)


def test_second_derivative_through_the_product() -> None:
    # L = sum((A d)^2) / 2: dL/dd = A^T A d, and d(sum dL/dd)/dd = A^T A 1
    a = mg.sparse_coo_tensor(INDICES, VALUES, (3, 3), dtype=mg.float64)
    d = mg.tensor(np.ones((3, 1)), requires_grad=True)
    (g,) = mg.autograd.grad((mg.spmm(a, d) ** 2).sum() / 2, d, create_graph=True)
    dense = _dense_reference()
    np.testing.assert_allclose(g.detach().numpy(), dense.T @ dense @ np.ones((3, 1)))
    (h,) = mg.autograd.grad(g.sum(), d)
    np.testing.assert_allclose(h.numpy(), dense.T @ dense @ np.ones((3, 1)))


def test_a_sparse_leaf_gets_a_sparse_gradient_once_per_position() -> None:
    s = mg.sparse_coo_tensor(INDICES, VALUES, (3, 3), requires_grad=True)
    d = mg.ones(3, 2)
    mg.sparse.mm(s, d).sum().backward()
    assert s.grad.is_sparse and s.grad.indices().tolist() == [[0, 1, 1, 2], [2, 0, 2, 1]]
    assert s.grad.values().tolist() == [2.0, 2.0, 2.0, 2.0]  # dL/dA[i, j] = sum_k d[j, k]


def test_to_dense_is_differentiable() -> None:
    values = mg.tensor(VALUES, requires_grad=True)
    dense = mg.sparse_coo_tensor(INDICES, values, (3, 3)).to_dense()
    (dense * mg.arange(9.0).reshape(3, 3)).sum().backward()
    flat = np.ravel_multi_index(tuple(np.array(INDICES)), (3, 3))
    np.testing.assert_array_equal(values.grad.numpy(), flat.astype(np.float32))


def test_legacy_constructor_and_casts() -> None:
    s = mg.sparse.FloatTensor(mg.tensor(INDICES), mg.tensor(VALUES, dtype=mg.float64), (3, 3))
    assert s.dtype == mg.float32 and s.double().dtype == mg.float64
    np.testing.assert_array_equal((s * 2).to_dense().numpy(), 2 * _dense_reference())


@pytest.mark.parametrize(
    "indices, values, size, match",
    [
        ([[0, 3]], [1.0, 2.0], (3,), "out of bounds"),
        ([[0, 1]], [1.0], (3,), "same number of entries"),
        ([0, 1], [1.0, 2.0], (3,), "2-D integer"),
        ([[0, 1]], [1.0, 2.0], (3, 3), "sparse_dim"),
    ],
)
def test_bad_construction_is_refused(indices, values, size, match: str) -> None:
    with pytest.raises(RuntimeError, match=match):
        mg.sparse_coo_tensor(indices, values, size)


def test_mismatched_product_is_refused() -> None:
    s = mg.sparse_coo_tensor(INDICES, VALUES, (3, 3))
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        mg.spmm(s, mg.ones(4, 2))
    with pytest.raises(RuntimeError, match="same dtype"):
        mg.spmm(s, mg.ones(3, 2, dtype=mg.float64))
