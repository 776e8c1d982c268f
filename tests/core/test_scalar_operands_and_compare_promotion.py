"""A Python number (or a 0-d tensor) with a tensor: how the number is rounded or cast before the
op, and the dtype a comparison or a bitwise op computes in. The oracles are NumPy float32 /
float64 arithmetic and modular integer arithmetic written out here."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

X = np.random.default_rng(0).standard_normal(4000) * 3
LOW = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _low(name: str) -> tuple:
    t = mg.tensor(X).to(getattr(mg, name))
    return t, t.to(mg.float64).numpy()


def _round(values: np.ndarray, name: str) -> np.ndarray:
    with np.errstate(over="ignore"):
        return values.astype(LOW[name]).astype(np.float64)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("s", [0.1, 0.3, 1.1, 1e-6, 70000.0])
def test_half_times_and_divided_by_a_number_round_once_from_float32(name, s):
    """x * s, s * x, x / s: the number in float32 (not rounded to the 2-byte type), the
    product or quotient in float32, then rounded to the tensor's dtype (NumPy float32 here).
    s / x is (1 / x) * s, as PyTorch's Tensor.__rdiv__: the reciprocal rounded to the 2-byte
    type first."""
    t, a = _low(name)
    a32, s32 = a.astype(np.float32), np.float32(s)
    with np.errstate(all="ignore"):
        reciprocal = _round(1 / a32, name).astype(np.float32)
        cases = {
            "x*s": (t * s, a32 * s32),
            "s*x": (s * t, s32 * a32),
            "x/s": (t / s, a32 / s32),
            "s/x": (s / t, reciprocal * s32),
            "x*0d": (t * mg.tensor(s, dtype=mg.float64), a32 * s32),
            "x/0d": (t / mg.tensor(s, dtype=mg.float64), a32 / s32),
        }
        for label, (got, want) in cases.items():
            assert got.dtype == getattr(mg, name), label
            np.testing.assert_array_equal(got.to(mg.float64).numpy(), _round(want, name), label)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("s", [0.1, 0.3, 1.1, 70000])
def test_half_plus_a_number_rounds_the_number_to_the_tensor_dtype_first(name, s):
    """+ and - round the number to the tensor's dtype, then the sum once (two values of a
    2-byte type add exactly in float64)."""
    t, a = _low(name)
    with np.errstate(all="ignore"):
        s_low = float(np.asarray(float(s)).astype(LOW[name]))
        np.testing.assert_array_equal((t + s).to(mg.float64).numpy(), _round(a + s_low, name))
        np.testing.assert_array_equal((s - t).to(mg.float64).numpy(), _round(s_low - a, name))


def test_bfloat16_power_is_rounded_once():
    t, a = _low("bfloat16")
    np.testing.assert_array_equal((t**3).to(mg.float64).numpy(), _round(a**3, "bfloat16"))
    got = (t.abs() ** 1.1).to(mg.float64).numpy()
    want = _round(np.abs(a) ** float(ml_dtypes.bfloat16(1.1)), "bfloat16")
    assert np.mean(got == want) > 0.999  # float32 powf against float64: a rare last-bit tie


def test_an_integer_tensor_with_an_out_of_range_number_wraps_as_a_c_cast():
    u = mg.tensor([5, 200, 0], dtype=mg.uint8)
    i = mg.tensor([5, -100, 127], dtype=mg.int8)
    base_u, base_i = np.array([5, 200, 0]), np.array([5, -100, 127])
    np.testing.assert_array_equal((u + -2).numpy(), (base_u - 2) % 256)
    np.testing.assert_array_equal((u * -2).numpy(), (base_u * -2) % 256)
    np.testing.assert_array_equal((u // -2).numpy(), base_u // 254)
    np.testing.assert_array_equal((i + 200).numpy(), ((base_i + 200 + 128) % 256) - 128)
    assert (u + -2).dtype == mg.uint8 and (i + 200).dtype == mg.int8
    np.testing.assert_array_equal((u < -2).numpy(), base_u < 254)  # -2 as a uint8 is 254
    np.testing.assert_array_equal((i < 200).numpy(), base_i < -56)  # 200 as an int8 is -56
    v = u.clone()
    v += -2
    np.testing.assert_array_equal(v.numpy(), (base_u - 2) % 256)


def test_comparisons_compute_in_the_promoted_dtype():
    h = mg.tensor([0.2998046875, 0.300048828125], dtype=mg.float16)
    # a 0-d float64 tensor cannot widen a float16 tensor: 0.3 compares as float16(0.3)
    assert (h == mg.tensor(0.3, dtype=mg.float64)).tolist() == [False, True]
    assert (h >= mg.tensor(0.3, dtype=mg.float64)).tolist() == [False, True]
    # int with a Python float: both in the default float32 (16777217 rounds to 16777216)
    assert (mg.tensor([16777217]) == 16777216.0).tolist() == [True]
    assert (mg.tensor([16777217], dtype=mg.int32) == mg.tensor(16777216.0)).tolist() == [True]
    # two dimensioned tensors: the wider dtype (float64 keeps 16777217 apart)
    wide = mg.tensor([16777216.0], dtype=mg.float64)
    assert (mg.tensor([16777217], dtype=mg.int32) == wide).tolist() == [False]


def test_bitwise_ops_take_the_promoted_dtype():
    u = mg.tensor([5, 200], dtype=mg.uint8)
    got = u & mg.tensor(-2, dtype=mg.int8)  # a 0-d int8 cannot widen a uint8 tensor
    assert got.dtype == mg.uint8 and got.tolist() == [5 & 254, 200 & 254]
    got = u | mg.tensor([1, 2], dtype=mg.int8)  # two dimensioned: int16
    assert got.dtype == mg.int16 and got.tolist() == [5, 202]
    b = mg.tensor([True, False])
    assert (b & 3).dtype == mg.int64 and (b & 3).tolist() == [1, 0]


@pytest.mark.parametrize(
    "method,fn",
    [
        ("lt_", np.less),
        ("le_", np.less_equal),
        ("gt_", np.greater),
        ("ge_", np.greater_equal),
        ("eq_", np.equal),
        ("ne_", np.not_equal),
    ],
)
def test_in_place_comparisons_write_ones_and_zeros_in_self_dtype(method, fn):
    a = np.array([[1.5, -2.0, 3.0], [0.0, 2.0, -1.0]])
    other = np.array([1.5, 0.0, 4.0])
    x = mg.tensor(a, dtype=mg.float32)
    out = getattr(x, method)(mg.tensor(other))
    assert out is x and x.dtype == mg.float32
    np.testing.assert_array_equal(x.numpy(), fn(a, other).astype(np.float32))
    n = mg.tensor([1, 5, 9])
    getattr(n, method)(5)
    assert n.dtype == mg.int64 and n.tolist() == fn(np.array([1, 5, 9]), 5).astype(int).tolist()


def test_an_int_written_into_an_integer_tensor_is_converted_with_pytorchs_check():
    """x[i] = v, fill_ and masked_fill: an int the dtype holds is written; an unsigned dtype
    takes a negative int down to minus its maximum, wrapped; anything else is refused."""
    u = mg.zeros(4, dtype=mg.uint8)
    u[1] = -1
    u[2] = 255
    assert u.tolist() == [0, 255, 255, 0]
    assert mg.zeros(2, dtype=mg.uint8).fill_(-2).tolist() == [254, 254]
    mask = mg.tensor([True, False])
    assert mg.zeros(2, dtype=mg.uint8).masked_fill(mask, -3).tolist() == [253, 0]
    i = mg.zeros(3, dtype=mg.int8)
    i[0], i[1] = -128, 127
    assert i.tolist() == [-128, 127, 0]
    for bad in (
        lambda: i.__setitem__(2, 200),
        lambda: i.fill_(-129),
        lambda: mg.zeros(2, dtype=mg.uint8).fill_(-256),
        lambda: mg.zeros(2, dtype=mg.uint8).__setitem__(0, 256),
        lambda: i.masked_fill(mg.tensor([True, False, False]), 1000),
    ):
        with pytest.raises(RuntimeError, match="without overflow"):
            bad()
    f = mg.zeros(2, dtype=mg.float16)
    with np.errstate(over="ignore"):
        f[0] = 70000  # floats: no check (inf), as PyTorch
    assert f.tolist()[0] == float("inf")


def test_shift_and_floor_divide_functions_take_a_number_as_first_operand():
    counts = mg.tensor([1, 2, 3], dtype=mg.int8)
    left = mg.bitwise_left_shift(5, counts)
    assert left.dtype == mg.int8 and left.tolist() == [5 << 1, 5 << 2, 5 << 3]
    right = mg.bitwise_right_shift(100, counts)
    assert right.dtype == mg.int8 and right.tolist() == [100 >> 1, 100 >> 2, 100 >> 3]
    halves = mg.tensor([2.0, 4.0], dtype=mg.float16)
    quotient = mg.floor_divide(9, halves)
    assert quotient.dtype == mg.float16 and quotient.tolist() == [4.0, 2.0]
    out = mg.empty(3, dtype=mg.int64)
    assert mg.bitwise_left_shift(1, counts, out=out) is out and out.tolist() == [2, 4, 8]
    with pytest.raises(NotImplementedError):
        mg.bitwise_left_shift(5.0, counts)  # a float shifts nothing, as in PyTorch


def test_a_python_float_first_keeps_its_double_precision_with_a_float64_tensor():
    # mg.div(7.3, t) is 7.3 / t: the number is not rounded to float32 on the way
    b = np.random.default_rng(1).uniform(0.5, 3.0, 16)
    t = mg.tensor(b)
    expected = {
        "add": 7.3 + b,
        "sub": 7.3 - b,
        "mul": 7.3 * b,
        "div": 7.3 / b,
        "true_divide": 7.3 / b,
        "float_power": 7.3**b,
    }
    for name, want in expected.items():
        got = getattr(mg, name)(7.3, t)
        assert got.dtype == mg.float64, name
        np.testing.assert_array_max_ulp(got.numpy(), want, maxulp=1)
    floor = mg.div(7.3, t, rounding_mode="floor").numpy()
    np.testing.assert_array_equal(floor, np.floor(7.3 / b))
