"""The gradient of x[idx] with one integer index tensor (C[X], an embedding written by hand):
rows added back at repeated and negative indices, on both of add_rows_at's paths (add.at for
small batches, a sort and add.reduceat from ~2,000 numbers), against NumPy's add.at, float64
central differences and second derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck
from minigenesis.ops.indexing import add_rows_at


@pytest.mark.parametrize("idx_shape,width", [((32, 3), (10,)), ((64, 8), (16,)), ((40,), ())])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradient_of_rows_picked_by_a_tensor_sums_the_repeats(idx_shape, width, dtype):
    rng = np.random.default_rng(0)
    table = rng.standard_normal((7,) + width).astype(dtype)
    idx = rng.integers(-7, 7, idx_shape)  # repeats, and negative indices counting from the end
    g = rng.standard_normal(idx_shape + width).astype(dtype)
    c = mg.tensor(table, requires_grad=True)
    out = c[mg.tensor(idx)]
    np.testing.assert_array_equal(out.detach().numpy(), table[idx])
    out.backward(mg.tensor(g))
    want = np.zeros(table.shape, np.float64)
    np.add.at(want, idx, g.astype(np.float64))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(c.grad.numpy(), want, rtol=tol, atol=tol)
    assert c.grad.dtype == c.dtype


@pytest.mark.parametrize("m", [10, 500])  # add.at, then the sorted sums (500 x 5 >= 2048)
def test_add_rows_at_matches_add_at_on_both_paths(m):
    rng = np.random.default_rng(1)
    flat = rng.integers(-6, 6, m)
    rows = rng.standard_normal((m, 5))
    out = np.ones((6, 5))
    want = out.copy()
    np.add.at(want, flat, rows)
    add_rows_at(out, flat, rows)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_rows", [6, 120])
def test_central_differences_and_second_derivative(n_rows):
    rng = np.random.default_rng(2)
    c = mg.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    idx = mg.tensor(rng.integers(0, 5, (n_rows, 3)))
    w = mg.tensor(rng.standard_normal((n_rows, 3, 4)))
    assert gradcheck(lambda c: (c[idx] ** 2 * w).sum(), (c,))

    def grad_norm(c):  # the gradient (a sum at repeated rows) made differentiable again
        with mg.enable_grad():
            (g,) = mg.autograd.grad((c[idx] * w).sum() + (c**3).sum(), c, create_graph=True)
            return (g * g).sum()

    assert gradcheck(grad_norm, (c,))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("contiguous", [True, False])
def test_small_path_sums_in_add_at_order_to_the_bit(dtype, index_dtype, contiguous):
    """The small path adds over flat element positions; each sum must be NumPy's row-wise
    add.at's, to the bit (the same additions in the same order), for any index dtype, negative
    indices, and an out that is a strided view (then row-wise add.at itself)."""
    rng = np.random.default_rng(3)
    flat = rng.integers(0 if index_dtype == np.uint8 else -9, 9, 96).astype(index_dtype)
    rows = (rng.standard_normal((96, 10)) * 100).astype(dtype)
    base = rng.standard_normal((9, 20) if not contiguous else (9, 10)).astype(dtype)
    out = base[:, ::2] if not contiguous else base
    want = out.copy()
    np.add.at(want, flat, rows)
    add_rows_at(out, flat, rows)
    np.testing.assert_array_equal(out, want)
    assert out.dtype == dtype


def test_small_path_with_no_rows_or_no_width_changes_nothing():
    out = np.ones((4, 3))
    add_rows_at(out, np.zeros(0, np.int64), np.zeros((0, 3)))
    np.testing.assert_array_equal(out, np.ones((4, 3)))
    empty = np.ones((4, 0))
    add_rows_at(empty, np.array([1, -1]), np.zeros((2, 0)))
    assert empty.shape == (4, 0)


@pytest.mark.parametrize("index_dtype", [np.uint8, np.int8, np.int16])
def test_small_index_dtypes_address_more_rows_than_they_can_count(index_dtype):
    """A narrow index dtype (uint8, int8, int16) into more rows than it can hold (300): the
    positions are computed in intp, not in the index's own dtype (which would overflow)."""
    top = np.iinfo(index_dtype).max
    flat = np.array([1, top, top, -1 if np.iinfo(index_dtype).min < 0 else 0], index_dtype)
    rows = np.arange(8.0).reshape(4, 2)
    out = np.zeros((max(300, top + 1), 2))
    want = out.copy()
    np.add.at(want, flat, rows)
    add_rows_at(out, flat, rows)
    np.testing.assert_array_equal(out, want)
