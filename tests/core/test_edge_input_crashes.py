"""Inputs that used to crash, now answered as PyTorch answers them: i0's gradient at NaN,
nan_to_num on bfloat16, a tensordot whose contraction has size 0, integer powers with negative
integer exponent tensors, and an in-place op whose result does not fit self's integer dtype."""

import math

import numpy as np
import pytest

import minigenesis as mg

NAN = float("nan")


@pytest.mark.parametrize("fn", [mg.i0, mg.special.i0, mg.special.i1])
def test_bessel_gradients_at_nan_are_nan_and_elsewhere_unchanged(fn):
    x = mg.tensor([NAN, 1.0, 0.0], dtype=mg.float64, requires_grad=True)
    fn(x).sum().backward()
    g = x.grad.numpy()
    assert math.isnan(g[0])
    h = 1e-6  # central differences of the function at the finite points
    for i in (1, 2):
        up, down = (
            fn(mg.tensor([x.detach().numpy()[i] + s], dtype=mg.float64)).item() for s in (h, -h)
        )
        np.testing.assert_allclose(g[i], (up - down) / (2 * h), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("dtype", [mg.bfloat16, mg.float16, mg.float32])
def test_nan_to_num_replaces_nan_and_infinities_with_the_dtypes_limits(dtype):
    x = mg.tensor([NAN, math.inf, -math.inf, 1.5], dtype=dtype)
    top = mg.finfo(dtype).max
    np.testing.assert_array_equal(mg.nan_to_num(x).float().numpy(), np.float32([0, top, -top, 1.5]))
    np.testing.assert_array_equal(x.nan_to_num(nan=2.0, posinf=3.0).float().numpy()[:2], [2, 3])
    assert mg.nan_to_num(x).dtype is dtype


@pytest.mark.parametrize(
    "sa, sb, dims, out",
    [((2, 0), (0, 3), 1, (2, 3)), ((2, 0, 4), (0, 4, 3), 2, (2, 3)), ((0, 5), (5, 0), 1, (0, 0))],
)
def test_tensordot_over_an_empty_contraction_is_zeros(sa, sb, dims, out):
    a = mg.ones(*sa, requires_grad=True)
    b = mg.ones(*sb)
    y = mg.tensordot(a, b, dims)
    np.testing.assert_array_equal(y.detach().numpy(), np.tensordot(np.ones(sa), np.ones(sb), dims))
    assert tuple(y.shape) == out
    y.sum().backward()
    assert tuple(a.grad.shape) == sa


def _int_power(x: int, n: int) -> int:
    """The closed form PyTorch's integer pow follows: 1/x^|n| truncated toward zero."""
    if n >= 0:
        return x**n
    return 1 if x == 1 else (1 if n % 2 == 0 else -1) if x == -1 else 0


def test_integer_powers_with_negative_exponent_tensors_truncate_as_pytorch():
    base, exp = [3, 2, -2, 1, -1, -1, 0, 5], [3, 2, -2, -3, -3, -2, -1, 0]
    expected = [_int_power(x, n) for x, n in zip(base, exp, strict=True)]
    assert expected[:3] == [27, 4, 0]
    out = mg.tensor(base) ** mg.tensor(exp)
    assert out.dtype is mg.int64 and out.tolist() == expected
    assert mg.pow(mg.tensor(base), mg.tensor(exp)).tolist() == expected
    assert (2 ** mg.tensor([3, -1, -2])).tolist() == [8, 0, 0]
    assert ((-1) ** mg.tensor([3, 2, -2, -1])).tolist() == [-1, 1, 1, -1]
    x = mg.tensor([3, 1, -1], dtype=mg.int8)
    x.pow_(mg.tensor([-1, -4, -3], dtype=mg.int8))
    assert x.tolist() == [0, 1, -1] and x.dtype is mg.int8


def test_a_negative_python_int_exponent_of_an_integer_tensor_is_refused_as_pytorch():
    for power in (lambda t: t**-1, lambda t: t.pow(-2), lambda t: t.pow_(-1)):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
            power(mg.tensor([3, 2]))


@pytest.mark.parametrize(
    "update",
    [
        lambda y, x: y.addcmul_(x, x, value=0.5),
        lambda y, x: y.addcmul_(x, x),
        lambda y, x: y.addcdiv_(x, x),
        lambda y, x: y.add_(x),
        lambda y, x: y.mul_(0.5),
        lambda y, x: y.sub_(x, alpha=2),
        lambda y, x: y.__iadd__(x),
        lambda y, x: y.clamp_(0.5, 1.5),
    ],
)
def test_in_place_float_results_into_an_integer_tensor_raise_pytorchs_error(update):
    y = mg.tensor([1, 2])
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        update(y, x)
    assert y.tolist() == [1, 2]  # untouched
