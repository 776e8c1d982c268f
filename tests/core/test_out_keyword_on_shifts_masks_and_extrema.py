"""``out=`` on the functions PyTorch gives it: the shifts, floor_divide, isposinf / isneginf
(a bool tensor only), nonzero (an int64 tensor only, not with as_tuple), max / min (one tensor,
or a (values, indices) pair along a dim) and amax / amin (the input's dtype only)."""

import numpy as np
import pytest

import minigenesis as mg

A = np.array([[1.0, np.inf], [-np.inf, 3.0]], dtype=np.float32)


def test_shift_out_receives_the_shifted_integers_and_casts_to_a_float_out():
    x = mg.tensor([1, 2, 3])
    out = mg.empty(3, dtype=mg.int64)
    assert mg.bitwise_left_shift(x, 2, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.left_shift([1, 2, 3], 2))
    out_f = mg.empty(3)
    mg.bitwise_right_shift(x, 1, out=out_f)
    assert out_f.dtype == mg.float32
    np.testing.assert_array_equal(out_f.numpy(), [0.0, 1.0, 1.0])


def test_floor_divide_out_receives_the_floored_quotient_and_refuses_float_into_int():
    out = mg.empty(3)
    mg.floor_divide(mg.tensor([7, -7, 5]), 2, out=out)
    np.testing.assert_array_equal(out.numpy(), np.floor_divide([7, -7, 5], 2))
    with pytest.raises(RuntimeError, match="can't be cast"):
        mg.floor_divide(mg.tensor([1.5]), 2, out=mg.empty(1, dtype=mg.int64))


@pytest.mark.parametrize(
    ("name", "reference"), [("isposinf", np.isposinf), ("isneginf", np.isneginf)]
)
def test_infinity_mask_out_must_be_bool(name, reference):
    out = mg.empty(2, 2, dtype=mg.bool)
    assert getattr(mg, name)(mg.tensor(A), out=out) is out
    np.testing.assert_array_equal(out.numpy(), reference(A))
    with pytest.raises(RuntimeError, match="non-boolean outputs"):
        getattr(mg, name)(mg.tensor(A), out=mg.empty(2, 2))


def test_nonzero_out_receives_int64_indices_resized_to_the_count():
    out = mg.empty(0, dtype=mg.int64)
    mg.nonzero(mg.tensor([[0, 2], [3, 0]]), out=out)
    np.testing.assert_array_equal(out.numpy(), np.argwhere([[0, 2], [3, 0]]))


def test_nonzero_out_refuses_another_dtype_and_as_tuple():
    with pytest.raises(RuntimeError, match="scalar type Long"):
        mg.nonzero(mg.tensor([1, 0]), out=mg.empty(0, dtype=mg.int32))
    with pytest.raises(RuntimeError, match="as_tuple"):
        mg.nonzero(mg.tensor([1, 0]), as_tuple=True, out=mg.empty(0, dtype=mg.int64))


@pytest.mark.parametrize(
    ("name", "pick", "arg"), [("max", np.max, np.argmax), ("min", np.min, np.argmin)]
)
def test_extremum_along_a_dim_writes_values_and_indices_into_the_out_pair(name, pick, arg):
    values, indices = mg.empty(2), mg.empty(2, dtype=mg.int64)
    result = getattr(mg, name)(mg.tensor(A), 1, out=(values, indices))
    assert result.values is values and result.indices is indices
    np.testing.assert_array_equal(values.numpy(), pick(A, 1))
    np.testing.assert_array_equal(indices.numpy(), arg(A, 1))


def test_max_out_pair_refuses_wrong_dtypes_and_lengths():
    x = mg.tensor(A)
    with pytest.raises(RuntimeError, match="dtype Long"):
        mg.max(x, 1, out=(mg.empty(2), mg.empty(2, dtype=mg.int32)))
    with pytest.raises(RuntimeError, match="Double"):
        mg.max(x, 1, out=(mg.empty(2, dtype=mg.float64), mg.empty(2, dtype=mg.int64)))
    with pytest.raises(TypeError, match="2 elements"):
        mg.max(x, 1, out=(mg.empty(2),))


def test_whole_and_elementwise_extremum_write_one_out_tensor():
    out = mg.empty((), dtype=mg.float64)
    mg.min(mg.tensor(A), out=out)
    assert out.item() == -np.inf
    out2 = mg.empty(2, 2)
    mg.max(mg.tensor(A), mg.tensor(A.T.copy()), out=out2)
    np.testing.assert_array_equal(out2.numpy(), np.maximum(A, A.T))
    with pytest.raises(RuntimeError, match="can't be cast"):
        mg.max(mg.tensor(A), out=mg.empty((), dtype=mg.int64))


@pytest.mark.parametrize(("name", "reference"), [("amax", np.max), ("amin", np.min)])
def test_amax_amin_out_must_have_the_input_dtype(name, reference):
    out = mg.empty(2)
    assert getattr(mg, name)(mg.tensor(A), 0, out=out) is out
    np.testing.assert_array_equal(out.numpy(), reference(A, 0))
    with pytest.raises(RuntimeError, match="dtype for input and out to match"):
        getattr(mg, name)(mg.tensor(A), 0, out=mg.empty(2, dtype=mg.float64))


def test_out_refuses_an_input_that_requires_grad():
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        mg.amax(mg.tensor(A, requires_grad=True), 0, out=mg.empty(2))
