"""Tensor ops at their edges, each against a NumPy / float64 closed form: round with decimals
in every float dtype, integer promotion with alpha and with 0-d operands, 0-d and empty tensors
in the index ops, integer arange and logspace from float arguments."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def _as_float64(t: mg.Tensor) -> np.ndarray:
    return t.to(mg.float64).numpy()


def _round_reference(x: np.ndarray, decimals: int) -> np.ndarray:
    """round-half-even of x to ``decimals`` places, computed in float64 on the stored values."""
    scale = 10.0 ** abs(decimals)
    return np.round(x * scale) / scale if decimals > 0 else np.round(x / scale) * scale


@pytest.mark.parametrize(
    ("dtype", "values", "decimals"),
    [
        ("float32", [-535.059, 960.323, 1234.5678, -0.0049, 35.0], -3),
        ("float32", [-535.059, 949.5, 1234.5678, 25.0, -14.9], -2),
        ("float32", [-535.059, 945.5, 1234.5678, 25.0, -14.9], -1),
        ("float64", [-535.059, 960.323, 1234.5678, -0.0049, 35.0], -3),
        ("float16", [3.05, 2.675, -0.15, 896.5, -423.75], 1),
        ("float16", [519.5, 986.5, -657.5, 0.125, 1.0], 2),
        ("float16", [949.5, 925.5, -805.5, 626.5], -1),
        ("bfloat16", [792.0, -394.0, 912.0, 1.23, 0.497], 1),
        ("bfloat16", [792.0, -394.0, 748.0, 948.0], -1),
    ],
)
def test_round_with_decimals_is_the_stored_value_rounded_in_float64(dtype, values, decimals):
    """x * 10^d must neither overflow a 2-byte float nor be rounded to its 8 or 11 bits before
    it is rounded to an integer, and x * 0.001 / 0.001 is not x's thousands (0.001 is inexact)."""
    x = mg.tensor(values, dtype=getattr(mg, dtype))
    stored = _as_float64(x)
    want = mg.tensor(_round_reference(stored, decimals)).to(x.dtype)
    got = mg.round(x, decimals=decimals)
    assert got.dtype is x.dtype
    np.testing.assert_array_equal(_as_float64(got), _as_float64(want))


@pytest.mark.parametrize(
    ("self_dtype", "other_dtype", "want_dtype"),
    [("int16", "bool", "int16"), ("int8", "int16", "int16"), ("uint8", "bool", "uint8")],
)
def test_add_and_sub_with_alpha_keep_the_promoted_integer_dtype(
    self_dtype, other_dtype, want_dtype
):
    """self + alpha * other computes in result_type(self, other): alpha, a Python int, does not
    widen a bool or int8 other to int64 first."""
    a, b = np.array([1, 2, 3]), np.array([1, 0, 1])
    x, y = mg.tensor(a, dtype=getattr(mg, self_dtype)), mg.tensor(b, dtype=getattr(mg, other_dtype))
    for op, sign in ((mg.add, 1), (mg.sub, -1)):
        if other_dtype == "bool" and sign < 0:
            continue  # subtracting a bool tensor is refused, as in PyTorch
        got = op(x, y, alpha=3)
        assert got.dtype is getattr(mg, want_dtype)
        np.testing.assert_array_equal(got.numpy(), (a + sign * 3 * b).astype(want_dtype))
    inplace = x.clone().add_(y, alpha=3)
    assert inplace.dtype is x.dtype


def test_add_with_alpha_of_two_bools_is_a_logical_or_with_alpha_as_a_bool():
    a, b = np.array([True, False, False]), np.array([False, True, False])
    for other in (mg.tensor(b), True):
        for alpha, scaled in ((3, b if other is not True else True), (0, False)):
            got = mg.add(mg.tensor(a), other, alpha=alpha)
            assert got.dtype is mg.bool
            np.testing.assert_array_equal(got.numpy(), a | scaled)
    got = mg.tensor(a).index_add(0, mg.tensor([0, 1, 1]), mg.tensor([False, True, True]), alpha=2)
    assert got.dtype is mg.bool
    np.testing.assert_array_equal(got.numpy(), [True, True, False])


@pytest.mark.parametrize("shift", ["bitwise_left_shift", "bitwise_right_shift"])
def test_shift_by_a_zero_dim_tensor_keeps_the_dimensioned_operand_dtype(shift):
    """A 0-d tensor of the same category does not widen a tensor with dims (as in a + b)."""
    a = np.array([-6, -4, 5], dtype=np.int32)
    got = getattr(mg, shift)(mg.tensor(a), mg.tensor(2))  # the 0-d count is int64
    assert got.dtype is mg.int32
    want = np.left_shift(a, 2) if shift == "bitwise_left_shift" else np.right_shift(a, 2)
    np.testing.assert_array_equal(got.numpy(), want)
    got = getattr(mg, shift)(mg.tensor(6), mg.tensor([1, 2], dtype=mg.int8))
    assert got.dtype is mg.int8


