"""number / tensor is number * (1 / tensor), as PyTorch computes it: two roundings, and a graph
that saves the reciprocal (the tensor may be written in place after the division)."""

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("number", [7.1, 3, -0.3])
def test_number_over_tensor_rounds_as_reciprocal_times_number(dtype, number):
    x = np.random.default_rng(0).standard_normal(5000).astype(dtype) * 10
    got = (number / mg.tensor(x)).numpy()
    want = (np.ones(1, dtype) / x) * np.asarray(number, dtype)  # each step rounded in dtype
    np.testing.assert_array_equal(got, want)


def test_number_over_int_tensor_is_float():
    got = 3 / mg.tensor([1, 2, 4])
    assert got.dtype == mg.float32
    np.testing.assert_array_equal(got.numpy(), np.float32([3, 1.5, 0.75]))


def test_writing_the_divisor_in_place_after_number_over_it_keeps_the_gradient():
    x = mg.tensor([1.0, 2.0, 4.0], requires_grad=True)
    y = x.clone()
    z = 2 / y
    y.add_(1)  # the reciprocal, not y, is saved: no version error, as in PyTorch
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -2 / np.array([1.0, 2.0, 4.0]) ** 2)
