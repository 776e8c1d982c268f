"""Arithmetic on sparse COO tensors: sparse + sparse, dense + sparse, sparse * dense / sparse,
pointwise functions with f(0) = 0, sums over dims, sparse softmax and hybrid ``to_sparse``,
against NumPy's dense forms and float64 central differences of the values' gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

# (0, 2) is stored twice in A: its entries add up
A_INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]
A_VALUES = [3.0, 4.0, -5.0, 1.0, -2.0]
B_INDICES = [[0, 2, 2], [2, 1, 0]]
B_VALUES = [0.5, 7.0, -1.5]


def _dense(indices: list, values: list, shape: tuple = (3, 3)) -> np.ndarray:
    a = np.zeros(shape)
    np.add.at(a, tuple(np.array(indices)), values)
    return a


def _sparse(indices: list, values: list, **kwargs) -> mg.sparse.FloatTensor:
    return mg.sparse_coo_tensor(indices, mg.tensor(values, dtype=mg.float64, **kwargs), (3, 3))


A, B = _dense(A_INDICES, A_VALUES), _dense(B_INDICES, B_VALUES)
D = np.arange(9.0).reshape(3, 3) - 4.0


def test_sparse_plus_sparse_is_sparse_with_both_entries() -> None:
    out = _sparse(A_INDICES, A_VALUES) + _sparse(B_INDICES, B_VALUES)
    assert out.is_sparse and not out.is_coalesced()
    np.testing.assert_allclose(out.to_dense().numpy(), A + B)
    both = _sparse(A_INDICES, A_VALUES).coalesce().add(_sparse(B_INDICES, B_VALUES).coalesce())
    assert both.is_coalesced() and both._nnz() == 5  # 4 + 3 positions, (0,2) (2,1) in both
    scaled = _sparse(A_INDICES, A_VALUES).sub(_sparse(B_INDICES, B_VALUES), alpha=2.5)
    np.testing.assert_allclose(scaled.to_dense().numpy(), A - 2.5 * B)


def test_dense_plus_sparse_is_dense_and_sparse_plus_dense_is_refused() -> None:
    s, d = _sparse(A_INDICES, A_VALUES), mg.tensor(D)
    out = d + s
    assert not out.is_sparse
    np.testing.assert_allclose(out.numpy(), D + A)
    np.testing.assert_allclose((d - s).numpy(), D - A)
    np.testing.assert_allclose(mg.add(d, s, alpha=3).numpy(), D + 3 * A)
    with pytest.raises(RuntimeError, match="add\\(dense, sparse\\)"):
        s + d


def test_sparse_times_dense_or_sparse_is_sparse() -> None:
    s, d = _sparse(A_INDICES, A_VALUES), mg.tensor(D)
    for out in (s * d, d * s, s.mul(d), d.mul(s), mg.mul(d, s)):
        assert out.is_sparse
        np.testing.assert_allclose(out.to_dense().numpy(), A * D)
    row = mg.tensor([1.0, -2.0, 3.0], dtype=mg.float64)  # broadcast along the rows
    np.testing.assert_allclose((s * row).to_dense().numpy(), A * row.numpy())
    product = s * _sparse(B_INDICES, B_VALUES)
    assert product.is_coalesced() and product._nnz() == 2  # stored in both: (0,2), (2,1)
    np.testing.assert_allclose(product.to_dense().numpy(), A * B)
    with pytest.raises(RuntimeError, match="divisor"):
        s / d


def test_pointwise_functions_apply_to_the_summed_entries() -> None:
    s = _sparse(A_INDICES, A_VALUES)  # the repeated (0, 2) holds 3 + 1: abs(4), not 3 + 1
    for name, ref in [("abs", np.abs), ("sin", np.sin), ("relu", lambda a: np.maximum(a, 0))]:
        out = getattr(s, name)()
        assert out.is_sparse and out.is_coalesced()
        np.testing.assert_allclose(out.to_dense().numpy(), ref(A))
    np.testing.assert_allclose(s.pow(3).to_dense().numpy(), A**3)
    np.testing.assert_allclose(s.abs().sqrt().to_dense().numpy(), np.sqrt(np.abs(A)))


def test_sum_over_some_dims_is_sparse_over_all_sparse_dims_dense() -> None:
    s = _sparse(A_INDICES, A_VALUES)
    rows = mg.sparse.sum(s, 1)
    assert rows.is_sparse and rows.is_coalesced()
    np.testing.assert_allclose(rows.to_dense().numpy(), A.sum(1))
    np.testing.assert_allclose(s.sum(0).to_dense().numpy(), A.sum(0))
    total = mg.sparse.sum(s, (0, 1))
    assert not total.is_sparse and float(total) == pytest.approx(A.sum())
    # a hybrid tensor: one sparse dim, one dense dim of size 2
    h = mg.sparse_coo_tensor([[0, 2, 0]], mg.arange(6.0).reshape(3, 2), (3, 2))
    h_dense = h.to_dense().numpy()
    np.testing.assert_allclose(mg.sparse.sum(h, 0).numpy(), h_dense.sum(0))
    np.testing.assert_allclose(mg.sparse.sum(h, 1).to_dense().numpy(), h_dense.sum(1))


def _reference_softmax(a: np.ndarray, stored: np.ndarray, dim: int, log: bool) -> np.ndarray:
    """Softmax over the stored entries of each line (the others are -inf); 0 where not stored."""
    masked = np.where(stored, a, -np.inf)
    shifted = masked - masked.max(dim, keepdims=True, initial=-np.inf, where=stored)
    total = np.exp(shifted).sum(dim, keepdims=True)
    out = shifted - np.log(total) if log else np.exp(shifted) / total
    return np.where(stored, out, 0.0)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sparse_softmax_is_over_the_stored_entries_only(dim: int, log: bool) -> None:
    s = _sparse(A_INDICES, A_VALUES)
    stored = _dense(A_INDICES, np.ones(5)) > 0
    fn = mg.sparse.log_softmax if log else mg.sparse.softmax
    out = fn(s, dim)
    assert out.is_sparse and out.is_coalesced()
    np.testing.assert_allclose(
        out.to_dense().numpy(), _reference_softmax(A, stored, dim, log), rtol=1e-12
    )


def _central_difference(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up.flat[i] += eps
        down.flat[i] -= eps
        grad.flat[i] = (f(up) - f(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "times_dense", "times_sparse"])
def test_gradients_reach_the_values_of_the_sparse_operand(op: str) -> None:
    weights = mg.tensor(np.cos(np.arange(9.0)).reshape(3, 3))

    def loss(values) -> mg.Tensor:
        s = mg.sparse_coo_tensor(A_INDICES, values, (3, 3))
        if op == "softmax":
            out = mg.sparse.softmax(s, 1)
        elif op == "log_softmax":
            out = mg.sparse.log_softmax(s, 0)
        elif op == "times_dense":
            out = s * mg.tensor(D)
        else:
            out = s * (s + _sparse(B_INDICES, B_VALUES))
        return (out.to_dense() * weights).sum()

    values = mg.tensor(A_VALUES, dtype=mg.float64, requires_grad=True)
    loss(values).backward()
    expected = _central_difference(lambda v: float(loss(mg.tensor(v))), np.array(A_VALUES))
    np.testing.assert_allclose(values.grad.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_dense_plus_sparse_sends_gradients_to_both() -> None:
    values = mg.tensor(A_VALUES, dtype=mg.float64, requires_grad=True)
    d = mg.tensor(D, requires_grad=True)
    ((d + mg.sparse_coo_tensor(A_INDICES, values, (3, 3))) ** 2).sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), 2 * (D + A))
    positions = tuple(np.array(A_INDICES))
    np.testing.assert_allclose(values.grad.numpy(), 2 * (D + A)[positions])


def test_sparse_matrix_times_vector() -> None:
    s, v = _sparse(A_INDICES, A_VALUES), mg.tensor([1.0, -2.0, 0.5], dtype=mg.float64)
    for out in (s @ v, s.mv(v), mg.mv(s, v)):
        np.testing.assert_allclose(out.numpy(), A @ v.numpy())


def test_hybrid_to_sparse_keeps_the_trailing_dims_dense() -> None:
    x = np.array([[0.0, 1.0], [0.0, 0.0], [2.0, 3.0]])
    s = mg.tensor(x).to_sparse(1)
    assert (s.sparse_dim(), s.dense_dim()) == (1, 1)
    assert s.indices().tolist() == [[0, 2]]
    np.testing.assert_array_equal(s.values().numpy(), x[[0, 2]])
    np.testing.assert_array_equal(s.to_dense().numpy(), x)
    with pytest.raises(RuntimeError, match="sparse_dim"):
        mg.tensor(x).to_sparse(3)


def test_sparse_times_sparse_matrix_is_sparse_and_dense_times_sparse_is_dense() -> None:
    a, b = _sparse(A_INDICES, A_VALUES), _sparse(B_INDICES, B_VALUES)
    for out in (mg.sparse.mm(a, b), a @ b, mg.mm(a, b), mg.matmul(a, b)):
        assert out.is_sparse and out.is_coalesced()
        np.testing.assert_allclose(out.to_dense().numpy(), A @ B)
    d = mg.tensor(D[:2])
    for out in (d @ a, d.mm(a), mg.mm(d, a), mg.matmul(d, a)):
        assert not out.is_sparse
        np.testing.assert_allclose(out.numpy(), D[:2] @ A)
    assert a.numel() == 9


def test_sparse_times_sparse_matrix_sends_gradients_to_both_values() -> None:
    weights = mg.tensor(np.sin(np.arange(9.0)).reshape(3, 3))

    def loss(va, vb) -> mg.Tensor:
        a = mg.sparse_coo_tensor(A_INDICES, va, (3, 3))
        b = mg.sparse_coo_tensor(B_INDICES, vb, (3, 3))
        return (mg.sparse.mm(a, b).to_dense() * weights).sum()

    va = mg.tensor(A_VALUES, dtype=mg.float64, requires_grad=True)
    vb = mg.tensor(B_VALUES, dtype=mg.float64, requires_grad=True)
    loss(va, vb).backward()
    vb_fixed, va_fixed = (
        mg.tensor(B_VALUES, dtype=mg.float64),
        mg.tensor(A_VALUES, dtype=mg.float64),
    )
    expected_a = _central_difference(
        lambda v: float(loss(mg.tensor(v), vb_fixed)), np.array(A_VALUES)
    )
    expected_b = _central_difference(
        lambda v: float(loss(va_fixed, mg.tensor(v))), np.array(B_VALUES)
    )
    np.testing.assert_allclose(va.grad.numpy(), expected_a, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(vb.grad.numpy(), expected_b, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dim", [0, 1])
def test_index_select_takes_the_slices_at_the_index_repeats_included(dim: int) -> None:
    s = _sparse(A_INDICES, A_VALUES)
    picks = [2, 0, 2]
    out = s.index_select(dim, mg.tensor(picks))
    assert out.is_sparse
    np.testing.assert_allclose(out.to_dense().numpy(), np.take(A, picks, axis=dim))
    h = mg.tensor(np.arange(6.0).reshape(3, 2)).to_sparse(1)  # a dense dim: the values' slices
    np.testing.assert_allclose(
        h.index_select(1, mg.tensor([1, 1])).to_dense().numpy(),
        np.arange(6.0).reshape(3, 2)[:, [1, 1]],
    )
    with pytest.raises(IndexError, match="out of range"):
        s.index_select(dim, mg.tensor([3]))


def test_sparse_mask_takes_the_dense_elements_at_the_mask_entries() -> None:
    mask = _sparse(A_INDICES, A_VALUES).coalesce()
    d = mg.tensor(D, requires_grad=True)
    out = d.sparse_mask(mask)
    assert out.is_sparse and out.is_coalesced()
    stored = _dense(A_INDICES, np.ones(5)) > 0
    np.testing.assert_allclose(out.to_dense().detach().numpy(), np.where(stored, D, 0.0))
    (out.to_dense() ** 2).sum().backward()
    np.testing.assert_allclose(d.grad.numpy(), np.where(stored, 2 * D, 0.0))


def test_sparse_arithmetic_on_each_device(device: str) -> None:
    a = _sparse(A_INDICES, A_VALUES).to(device)
    b = _sparse(B_INDICES, B_VALUES).to(device)
    d = mg.tensor(D, device=device)
    cases = [
        (a + b, A + B),
        (d + a, D + A),
        (a * d, A * D),
        (a * b, A * B),
        (a.abs(), np.abs(A)),
        (mg.sparse.sum(a, 1), A.sum(1)),
        (a @ b, A @ B),
        (d @ a, D @ A),
        (a.index_select(1, mg.tensor([2, 0], device=device)), A[:, [2, 0]]),
    ]
    for out, expected in cases:
        dense = out.to_dense() if out.is_sparse else out
        assert dense.device.type == device
        np.testing.assert_allclose(dense.cpu().numpy(), expected, rtol=1e-12)
    stored = _dense(A_INDICES, np.ones(5)) > 0
    np.testing.assert_allclose(
        mg.sparse.softmax(a, 1).to_dense().cpu().numpy(),
        _reference_softmax(A, stored, 1, log=False),
        rtol=1e-12,
    )


def test_in_place_dense_updates_by_a_sparse_tensor_stay_dense() -> None:
    s = _sparse(A_INDICES, A_VALUES)
    for update, expected in [("add_", D + A), ("sub_", D - A), ("mul_", D * A)]:
        d = mg.tensor(D)
        assert getattr(d, update)(s) is d
        np.testing.assert_allclose(d.numpy(), expected)
    d = mg.tensor(D)
    d *= s
    np.testing.assert_allclose(d.numpy(), D * A)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_repeats_of_two_byte_floats_are_summed_once_rounded(dtype: str) -> None:
    """coalesce (and sparse.sum, which coalesces) sum a position's repeats in float32 and round
    once: the result is the float64 sum rounded to the dtype (a running 2-byte sum is not)."""
    rng = np.random.default_rng(0)
    index = np.stack([rng.integers(0, 3, 60), rng.integers(0, 4, 60)])
    values = mg.tensor(rng.random(60) * 100).to(getattr(mg, dtype))
    exact = np.zeros((3, 4))
    np.add.at(exact, tuple(index), values.double().numpy())
    s = mg.sparse_coo_tensor(index, values, (3, 4))
    rounded = mg.tensor(exact).to(getattr(mg, dtype)).double().numpy()
    np.testing.assert_array_equal(s.coalesce().to_dense().double().numpy(), rounded)
    row_sums = mg.tensor(exact.sum(1)).to(getattr(mg, dtype)).double().numpy()
    np.testing.assert_array_equal(mg.sparse.sum(s, 1).to_dense().double().numpy(), row_sums)


def test_batched_sparse_times_dense_matrices() -> None:
    rng = np.random.default_rng(1)
    index = np.stack([rng.integers(0, 2, 9), rng.integers(0, 3, 9), rng.integers(0, 4, 9)])
    values = mg.tensor(rng.standard_normal(9), requires_grad=True)
    batch = np.zeros((2, 3, 4))
    np.add.at(batch, tuple(index), values.detach().numpy())
    dense = mg.tensor(rng.standard_normal((2, 4, 5)), requires_grad=True)
    out = mg.bmm(mg.sparse_coo_tensor(index, values, (2, 3, 4)), dense)
    np.testing.assert_allclose(out.detach().numpy(), batch @ dense.detach().numpy(), rtol=1e-12)
    (out**2).sum().backward()
    g = 2 * (batch @ dense.detach().numpy())  # dL/dout
    np.testing.assert_allclose(dense.grad.numpy(), batch.transpose(0, 2, 1) @ g, rtol=1e-12)
    per_entry = (g @ dense.detach().numpy().transpose(0, 2, 1))[tuple(index)]
    np.testing.assert_allclose(values.grad.numpy(), per_entry, rtol=1e-12)


def test_sparse_in_place_arithmetic_matches_the_dense_arithmetic():
    idx = mg.tensor([[0, 1, 0], [1, 1, 1]])  # (0, 1) stored twice: uncoalesced
    a = mg.sparse_coo_tensor(idx, mg.tensor([2.0, 1.0, 0.5]), (2, 3))
    b = mg.sparse_coo_tensor(mg.tensor([[1], [2]]), mg.tensor([4.0]), (2, 3))
    dense_a, dense_b = a.to_dense().numpy().copy(), b.to_dense().numpy()
    same = a
    a += b
    a.mul_(3.0)
    a.sub_(b, alpha=2)
    a /= 2
    assert a is same
    expected = ((dense_a + dense_b) * 3.0 - 2 * dense_b) / 2
    np.testing.assert_allclose(a.to_dense().numpy(), expected)


def test_sparse_in_place_keeps_its_dtype_and_refuses_a_float_into_integers():
    a = mg.sparse_coo_tensor(mg.tensor([[0], [1]]), mg.tensor([2.0]), (2, 3))
    a.add_(mg.sparse_coo_tensor(mg.tensor([[0], [1]]), mg.tensor([2.0], dtype=mg.float64), (2, 3)))
    assert a.dtype == mg.float32 and a.to_dense()[0, 1].item() == 4.0
    ints = mg.sparse_coo_tensor(mg.tensor([[0], [1]]), mg.tensor([2]), (2, 3))
    with pytest.raises(RuntimeError, match="can't be cast"):
        ints.mul_(2.5)