def test_index_select_of_a_zero_dim_tensor_is_its_one_element_zero_dim():
    x = mg.tensor(5.0, requires_grad=True)
    for index in (mg.tensor([0]), mg.tensor(0)):
        got = x.index_select(0, index)
        assert got.shape == () and got.item() == 5.0
    got.backward(mg.tensor(2.0))
    assert x.grad.item() == 2.0
    with pytest.raises(RuntimeError, match="only 1 value, got 2"):
        x.index_select(0, mg.tensor([0, 0]))


def test_masked_scatter_of_a_zero_dim_tensor_and_with_a_broadcast_mask():
    assert mg.tensor(2.0).masked_scatter(mg.tensor(True), mg.tensor([7.0, 8.0])).item() == 7.0
    assert mg.tensor(2.0).masked_scatter(mg.tensor(False), mg.tensor([7.0, 8.0])).item() == 2.0
    # the out-of-place form broadcasts self and mask together: (2,) with (2, 1) fills (2, 2)
    a, mask = np.array([2.0, 3.0]), np.array([[True], [False]])
    got = mg.tensor(a).masked_scatter(mg.tensor(mask), mg.tensor([7.0, 8.0, 9.0], dtype=mg.float64))
    want = np.broadcast_to(a, (2, 2)).copy()
    want[np.broadcast_to(mask, (2, 2))] = [7.0, 8.0]
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_scatter_reduce_of_bools_without_self_is_any_or_all_of_the_scattered_values(reduce):
    x, src = np.array([True, False, True]), np.array([False, True, False, False])
    index = np.array([0, 0, 1, 1])
    got = mg.tensor(x).scatter_reduce(
        0, mg.tensor(index), mg.tensor(src), reduce, include_self=False
    )
    fold = np.any if reduce == "amax" else np.all
    want = [fold(src[index == i]) if (index == i).any() else x[i] for i in range(3)]
    assert got.dtype is mg.bool
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize(
    ("args", "want_int64", "want_int32"),
    [
        ((-3, 3, 1.5), [-3, -2, -1, 0, 1, 2], [-3, -2, -1, 0]),  # step 1.5 truncates to 1
        ((2.5,), [0, 1], [0, 1, 2]),  # int64 truncates the end too
        ((0, 10, 2.9), [0, 2, 4, 6, 8], [0, 2, 4, 6]),
        ((-2.7, 3, 2), [-2, 0, 2], [-2, 0, 2]),
        ((1e-9,), [], [0]),
        ((1, 0, -0.3), None, [1, 1, 1, 1]),  # a step truncated to 0: refused in int64 only
    ],
)
def test_integer_arange_truncates_float_arguments_as_pytorch(args, want_int64, want_int32):
    """value i = trunc(start) + i * trunc(step); int64 counts from the truncated integers, the
    narrower types count ceil((end - start) / step) from the numbers given."""
    if want_int64 is None:
        with pytest.raises(ValueError, match="step must be nonzero"):
            mg.arange(*args, dtype=mg.int64)
    else:
        assert mg.arange(*args, dtype=mg.int64).tolist() == want_int64
    for dtype in (mg.int32, mg.int16, mg.int8):
        got = mg.arange(*args, dtype=dtype)
        assert got.dtype is dtype and got.tolist() == want_int32


def test_integer_logspace_truncates_start_and_end_first():
    got = mg.logspace(2, 3.5, 3, dtype=mg.int64)  # exponents 2, 2.5, 3
    np.testing.assert_array_equal(got.numpy(), np.trunc(10.0 ** np.array([2, 2.5, 3])))
    got = mg.logspace(0.5, 2.9, 3, base=2, dtype=mg.int32)  # exponents 0, 1, 2
    np.testing.assert_array_equal(got.numpy(), [1, 2, 4])
    assert mg.logspace(0.77, 5, 1, dtype=mg.int64).tolist() == [int(10**0.77)]


