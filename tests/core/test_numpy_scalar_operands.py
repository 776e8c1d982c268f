"""A NumPy scalar (np.float64(2.5), np.int8(3) ... what np.sqrt, np.mean and indexing an array
return) beside a tensor counts as the Python number it holds: it changes only the category, as a
Python number does (float16_tensor * np.float64(2) stays float16, int_tensor + np.float64(2.5) is
the default float). The oracle is the same expression with the Python number (and, for values,
NumPy arithmetic written out here)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minigenesis as mg

ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow]  # fmt: skip
SCALARS = [np.float64(2.5), np.float32(2.5), np.float16(2.0), np.int64(3), np.int32(3), np.int8(3),
           np.uint8(3)]  # fmt: skip


def _tensor(dtype: str) -> mg.Tensor:
    return mg.tensor([5, 7, 1], dtype=getattr(mg, dtype))


@pytest.mark.parametrize("op", ARITHMETIC, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int64", "int32", "uint8"])
@pytest.mark.parametrize("s", SCALARS, ids=repr)
def test_numpy_scalar_operand_promotes_as_the_python_number(op, dtype, s):
    t = _tensor(dtype)
    for ours, plain in [(op(t, s), op(t, s.item())), (op(s, t), op(s.item(), t))]:
        assert ours.dtype == plain.dtype
        np.testing.assert_array_equal(ours.float().numpy(), plain.float().numpy())


@pytest.mark.parametrize("method", ["add", "sub", "mul", "pow", "fmod", "remainder", "div"])
def test_numpy_float64_keeps_a_half_tensor_in_half_in_method_forms(method):
    t = mg.tensor([1.5, -2.0, 3.0], dtype=mg.float16)
    out = getattr(t, method)(np.float64(2.0))
    assert out.dtype == mg.float16
    expected = getattr(t, method)(2.0)
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_numpy_float64_with_an_int_tensor_gives_the_default_float():
    # np.sqrt returns np.float64; the product of an int64 tensor with it is float32, as with 1.41
    t = mg.tensor([1, 2, 3])
    out = t * np.sqrt(2.0)
    assert out.dtype == mg.float32
    np.testing.assert_allclose(out.numpy(), np.float32([1, 2, 3]) * np.float32(np.sqrt(2.0)))


def test_numpy_int_scalars_compare_and_combine_bitwise_as_python_ints():
    u = mg.tensor([1, 250], dtype=mg.uint8)
    # -2 is cast to uint8 (254) as a Python -2 is: 1 < 254 and 250 < 254
    assert (u < np.int8(-2)).tolist() == (u < -2).tolist() == [True, True]
    assert (u & np.int64(3)).dtype == mg.uint8
    np.testing.assert_array_equal((u & np.int64(3)).numpy(), np.uint8([1, 250]) & 3)
    b = mg.tensor([True, False])
    assert (b | np.int8(2)).dtype == mg.int64  # a bool tensor with an int: int64
    with pytest.raises(NotImplementedError):
        mg.tensor([1, 2]) & np.float32(2.5)


def test_numpy_negative_int_exponent_of_an_int_tensor_is_refused():
    with pytest.raises(RuntimeError, match="negative integer powers"):
        mg.tensor([1, 2], dtype=mg.uint8) ** np.int8(-2)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int8"])
def test_clamp_with_numpy_int_bounds_keeps_the_int_dtype(dtype):
    t = _tensor(dtype)
    out = t.clamp(np.int64(2), np.int32(6))
    assert out.dtype == t.dtype
    np.testing.assert_array_equal(out.numpy(), np.clip([5, 7, 1], 2, 6))
    t.clamp_(np.int64(2))  # in place: no dtype change is needed
    np.testing.assert_array_equal(t.numpy(), [5, 7, 2])
    assert mg.clamp(t, max=np.float32(2.5)).dtype == mg.float32


def test_result_type_reads_numpy_scalars_as_python_numbers():
    t = mg.ones(2, dtype=mg.int16)
    assert mg.result_type(t, np.int8(2)) == mg.result_type(t, 2) == mg.int16
    assert mg.result_type(t, np.float32(2.0)) == mg.result_type(t, 2.0) == mg.float32
    assert mg.result_type(np.float64(1.0), np.int8(2)) == mg.float32  # the default float
    assert mg.result_type(mg.ones((), dtype=mg.float16), np.float64(1.0)) == mg.float16


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float16"])
def test_function_forms_read_numpy_scalars_as_python_numbers(dtype):
    t = _tensor(dtype)
    # a NumPy scalar first: mg.add(np.float64(2.5), t) is mg.add(2.5, t)
    first, plain = mg.add(np.float64(2.5), t), mg.add(2.5, t)
    assert first.dtype == plain.dtype
    np.testing.assert_array_equal(first.float().numpy(), plain.float().numpy())
    for fn in (mg.xlogy, mg.special.xlog1py):
        ours, python = fn(t, np.int64(3)), fn(t, 3)
        assert ours.dtype == python.dtype
        np.testing.assert_allclose(ours.float().numpy(), python.float().numpy())
    # addcmul's value: a float value with integer tensors is cast to the integer dtype
    ours = mg.addcmul(t, t, t, value=np.float32(2.5))
    python = mg.addcmul(t, t, t, value=2.5)
    assert ours.dtype == python.dtype == t.dtype
    np.testing.assert_array_equal(ours.float().numpy(), python.float().numpy())


def test_numpy_integers_are_taken_where_an_int_goes():
    # dims, k, chunks, shifts, decimals given as NumPy integers (what indexing an array gives)
    a = np.arange(12.0).reshape(3, 4)
    x = mg.tensor(a)
    i0, i1, i2 = np.int64(0), np.int64(1), np.int32(2)
    np.testing.assert_array_equal(x.sum(i0).numpy(), a.sum(0))
    np.testing.assert_array_equal(x.cumsum(i1).numpy(), a.cumsum(1))
    np.testing.assert_array_equal(x.transpose(i0, i1).numpy(), a.T)
    np.testing.assert_array_equal(x.unsqueeze(i0).numpy(), a[None])
    np.testing.assert_array_equal(x.flip(i0).numpy(), a[::-1])
    np.testing.assert_array_equal(x.roll(i1, i0).numpy(), np.roll(a, 1, 0))
    np.testing.assert_array_equal(x.movedim(i0, i1).numpy(), np.moveaxis(a, 0, 1))
    np.testing.assert_array_equal(x.max(i1).values.numpy(), a.max(1))
    np.testing.assert_array_equal(x.std(i0).numpy(), a.std(0, ddof=1))
    np.testing.assert_array_equal(x.topk(i2).values.numpy(), np.sort(a, 1)[:, ::-1][:, :2])
    np.testing.assert_array_equal(x.kthvalue(i2, i1).values.numpy(), np.sort(a, 1)[:, 1])
    np.testing.assert_array_equal(x.tril(i1).numpy(), np.tril(a, 1))
    np.testing.assert_array_equal(
        x.gather(i1, mg.tensor([[0], [1], [2]])).numpy(), [[0], [5], [10]]
    )
    assert [c.shape for c in x.chunk(i2)] == [(2, 4), (1, 4)]
    np.testing.assert_array_equal((x / 7).round(decimals=i1).numpy(), np.round(a / 7, 1))
    np.testing.assert_allclose(x.softmax(i1).sum(1).numpy(), np.ones(3), rtol=1e-6)


def test_numpy_integer_counts_repeat_split_and_sample_as_ints():
    a = np.arange(12.0).reshape(3, 4)
    x = mg.tensor(a)
    np.testing.assert_array_equal(
        x.repeat_interleave(np.int64(2), np.int64(1)).numpy(), np.repeat(a, 2, 1)
    )
    parts = x.tensor_split(np.int64(3), np.int64(1))
    assert [tuple(p.shape) for p in parts] == [(3, 2), (3, 1), (3, 1)]
    np.testing.assert_array_equal(mg.cat(parts, 1).numpy(), a)
    draws = mg.tensor([[0.0, 1.0, 0.0]]).multinomial(np.int64(3), replacement=True)
    np.testing.assert_array_equal(draws.numpy(), [[1, 1, 1]])


@pytest.mark.parametrize(
    "write",
    [
        lambda x, v: x.masked_fill(x > 0, v),
        lambda x, v: x.new_full((2,), v),
        lambda x, v: x.clone().fill_(v),
        lambda x, v: x.where(x > 1, v),
        lambda x, v: x.clamp(max=v),
    ],
)
@pytest.mark.parametrize("value", [np.uint8(200), np.int64(-129), np.int16(128)], ids=repr)
def test_numpy_scalar_out_of_an_int8_range_is_refused_as_the_python_number(write, value):
    x = mg.tensor([1, 2, 3], dtype=mg.int8)
    with pytest.raises(RuntimeError, match="without overflow"):
        write(x, value.item())
    with pytest.raises(RuntimeError, match="without overflow"):
        write(x, value)


def test_numpy_float_scalar_outside_an_unsigned_range_is_refused_when_written():
    u = mg.tensor([1, 2], dtype=mg.uint8)
    with pytest.raises(RuntimeError, match="without overflow"):
        u.masked_fill(u > 0, np.float32(-1.5))
    with pytest.raises(RuntimeError, match="without overflow"):
        u.new_full((2,), np.float64(256.0))


def test_where_reads_numpy_scalars_as_python_numbers():
    x = mg.tensor([1, 2, 3], dtype=mg.int32)
    assert x.where(x > 1, np.float16(3.0)).dtype == mg.float32  # a float number: default dtype
    u = mg.tensor([1, 2, 3], dtype=mg.uint8)
    out = u.where(u > 1, np.int8(-2))  # a negative int wraps into uint8, as a fill writes it
    assert out.dtype == mg.uint8 and out.tolist() == [254, 2, 3]
    assert u.where(u > 1, -2).tolist() == [254, 2, 3]


@pytest.mark.parametrize("w", [np.uint8(3), np.int64(3), np.float32(3.0)], ids=repr)
def test_lerp_weight_given_as_numpy_scalar_is_the_number(w):
    start, end = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    out = mg.lerp(mg.tensor(start), mg.tensor(end), w)  # np.uint8 weight: 1 - w wrapped to 254
    np.testing.assert_allclose(out.numpy(), start + 3.0 * (end - start))


def test_numpy_float_alpha_with_integer_tensors_is_refused_as_a_python_float():
    a = mg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        a.add(a, alpha=np.float32(2.5))
    assert a.add(a, alpha=np.int64(3)).tolist() == [4, 8]
    assert a.add(a, alpha=np.int64(3)).dtype == mg.int64


@pytest.mark.parametrize("q", [np.float32(0.25), np.float64(0.25)], ids=repr)
def test_quantile_takes_a_numpy_scalar_q(q):
    x = np.array([1.0, 2.0, 3.0, 5.0])
    assert mg.quantile(mg.tensor(x), q).item() == pytest.approx(np.quantile(x, 0.25))
