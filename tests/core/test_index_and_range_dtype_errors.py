"""Indices and value ranges whose dtype PyTorch refuses are refused here too, with PyTorch's
exception types: a floating-point tensor (or a Python float) used as an index is an IndexError even
when it holds a whole number, int8/int16 index tensors are refused, a uint8 tensor is an old-style
mask, and arange / linspace / logspace have no bool form (NotImplementedError)."""

import numpy as np
import pytest

import minigenesis as mg

TENSOR_INDEX = "tensors used as indices must be long, int, byte or bool tensors"


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.float16, mg.bfloat16])
@pytest.mark.parametrize("value", [1.1, 1.0, [1.0, 2.0]])
def test_indexing_with_a_floating_point_tensor_is_an_index_error(dtype, value):
    x = mg.ones(10, 11, 12)
    index = mg.tensor(value, dtype=dtype)
    with pytest.raises(IndexError, match=TENSOR_INDEX):
        x[index]
    with pytest.raises(IndexError, match=TENSOR_INDEX):
        x[0, index]
    with pytest.raises(IndexError, match=TENSOR_INDEX):
        x[index] = 2.0
    assert x.sum().item() == 10 * 11 * 12  # nothing was written


def test_indexing_with_a_python_float_is_an_index_error():
    with pytest.raises(IndexError, match=r"valid indices \(got float\)"):
        mg.ones(3, 2)[1.0]


@pytest.mark.parametrize("dtype", [mg.int8, mg.int16])
def test_small_integer_index_tensors_are_refused_but_their_0d_form_is_an_int(dtype):
    x = mg.arange(12).reshape(3, 4)
    with pytest.raises(IndexError, match=TENSOR_INDEX):
        x[mg.tensor([1], dtype=dtype)]
    np.testing.assert_array_equal(x[mg.tensor(1, dtype=dtype)].numpy(), [4, 5, 6, 7])


@pytest.mark.parametrize("dtype", [mg.int32, mg.int64])
def test_int32_and_int64_index_tensors_pick_positions(dtype):
    x = mg.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(
        x[mg.tensor([2, 0], dtype=dtype)].numpy(), [[8, 9, 10, 11], [0, 1, 2, 3]]
    )


def test_a_uint8_index_tensor_is_a_deprecated_mask():
    x = mg.arange(6).reshape(3, 2)
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        out = x[mg.tensor([1, 0, 1], dtype=mg.uint8)]
    np.testing.assert_array_equal(out.numpy(), [[0, 1], [4, 5]])


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: mg.linspace(5, 10, 3, dtype=mg.bool), "linspace"),
        (lambda: mg.logspace(0, 1, 3, dtype=mg.bool), "logspace"),
        (lambda: mg.arange(0, 2, dtype=mg.bool), "arange"),
    ],
)
def test_value_ranges_have_no_bool_dtype(make, name):
    with pytest.raises(NotImplementedError, match=f"\"{name}_cpu\" not implemented for 'Bool'"):
        make()


def test_take_along_dim_refuses_shapes_that_do_not_broadcast_with_a_runtime_error() -> None:
    # sizes outside dim must broadcast (3 against 2 at dim 2): PyTorch's RuntimeError naming it
    x = mg.zeros(2, 4, 3)
    idx = mg.zeros(2, 2, 2, dtype=mg.int64)
    with pytest.raises(RuntimeError, match=r"tensor a \(3\).*tensor b \(2\).*dimension 2"):
        mg.take_along_dim(x, idx, dim=1)