@pytest.mark.parametrize(
    "divide",
    [
        lambda x, y: x // y,
        lambda x, y: x % y,
        lambda x, y: mg.fmod(x, y),
        lambda x, y: x.div(y, rounding_mode="trunc"),
        lambda x, y: x.div(y, rounding_mode="floor"),
    ],
)
def test_integer_division_by_zero_is_a_runtime_error_unless_nothing_is_divided(divide):
    """PyTorch raises RuntimeError("ZeroDivisionError") (kept a ZeroDivisionError here too); an
    empty dividend broadcast with a zero divisor divides nothing and gives an empty result."""
    with pytest.raises(RuntimeError, match="by zero"):
        divide(mg.tensor([3, 4]), mg.tensor([1, 0]))
    with pytest.raises(ZeroDivisionError):
        divide(mg.tensor([3, 4]), 0)
    got = divide(mg.tensor([], dtype=mg.int16), mg.tensor([0], dtype=mg.int16))
    assert got.shape == (0,) and got.dtype is mg.int16


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "float32"])
def test_median_of_an_empty_tensor_is_nan_in_its_dtype(dtype):
    """NaN, which an integer dtype holds as NaN's cast (as PyTorch's kernel stores it)."""
    with np.errstate(invalid="ignore"):
        want = np.asarray(np.nan).astype(dtype)
    for fn in (mg.median, mg.nanmedian):
        got = fn(mg.empty(2, 0, dtype=getattr(mg, dtype)))
        assert got.shape == () and got.dtype is getattr(mg, dtype)
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize(
    "select",
    [
        lambda x: x.mode(1),
        lambda x: x.kthvalue(1, 1),
        lambda x: x.median(1),
        lambda x: x.nanmedian(-1),
    ],
)
def test_selecting_along_an_empty_dim_is_an_index_error(select):
    with pytest.raises(IndexError, match="size 0"):
        select(mg.empty(2, 0))


def test_diff_promotes_prepend_and_append_with_the_input_as_cat_does():
    """uint8 with an int8 prepend computes in int16 (was uint8, wrapping -5 to 251)."""
    a, before = np.array([1, 3, 5, 1]), np.array([6])
    got = mg.diff(mg.tensor(a, dtype=mg.uint8), prepend=mg.tensor(before, dtype=mg.int8))
    assert got.dtype is mg.int16
    np.testing.assert_array_equal(got.numpy(), np.diff(np.concatenate([before, a])))
    got = mg.diff(mg.tensor([1, 2, 4]), prepend=mg.tensor([0.5]), append=mg.tensor([True]))
    assert got.dtype is mg.float32
    np.testing.assert_array_equal(got.numpy(), np.diff([0.5, 1, 2, 4, 1]))


def test_aminmax_without_dim_keeps_every_dim_with_keepdim():
    a = np.array([[1.0, 5.0], [-2.0, 3.0]])
    low, high = mg.aminmax(mg.tensor(a), keepdim=True)
    assert low.shape == (1, 1) and high.shape == (1, 1)
    assert (low.item(), high.item()) == (a.min(), a.max())
    assert mg.aminmax(mg.tensor(a)).min.shape == ()


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: mg.tensor([1, 2]).std(), RuntimeError),
        (lambda: mg.tensor([1, 2]).var(0), RuntimeError),
        (lambda: mg.tensor([1, 2]).norm(), RuntimeError),
        (lambda: mg.tensor([True]).argmax(), RuntimeError),
        (lambda: mg.tensor([True]).relu(), RuntimeError),
        (lambda: mg.tensor([1, 2]).softmax(0), NotImplementedError),
        (lambda: mg.tensor([1, 2]).frac(), NotImplementedError),
        (lambda: mg.tensor([True]).abs(), NotImplementedError),
        (lambda: mg.tensor([True]).floor(), NotImplementedError),
        (lambda: mg.tensor([1]).round(decimals=1), NotImplementedError),
        (lambda: mg.tensor([True]) ** mg.tensor([True]), NotImplementedError),
        (lambda: mg.tensor([1.0]) & 1, NotImplementedError),
        (lambda: mg.tensor([1.0]) << 1, NotImplementedError),
        (lambda: mg.tensor([1.0]).bitwise_not(), NotImplementedError),
        (lambda: mg.heaviside(mg.tensor([1.0]), mg.tensor([1])), RuntimeError),
        (lambda: mg.ones(2, 3).sum((1, -1)), RuntimeError),
        (lambda: mg.ones(2, 3).std((0, 0)), RuntimeError),
        (lambda: mg.ones(2).clamp(), RuntimeError),
    ],
)
def test_ops_without_a_kernel_for_the_dtype_raise_pytorchs_runtime_errors(call, error):
    """PyTorch raises RuntimeError, or its subclass NotImplementedError where no kernel exists
    for the dtype (a TypeError here would escape ``except RuntimeError``); a dim named twice is
    a RuntimeError too (NumPy's own ValueError was let through)."""
    with pytest.raises(error):
        call()


