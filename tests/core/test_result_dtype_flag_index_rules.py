"""Result dtypes, requires_grad flags and picked indices that follow PyTorch's rules: a bool tensor
squares to int64, A^0 stays in A's graph, and kthvalue's index among equal values is the one
PyTorch's CPU quickselect leaves at place k (expected indices read off PyTorch 2.13)."""

import numpy as np
import pytest

import minigenesis as mg

NAN = float("nan")


def test_square_of_a_bool_tensor_is_int64_like_bool_to_the_power_two():
    x = mg.tensor([True, False])
    for out in (x.square(), mg.square(x), x**2):
        assert out.dtype is mg.int64
        np.testing.assert_array_equal(out.numpy(), [1, 0])
    assert mg.square(mg.tensor([3], dtype=mg.uint8)).dtype is mg.uint8  # others keep their dtype


def test_bool_tensor_to_a_negative_int_power_is_refused_like_int64():
    # bool ** int computes in int64, so a negative exponent gets int64's RuntimeError
    x = mg.tensor([True, False])
    for call in (lambda: x**-3, lambda: x.pow(-1), lambda: mg.pow(x, -2)):
        with pytest.raises(RuntimeError, match="negative integer powers"):
            call()


@pytest.mark.parametrize("power", [mg.linalg.matrix_power, mg.matrix_power, mg.Tensor.matrix_power])
def test_matrix_power_zero_is_an_identity_in_the_graph_with_zero_gradient(power):
    a = mg.tensor([[1.0, NAN], [3.0, 4.0]], dtype=mg.float64, requires_grad=True)
    eye = power(a, 0)
    assert eye.requires_grad and eye.grad_fn is not None
    np.testing.assert_array_equal(eye.detach().numpy(), np.eye(2))  # the NaN does not leak in
    eye.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros((2, 2)))
    plain = power(a.detach(), 0)
    assert not plain.requires_grad


@pytest.mark.parametrize(
    "values, k, index",
    [
        ([1.0, 3.0, 1.0, 1.0, 2.0, 1.0], 2, 2),
        ([1.0, 3.0, 1.0, 1.0, 2.0, 1.0], 3, 0),
        ([1.0, 3.0, 1.0, 1.0, 2.0, 1.0], 4, 5),
        ([0.0] * 19, 10, 0),
        ([NAN, 1.0, NAN, 0.0, NAN], 4, 0),
        ([NAN, 1.0, NAN, 0.0, NAN], 5, 4),
        ([2, 7, 2, 2, 7, 7, 2, 7], 5, 5),
    ],
)
def test_kthvalue_index_among_equal_values_is_pytorchs_quickselect_pick(values, k, index):
    out = mg.kthvalue(mg.tensor(values), k)
    assert out.indices.item() == index
    expected = np.sort(np.asarray(values, dtype=np.float64))[k - 1]
    np.testing.assert_array_equal(out.values.numpy(), expected)


def test_kthvalue_tie_indices_along_a_dim_of_a_batch_and_the_gradient_follows_them():
    x = mg.tensor([[2.0, 2.0, 2.0, 0.0], [5.0, 5.0, 1.0, 5.0]], requires_grad=True)
    out = x.kthvalue(2, 1)
    np.testing.assert_array_equal(out.indices.numpy(), [0, 1])
    out.values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 0, 0, 0], [0, 1, 0, 0]])


def test_kthvalue_index_always_points_at_the_kth_smallest_value():
    rng = np.random.default_rng(5)
    for _ in range(50):
        a = rng.integers(0, 3, size=(3, 17)).astype(np.float64)
        a[rng.random(a.shape) < 0.1] = NAN
        k = int(rng.integers(1, 18))
        out = mg.tensor(a).kthvalue(k, 1, keepdim=True)
        picked = np.take_along_axis(a, out.indices.numpy(), axis=1)
        np.testing.assert_array_equal(picked, np.sort(a, axis=1)[:, k - 1 : k])
