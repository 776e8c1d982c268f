"""Integer and mixed-dtype edge values: results that must not wrap, overflow or round on the way
(float_power of a number base, trapezoid of integer samples, ldexp's exact scaling, float64 to
uint8), and the exponent checks of an integer power. Oracles: Python's exact integers and floats,
NumPy's float64 and ``np.ldexp``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg


def test_float_power_keeps_a_number_base_in_float64():
    # 1e40 is inf in float32: the base must not pass through the default dtype
    got = mg.float_power(1e40, mg.tensor([1, -2]))
    assert got.dtype == mg.float64
    np.testing.assert_allclose(got.numpy(), [1e40, 1e-80], rtol=1e-15)
    third = mg.float_power(0.1, mg.tensor([1]))  # 0.1 rounded to float32 would be 0.10000000149
    assert third.item() == 0.1


def test_float_power_of_two_numbers_is_a_type_error():
    with pytest.raises(TypeError):
        mg.float_power(2.0, 3.0)


@pytest.mark.parametrize(
    ("dtype", "exponent"),
    [(mg.uint8, 256), (mg.int8, 128), (mg.int16, 40000), (mg.int32, 2**31), (mg.int64, 2**63)],
)
def test_integer_power_refuses_an_exponent_its_dtype_cannot_hold(dtype, exponent):
    # the exponent would wrap in the tensor's dtype (uint8: 300 -> 44) and give a wrong power
    with pytest.raises(RuntimeError, match="without overflow"):
        mg.tensor([2, 3], dtype=dtype) ** exponent
    with pytest.raises(RuntimeError, match="without overflow"):
        mg.pow(mg.tensor([2, 3], dtype=dtype), exponent)


def test_integer_power_at_the_largest_exponent_wraps_like_exact_arithmetic():
    got = mg.tensor([2, 3], dtype=mg.uint8) ** 255
    assert got.tolist() == [pow(2, 255, 256), pow(3, 255, 256)]


def test_trapezoid_of_integer_samples_does_not_wrap():
    y = mg.tensor([255, 255, 200], dtype=mg.uint8)
    exact = (255 + 255) / 2 + (255 + 200) / 2
    assert mg.trapezoid(y).item() == exact
    assert mg.trapz(y, dx=2).item() == 2 * exact
    x = mg.tensor([0, 1, 3], dtype=mg.uint8)
    assert mg.trapezoid(y, x).item() == (255 + 255) / 2 + 2 * (255 + 200) / 2
    assert mg.cumulative_trapezoid(y).tolist() == [255.0, exact]
    small = mg.tensor([-128, 127, -128], dtype=mg.int8)
    assert mg.trapezoid(small).item() == -1.0


def test_trapezoid_of_integers_returns_the_float_dtype_of_its_operands():
    ints = mg.tensor([1, 2])
    assert mg.trapezoid(ints).dtype == mg.float32
    assert mg.trapezoid(ints, mg.tensor([0, 1])).dtype == mg.float32
    assert mg.trapezoid(ints, mg.tensor([0.0, 1.0], dtype=mg.float64)).dtype == mg.float64


def test_trapezoid_refuses_bool_samples():
    with pytest.raises(RuntimeError, match="bool"):
        mg.trapezoid(mg.tensor([True, False]))


def test_ldexp_scales_exactly_where_two_to_the_e_overflows():
    x = np.array([0.0, -0.0, 1.0, 3.0, 1e30, -2.5, np.inf, 1.0], dtype=np.float32)
    e = np.array([200, 128, -149, 127, -160, -(2**63), -200, 2**40], dtype=np.int64)
    with np.errstate(over="ignore"):  # float64's ldexp, rounded once to float32 (inf above)
        want = np.ldexp(x.astype(np.float64), np.clip(e, -5000, 5000).astype(np.int32))
        want = want.astype(np.float32)
    got = mg.ldexp(mg.tensor(x), mg.tensor(e))
    assert got.dtype == mg.float32
    np.testing.assert_array_equal(got.numpy(), want)
    assert math.copysign(1, got[1].item()) == -1  # -0 * 2^128 keeps its sign
    tiny = 2.0**-24  # float16's smallest subnormal; 2^100 is inf in float16
    half = mg.ldexp(mg.tensor([0.0, tiny], dtype=mg.float16), mg.tensor([100, 20], dtype=mg.int8))
    np.testing.assert_array_equal(half.numpy(), np.float16([0.0, 2.0**-4]))


def test_ldexp_gradient_is_two_to_the_e_summed_over_broadcasting():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    e = mg.tensor([[3], [-1], [200]])
    y = mg.ldexp(x, e)
    w = mg.tensor([[1.0], [1.0], [0.0]])
    (g,) = mg.autograd.grad((y * w).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [8.5, 8.5])


def test_float64_to_uint8_keeps_the_low_byte_of_the_integer():
    values = [-(2.0**31) - 1, 2.0**32 + 3, 1e12 + 7, -1.5, 300.7]
    got = mg.tensor(values, dtype=mg.float64).to(mg.uint8).tolist()
    assert got == [int(v) % 256 for v in values]


def test_isclose_of_integers_beyond_two_to_the_53_is_exact():
    big = [2**53, 2**62 + 1, -(2**60), 7]
    a, b = mg.tensor(big), mg.tensor([v + 1 for v in big])
    assert mg.isclose(a, b, rtol=0, atol=0).tolist() == [False] * 4
    assert mg.isclose(a, b, rtol=0, atol=0.5).tolist() == [False] * 4
    assert mg.isclose(a, b, rtol=0, atol=1.0).tolist() == [True] * 4
    assert not mg.allclose(a, b, rtol=0, atol=0.9)
    # the tolerance atol + rtol |b|, against Python's exact integers
    c = mg.tensor([v + 3 for v in big])
    want = [abs(x - (x + 3)) <= 2 + 1e-5 * abs(x + 3) for x in big]
    assert mg.isclose(a, c, rtol=1e-5, atol=2).tolist() == want


def test_isclose_of_small_unsigned_integers_does_not_wrap_the_difference():
    a = mg.tensor([5, 10, 0, 255], dtype=mg.uint8)
    b = mg.tensor([10, 5, 255, 0], dtype=mg.uint8)
    assert mg.isclose(a, b, rtol=0, atol=6).tolist() == [True, True, False, False]


def test_assert_close_of_integers_beyond_two_to_the_53_is_exact():
    a = mg.tensor([2**53, 3])
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 2[\s\S]*index \(0,\)"):
        mg.testing.assert_close(a, a + mg.tensor([1, 0]))
    mg.testing.assert_close(a, a + mg.tensor([1, 0]), rtol=0, atol=1)


def test_shrink_thresholds_given_as_unsigned_zero_d_tensors_are_numbers():
    # -lambd of a uint8 7 would be 249: nothing would lie in the dead zone
    x = mg.tensor([0.25, 1.0, -1.0, 2.0, -9.0], dtype=mg.float16)
    seven = mg.tensor(7, dtype=mg.uint8)
    want = [0.0, 0.0, 0.0, 0.0, -9.0]
    assert mg.nn.functional.hardshrink(x, seven).tolist() == want
    assert x.hardshrink(seven).tolist() == want
    one = mg.tensor(1, dtype=mg.uint8)
    assert mg.nn.functional.softshrink(x, one).tolist() == [0.0, 0.0, 0.0, 1.0, -8.0]


def test_block_diag_promotes_a_zero_d_tensor_only_by_its_category():
    u = mg.tensor([1, 2], dtype=mg.uint8)
    out = mg.block_diag(u, mg.tensor(-4, dtype=mg.int8))  # same category: u's dtype wins
    assert out.dtype == mg.uint8
    assert out.tolist() == [[1, 2, 0], [0, 0, int(np.int8(-4).astype(np.uint8))]]
    assert mg.block_diag(mg.tensor(1.5), u).dtype == mg.float32  # a higher category counts
    assert mg.block_diag(u, mg.tensor([-4], dtype=mg.int8)).dtype == mg.int16
