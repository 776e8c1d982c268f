"""logical_* and bitwise_* (bool results, integer/bool only), mg.all / mg.any, signbit, copysign,
fmax/fmin, frexp/ldexp, heaviside, deg2rad/rad2deg, float_power, is_floating_point/is_complex,
short: values and dtypes against NumPy, gradients where PyTorch has them, clear errors."""

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(3)
I = RNG.integers(-9, 10, size=(3, 4))
J = RNG.integers(-9, 10, size=(3, 4))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_binary_ops_give_bool(name):
    got = getattr(mg, name)(mg.tensor(I), mg.tensor(J.astype(np.float32)))
    assert got.dtype is mg.bool
    np.testing.assert_array_equal(got.numpy(), getattr(np, name)(I, J))
    np.testing.assert_array_equal(getattr(mg.tensor(I), name)(0).numpy(), getattr(np, name)(I, 0))


def test_logical_not_and_all_any_with_dims():
    np.testing.assert_array_equal(mg.logical_not(mg.tensor(I)).numpy(), I == 0)
    np.testing.assert_array_equal(
        mg.all(mg.tensor(I), 1, keepdim=True).numpy(), I.all(1, keepdims=True)
    )
    np.testing.assert_array_equal(mg.any(mg.tensor(I == 0), dim=-2).numpy(), (I == 0).any(0))


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_ops_match_numpy_and_refuse_floats(name):
    got = getattr(mg, name)(mg.tensor(I), mg.tensor(J))
    assert got.dtype is mg.int64
    np.testing.assert_array_equal(got.numpy(), getattr(np, name)(I, J))
    with pytest.raises(NotImplementedError, match="bool and integer"):
        getattr(mg, name)(mg.tensor([1.0]), mg.tensor([2.0]))


def test_bitwise_not_of_int_and_bool():
    np.testing.assert_array_equal(mg.bitwise_not(mg.tensor(I)).numpy(), ~I)
    np.testing.assert_array_equal(mg.tensor([True, False]).bitwise_not().numpy(), [False, True])


def test_signbit_sees_negative_zero_and_copysign_follows_it():
    x = mg.tensor([-1.0, -0.0, 0.0, 2.0])
    np.testing.assert_array_equal(mg.signbit(x).numpy(), [True, True, False, False])
    got = mg.copysign(mg.tensor([1.0, 2.0, 3.0, -4.0]), x)
    np.testing.assert_array_equal(got.numpy(), np.copysign([1.0, 2.0, 3.0, -4.0], x.numpy()))
    assert mg.copysign(mg.tensor([1, 2]), -1).dtype is mg.float32


def test_copysign_gradient_is_sign_times_sign_and_zero_at_zero():
    a = mg.tensor([2.0, -3.0, 0.0], dtype=mg.float64, requires_grad=True)
    mg.copysign(a, mg.tensor([-1.0, -1.0, -1.0], dtype=mg.float64)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [-1.0, 1.0, 0.0])


def test_fmax_fmin_prefer_numbers_to_nan():
    a = np.array([1.0, np.nan, np.nan, 4.0])
    b = np.array([2.0, 3.0, np.nan, np.nan])
    np.testing.assert_array_equal(mg.fmax(mg.tensor(a), mg.tensor(b)).numpy(), np.fmax(a, b))
    np.testing.assert_array_equal(mg.fmin(mg.tensor(a), mg.tensor(b)).numpy(), np.fmin(a, b))


def test_frexp_and_ldexp_round_trip_with_gradients():
    x = np.array([0.0, 1.0, -3.5, 1000.0, 1e-3])
    m, e = mg.frexp(mg.tensor(x))
    wm, we = np.frexp(x)
    np.testing.assert_array_equal(m.numpy(), wm)
    np.testing.assert_array_equal(e.numpy(), we)
    assert e.dtype is mg.int32
    np.testing.assert_array_equal(mg.ldexp(m, e).numpy(), x)
    t = mg.tensor(x, requires_grad=True)
    t.frexp().mantissa.sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), 2.0**-we)
    a, b = (mg.tensor(RNG.normal(size=3), requires_grad=True) for _ in range(2))
    gradcheck(mg.ldexp, (a, b))


def test_heaviside_and_its_dtype_check():
    x = mg.tensor([-1.5, 0.0, 2.0])
    np.testing.assert_array_equal(
        mg.heaviside(x, mg.tensor([0.5])).numpy(), np.heaviside(x.numpy(), 0.5)
    )
    with pytest.raises(RuntimeError, match="values"):
        mg.heaviside(x, mg.tensor([1]))


def test_degrees_radians_and_float_power():
    np.testing.assert_allclose(
        mg.deg2rad(mg.tensor([180, 90])).numpy(), [math.pi, math.pi / 2], rtol=1e-7
    )
    assert mg.deg2rad(mg.tensor([180])).dtype is mg.float32
    np.testing.assert_allclose(mg.tensor([math.pi]).rad2deg().numpy(), [180.0], rtol=1e-6)
    fp = mg.float_power(mg.tensor([2, 3]), 0.5)
    assert fp.dtype is mg.float64
    np.testing.assert_allclose(fp.numpy(), np.sqrt([2.0, 3.0]))


def test_dtype_questions_and_short():
    assert mg.is_floating_point(mg.tensor([1.0])) and not mg.is_floating_point(mg.tensor([1]))
    assert not mg.is_complex(mg.tensor([1.0]))
    assert mg.short is mg.int16
    assert mg.tensor([1.7, -2.2]).short().dtype is mg.int16


def test_seed_reseeds_every_generator_and_reports_it():
    s = mg.seed()
    assert mg.initial_seed() == s and 0 <= s < 2**63
    a = mg.rand(3)
    mg.manual_seed(s)
    np.testing.assert_array_equal(mg.rand(3).numpy(), a.numpy())
    assert mg.seed() != s