def test_byte_and_char_convert_to_uint8_and_int8_wrapping_as_numpy():
    a = np.array([-1, 127, 128, 300, 0])
    x = mg.tensor(a)
    assert x.byte().dtype is mg.uint8 and x.char().dtype is mg.int8
    np.testing.assert_array_equal(x.byte().numpy(), a.astype(np.uint8))
    np.testing.assert_array_equal(x.char().numpy(), a.astype(np.int8))


@pytest.mark.parametrize(
    ("reduce", "numpy_reduce"),
    [
        (lambda x, out: mg.sum(x, 0, out=out), lambda a: a.sum(0)),
        (lambda x, out: mg.nansum(x, 0, out=out), lambda a: a.sum(0)),
        (lambda x, out: mg.prod(x, 0, out=out), lambda a: a.prod(0)),
        (lambda x, out: mg.cumsum(x, 0, out=out), lambda a: a.cumsum(0)),
        (lambda x, out: mg.cumprod(x, 0, out=out), lambda a: a.cumprod(0)),
    ],
)
@pytest.mark.parametrize("out_dtype", ["int8", "uint8", "int64"])
def test_sums_and_products_compute_in_the_dtype_of_out(reduce, numpy_reduce, out_dtype):
    """out= acts as dtype=: the values are cast to out's dtype first, then reduced there (a sum
    of floats into an int8 out sums the truncated values, with int8's wrap-around)."""
    a = np.array([1.7, 2.6, -1.2, 100.0, 90.0])
    out = mg.empty(0, dtype=getattr(mg, out_dtype))
    got = reduce(mg.tensor(a), out)
    assert got is out and out.dtype is getattr(mg, out_dtype)
    want = numpy_reduce(a.astype(np.int64).astype(out_dtype))  # (NumPy keeps the int dtype)
    np.testing.assert_array_equal(out.numpy(), want.astype(out_dtype))


@pytest.mark.parametrize(
    "write",
    [
        lambda x, v: x.fill_(v),
        lambda x, v: x.masked_fill(mg.tensor([True, False]), v),
        lambda x, v: x.index_fill(0, mg.tensor([0]), v),
        lambda x, v: x.__setitem__(0, v),
    ],
)
def test_a_float_written_into_an_integer_tensor_must_fit_its_range(write):
    """PyTorch refuses a Python float outside the dtype's range (or NaN) with RuntimeError, and
    truncates one inside it (NumPy's own OverflowError escaped before)."""
    for value in (-1.7, -0.5, 255.5, float("nan")):
        with pytest.raises(RuntimeError, match="cannot be converted to type uint8"):
            write(mg.zeros(2, dtype=mg.uint8), value)
    x = mg.zeros(2, dtype=mg.int16)
    got = write(x, -2.7)
    assert (got if got is not None else x)[0].item() == -2


def test_fill_with_a_zero_dim_tensor_casts_it_as_copy_does_and_masked_fill_checks_it():
    """fill_ casts a 0-d tensor value as a tensor copy (C casts: 300.5 -> uint8 44), masked_fill
    takes its number, checked as a Python number is."""
    for v in (300.5, -1.7, -1):
        got = mg.zeros(2, dtype=mg.uint8).fill_(mg.tensor(v))
        want = np.asarray(v).astype(np.int64).astype(np.uint8)  # truncate, then wrap mod 256
        np.testing.assert_array_equal(got.numpy(), [want, want])
    mask = mg.tensor([True, False])
    got = mg.zeros(2, dtype=mg.uint8).masked_fill(mask, mg.tensor(-1, dtype=mg.int8))
    np.testing.assert_array_equal(got.numpy(), [255, 0])
    with pytest.raises(RuntimeError, match="int8"):
        mg.zeros(2, dtype=mg.int8).masked_fill(mask, mg.tensor(200))


def test_clamp_converts_an_int_bound_to_the_integer_dtype_as_a_written_value():
    """uint8 takes -1 as 255 (so clamp(min=-1) is all 255 and clamp(-1, 2) all 2, min > max
    giving max), int8 refuses 300 (NumPy raised OverflowError before)."""
    a = np.array([0, 6, 200], dtype=np.uint8)
    x = mg.tensor(a)
    np.testing.assert_array_equal(x.clamp(min=-1).numpy(), np.maximum(a, 255))
    np.testing.assert_array_equal(x.clamp(-1, 2).numpy(), np.minimum(np.maximum(a, 255), 2))
    np.testing.assert_array_equal(x.clamp(max=-2).numpy(), np.minimum(a, 254))
    with pytest.raises(RuntimeError, match="int8"):
        mg.zeros(2, dtype=mg.int8).clamp(max=300)


