"""NumPy ufuncs called with a tensor return a tensor: ``np.exp(t)`` is computed by NumPy on the
tensor's array (as PyTorch does; a tensor that requires grad is refused), while the operator
ufuncs (``np.add(a, t)``, what ``a + t`` calls) run as the tensor's own operator, so they keep
autograd. Oracle: the same ufunc on the NumPy arrays."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

X = np.array([[0.5, -1.0, 2.0], [np.inf, 0.0, 3.5]], dtype=np.float32)


@pytest.mark.parametrize("ufunc", [np.exp, np.sqrt, np.isfinite, np.sign, np.floor])
def test_a_unary_ufunc_on_a_tensor_is_a_tensor_with_numpys_values(ufunc) -> None:
    with np.errstate(all="ignore"):
        want = ufunc(X)
        got = ufunc(mg.tensor(X))
    assert isinstance(got, mg.Tensor)
    assert got.numpy().dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)


def test_binary_and_tuple_ufuncs_return_tensors() -> None:
    t = mg.tensor(X)
    np.testing.assert_array_equal(np.maximum(t, 1.0).numpy(), np.maximum(X, 1.0))
    frac, whole = np.modf(mg.tensor([1.25, -2.5]))
    np.testing.assert_array_equal(frac.numpy(), [0.25, -0.5])
    np.testing.assert_array_equal(whole.numpy(), [1.0, -2.0])
    assert np.exp(mg.tensor(0.0)).shape == ()


def test_operator_ufuncs_are_the_tensors_operators_and_keep_autograd() -> None:
    a = np.array([1.0, 2.0, 3.0])
    x = mg.tensor([2.0, 4.0, 8.0], requires_grad=True)
    y = np.multiply(a, x)
    assert y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), a)
    np.testing.assert_array_equal((a < x).numpy(), a < np.array([2.0, 4.0, 8.0]))
    np.testing.assert_array_equal(np.subtract(a, x.detach()).numpy(), a - [2.0, 4.0, 8.0])


def test_a_non_operator_ufunc_refuses_a_tensor_requiring_grad() -> None:
    with pytest.raises(RuntimeError, match="detach"):
        np.exp(mg.ones(2, requires_grad=True))


@pytest.mark.parametrize(
    "left",
    [np.ones((3, 2), np.float32), np.ones((3, 2)), np.ones(3, np.int64), np.array(2.0)],
    ids=["float32", "float64", "int64", "0-d"],
)
def test_ndarray_matmul_tensor_raises_pytorchs_type_error(left) -> None:
    """PyTorch's Tensor.__rmatmul__ takes only tensors, so ``ndarray @ t`` is Python's TypeError
    whatever the dtypes (it was a tensor for equal dtypes here, a RuntimeError otherwise)."""
    t = mg.ones(2, 2)
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for @: 'numpy.ndarray'"):
        left @ t


@pytest.mark.parametrize("number", [2.0, 3, np.float64(2.0), np.int64(2)])
def test_a_number_matmul_a_tensor_raises_type_error_both_ways(number) -> None:
    t = mg.ones(2)
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for @"):
        number @ t
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for @"):
        t @ number
    with pytest.raises(TypeError):
        t.matmul(number)


def test_tensor_matmul_ndarray_is_still_the_matrix_product() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = mg.tensor(a) @ b
    assert isinstance(got, mg.Tensor)
    np.testing.assert_array_equal(got.numpy(), a @ b)
