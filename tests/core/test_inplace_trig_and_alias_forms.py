"""The in-place forms PyTorch has for the inverse trig functions, the arithmetic aliases, nextafter,
polygamma, baddbmm and the shifts (``<<=``, ``>>=``): each writes its out-of-place result into
self, keeps self's dtype (a float result into an integer tensor is refused), and records the
gradient of the out-of-place op."""

import math

import numpy as np
import pytest

import minigenesis as mg

X = np.array([0.5, -0.25, 0.75, 0.1])


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("asin_", np.arcsin),
        ("arcsin_", np.arcsin),
        ("acos_", np.arccos),
        ("arccos_", np.arccos),
        ("atan_", np.arctan),
        ("arctan_", np.arctan),
        ("absolute_", np.abs),
    ],
)
def test_unary_inplace_form_writes_the_function_into_self(name, reference):
    x = mg.tensor(X)
    same = getattr(x, name)()
    assert same is x and x.dtype == mg.float64
    np.testing.assert_allclose(x.numpy(), reference(X), rtol=1e-15)


@pytest.mark.parametrize("name", ["asin_", "acos_", "atan_", "arctan_"])
def test_unary_float_inplace_form_refuses_an_integer_tensor(name):
    with pytest.raises(RuntimeError, match="can't be cast"):
        getattr(mg.tensor([1, 2]), name)()


def test_asin_inplace_gradient_is_one_over_sqrt_one_minus_x_squared():
    leaf = mg.tensor(X, requires_grad=True)
    y = leaf * 1.0
    y.asin_()
    y.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 1 / np.sqrt(1 - X**2), rtol=1e-12)


def test_absolute_is_abs():
    np.testing.assert_array_equal(mg.tensor([-2, 3]).absolute().numpy(), [2, 3])


def test_true_divide_inplace_of_a_float_tensor_divides_and_refuses_an_integer_one():
    x = mg.tensor(X)
    x.true_divide_(4)
    np.testing.assert_array_equal(x.numpy(), X / 4)
    with pytest.raises(RuntimeError, match="can't be cast"):
        mg.tensor([1, 2]).true_divide_(2)


def test_divide_inplace_takes_the_rounding_mode():
    x = mg.tensor([7, -7, 5])
    x.divide_(2, rounding_mode="floor")
    np.testing.assert_array_equal(x.numpy(), np.floor_divide([7, -7, 5], 2))


def test_subtract_and_multiply_inplace_are_sub_and_mul():
    x = mg.tensor([1, 2, 3])
    x.subtract_(2, alpha=3)
    np.testing.assert_array_equal(x.numpy(), [-5, -4, -3])
    x.multiply_(mg.tensor([2, 2, -1]))
    np.testing.assert_array_equal(x.numpy(), [-10, -8, 3])


def test_arctan2_inplace_is_the_angle_of_the_point_other_self():
    y, x = mg.tensor(X), mg.tensor(X[::-1].copy())
    y.arctan2_(x)
    np.testing.assert_allclose(y.numpy(), np.arctan2(X, X[::-1]), rtol=1e-15)


def test_nextafter_inplace_steps_one_float_towards_other_and_refuses_integers():
    x = mg.tensor([1.0, 0.0], dtype=mg.float32)
    x.nextafter_(mg.tensor([2.0, -1.0], dtype=mg.float32))
    want = np.nextafter(np.float32([1.0, 0.0]), np.float32([2.0, -1.0]))
    np.testing.assert_array_equal(x.numpy(), want)
    with pytest.raises(NotImplementedError):
        mg.tensor([1, 2]).nextafter_(mg.tensor(1))


def test_polygamma_inplace_of_order_one_is_the_trigamma_series():
    x = mg.tensor([1.5, 2.0])
    x.polygamma_(1)
    k = np.arange(200000.0)[:, None]
    trigamma = (1 / (np.array([1.5, 2.0]) + k) ** 2).sum(0)  # sum 1/(x+k)^2, tail < 1e-5
    np.testing.assert_allclose(x.numpy(), trigamma, rtol=1e-5)


def test_baddbmm_inplace_is_beta_self_plus_alpha_batch_products():
    rng = np.random.default_rng(0)
    s, a, b = rng.normal(size=(2, 2, 2)), rng.normal(size=(2, 2, 3)), rng.normal(size=(2, 3, 2))
    x = mg.tensor(s)
    x.baddbmm_(mg.tensor(a), mg.tensor(b), beta=0.5, alpha=2)
    np.testing.assert_allclose(x.numpy(), 0.5 * s + 2 * (a @ b), rtol=1e-13)


def test_shift_inplace_methods_and_operators_keep_the_tensor():
    x = mg.tensor([1, 2, 3], dtype=mg.int32)
    same = x
    x <<= 2
    assert x is same and x.dtype == mg.int32
    np.testing.assert_array_equal(x.numpy(), [4, 8, 12])
    x >>= 1
    assert x is same
    np.testing.assert_array_equal(x.numpy(), [2, 4, 6])
    x.bitwise_left_shift_(mg.tensor([1, 0, 2], dtype=mg.int32))
    np.testing.assert_array_equal(x.numpy(), [4, 4, 24])
    x.bitwise_right_shift_(2)
    np.testing.assert_array_equal(x.numpy(), [1, 1, 6])


def test_shift_inplace_of_a_float_tensor_is_not_implemented():
    x = mg.tensor([1.0])
    with pytest.raises(NotImplementedError):
        x <<= 1


def test_mvlgamma_is_the_log_multivariate_gamma_and_refuses_p_below_one():
    x = np.array([1.6, 2.5, 4.0])
    want = sum(np.vectorize(math.lgamma)(x - j / 2) for j in range(3)) + 1.5 * math.log(math.pi)
    np.testing.assert_allclose(mg.tensor(x).mvlgamma(3).numpy(), want, rtol=1e-14)
    y = mg.tensor(x)
    assert y.mvlgamma_(3) is y
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-14)
    assert mg.mvlgamma(mg.tensor([2, 3]), 1).dtype == mg.float32
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        mg.tensor(x).mvlgamma(0)