def test_nextafter_promotes_its_operands_as_a_binary_op():
    got = mg.nextafter(mg.tensor([1.0], dtype=mg.float16), mg.tensor([2.0]))  # -> float32
    assert got.dtype is mg.float32
    np.testing.assert_array_equal(got.numpy(), np.nextafter(np.float32(1), np.float32(2)))
    got = mg.nextafter(mg.tensor([1.0], dtype=mg.float64), mg.tensor(0.0, dtype=mg.bfloat16))
    assert got.dtype is mg.float64 and got.item() == np.nextafter(1.0, 0.0)
    with pytest.raises(NotImplementedError):
        mg.nextafter(mg.tensor([1]), mg.tensor([2]))


def test_gcd_and_lcm_take_a_bool_operand_promoted_with_an_integer_one():
    a, b = np.array([4, 0, 6]), np.array([True, False, True])
    assert mg.gcd(mg.tensor(a), mg.tensor(b)).tolist() == np.gcd(a, b.astype(int)).tolist()
    got = mg.lcm(mg.tensor(b), mg.tensor(a, dtype=mg.uint8))
    assert got.dtype is mg.uint8 and got.tolist() == np.lcm(a, b.astype(int)).tolist()
    with pytest.raises(NotImplementedError):
        mg.gcd(mg.tensor([True]), mg.tensor([False]))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounded_division_of_2_byte_floats_rounds_the_exact_quotient(dtype, mode):
    """Two 2-byte tensors: trunc/floor of the exact quotient of the stored values (float64),
    not of the quotient rounded to 11 or 8 bits first (2.9997 rounded to the integer 3). A
    number divisor is read in float32, as PyTorch's kernels do: x // 0.001 divides by float32's
    0.001 (not float16's 0.0010004), in float32."""
    rng = np.random.default_rng(3)
    x = mg.tensor(np.round(rng.standard_normal(4000) * 20, 2)).to(getattr(mg, dtype))
    y = mg.tensor(np.round(rng.uniform(0.05, 2, 4000), 2)).to(getattr(mg, dtype))
    rounding = np.trunc if mode == "trunc" else np.floor
    a = _as_float64(x)
    got = x.div(y, rounding_mode=mode)
    want = mg.tensor(rounding(a / _as_float64(y))).to(x.dtype)
    assert got.dtype is x.dtype
    np.testing.assert_array_equal(_as_float64(got), _as_float64(want))
    for number in (0.001, -0.7, 3):
        got = x.div(number, rounding_mode=mode)
        a32, s32 = a.astype(np.float32), np.float32(number)
        # C's floor division (via fmod, exact) or the truncated quotient, in float32
        rounded = np.floor_divide(a32, s32) if mode == "floor" else np.trunc(a32 / s32)
        want = mg.tensor(rounded.astype(np.float64)).to(x.dtype)
        np.testing.assert_array_equal(_as_float64(got), _as_float64(want))


def test_arange_writes_into_out_in_outs_dtype():
    out = mg.empty(5, dtype=mg.int32)
    assert mg.arange(5, out=out) is out
    assert out.dtype == mg.int32 and out.tolist() == [0, 1, 2, 3, 4]
    halves = mg.empty(4, dtype=mg.float16)
    mg.arange(0, 1, 0.25, out=halves)
    assert halves.tolist() == [0.0, 0.25, 0.5, 0.75]
    truncated = mg.empty(3, dtype=mg.int32)
    assert mg.arange(0.5, 3, out=truncated).tolist() == [0, 1, 2]  # counted from the floats
    with pytest.raises(RuntimeError, match="does not match dtype of out"):
        mg.arange(5, dtype=mg.int64, out=mg.empty(5, dtype=mg.int32))


def test_linspace_and_logspace_write_into_out_in_outs_dtype():
    out = mg.empty(3, dtype=mg.float64)
    assert mg.linspace(0, 0.7, 3, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.35, 0.7])
    integers = mg.linspace(0, 5, 3, out=mg.empty(3, dtype=mg.int32))
    assert integers.dtype == mg.int32 and integers.tolist() == [0, 2, 5]
    powers = mg.logspace(0, 1, 3, out=mg.empty(3, dtype=mg.float64))
    np.testing.assert_allclose(powers.numpy(), 10.0 ** np.array([0.0, 0.5, 1.0]), rtol=1e-15)
    with pytest.raises(RuntimeError, match="does not match dtype of out"):
        mg.logspace(0, 1, 3, dtype=mg.float32, out=mg.empty(3, dtype=mg.float64))
