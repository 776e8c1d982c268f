"""div(rounding_mode="floor" / "trunc"): the method and in-place forms take the mode, the values
follow PyTorch's rule at infinities, and a float quotient requiring grad has gradient 0 (the
quotient is piecewise constant), as PyTorch's DivBackward."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

X = np.array([7.5, -7.5, 3.0, -0.5, np.inf, -np.inf, np.nan])
Y = np.array([2.0, 2.0, -2.0, 4.0, 1.0, 3.0, 1.0])


def test_trunc_is_the_truncated_quotient_and_keeps_infinities():
    got = mg.div(
        mg.tensor(X, dtype=mg.float64), mg.tensor(Y, dtype=mg.float64), rounding_mode="trunc"
    )
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(got.numpy(), np.trunc(X / Y))  # trunc(inf / 1) is inf


def test_floor_of_an_infinity_is_nan_as_in_pytorch():
    got = mg.div(mg.tensor(X[:6]), mg.tensor(Y[:6]), rounding_mode="floor").numpy()
    np.testing.assert_array_equal(got[:4], np.floor(X[:4] / Y[:4]))
    assert np.isnan(got[4:]).all()  # floor(inf / 1): PyTorch's fmod-based rule gives NaN


def test_the_method_and_inplace_forms_take_rounding_mode():
    for mode, fn in (("floor", np.floor), ("trunc", np.trunc)):
        x, y = mg.tensor(X[:4]), mg.tensor(Y[:4])
        np.testing.assert_array_equal(x.div(y, rounding_mode=mode).numpy(), fn(X[:4] / Y[:4]))
        np.testing.assert_array_equal(x.divide(y, rounding_mode=mode).numpy(), fn(X[:4] / Y[:4]))
        z = x.clone()
        assert z.div_(y, rounding_mode=mode) is z
        np.testing.assert_array_equal(z.numpy(), fn(X[:4] / Y[:4]).astype(np.float32))


def test_integer_trunc_division_rounds_towards_zero():
    a, b = np.array([7, -7, 7, -7, 6]), np.array([2, 2, -2, -2, 3])
    got = mg.tensor(a).div(mg.tensor(b), rounding_mode="trunc")
    assert got.dtype is mg.int64
    np.testing.assert_array_equal(got.numpy(), np.trunc(a / b).astype(np.int64))
    with pytest.raises(ZeroDivisionError):
        mg.tensor(a).div(0, rounding_mode="trunc")


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_a_rounded_float_quotient_requiring_grad_has_zero_gradient(mode):
    x = mg.tensor(X[:4], dtype=mg.float64, requires_grad=True)
    y = mg.tensor(Y[:4], dtype=mg.float64, requires_grad=True)
    q = mg.div(x, y, rounding_mode=mode)
    assert q.requires_grad
    gx, gy = mg.autograd.grad(q.sum(), [x, y])
    np.testing.assert_array_equal(gx.numpy(), np.zeros(4))
    np.testing.assert_array_equal(gy.numpy(), np.zeros(4))


def test_rounded_division_of_two_bools_is_refused():
    b = mg.tensor([True, False])
    with pytest.raises(NotImplementedError):
        b.div(b, rounding_mode="floor")
