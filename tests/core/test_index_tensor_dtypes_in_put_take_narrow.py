"""Index tensors of each dtype in index_put_, take, put_, narrow and repeat_interleave, by
PyTorch's rules: a uint8 index is a (deprecated) mask as in x[i], int8/int16 indices are
refused; take and put_ take int64 only; narrow's start may be a 0-d integer tensor of any
integer dtype; repeat_interleave(counts) keeps int32 counts' dtype. Oracle: NumPy indexing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_with_a_uint8_index_treats_it_as_a_mask(accumulate):
    idx = np.array([2, 0, 1], dtype=np.uint8)
    base = np.arange(6, dtype=np.float32).reshape(3, 2)
    values = np.array([10.0, 20.0], dtype=np.float32)
    want = base.copy()
    mask = idx.astype(bool)
    want[mask] = want[mask] + values if accumulate else values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the uint8 deprecation warning
        got = mg.tensor(base).index_put_((mg.tensor(idx),), mg.tensor(values), accumulate)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", [mg.int8, mg.int16])
def test_index_put_refuses_int8_and_int16_indices(dtype):
    x = mg.zeros(3, 2)
    with pytest.raises(IndexError, match="long, int, byte or bool"):
        x.index_put_((mg.tensor([1, 0], dtype=dtype),), mg.tensor([1.0, 2.0]), accumulate=True)


@pytest.mark.parametrize("dtype", [mg.int32, mg.uint8, mg.bool])
def test_take_and_put_take_int64_positions_only(dtype):
    x = mg.arange(6.0)
    idx = mg.tensor([1, 0, 1]).to(dtype)
    with pytest.raises(RuntimeError, match="take\\(\\): Expected a long tensor"):
        x.take(idx)
    with pytest.raises(RuntimeError, match="put_\\(\\): Expected a long tensor"):
        x.clone().put_(idx, mg.tensor([7.0, 8.0, 9.0]))
    np.testing.assert_array_equal(x.take(mg.tensor([4, 0])).numpy(), [4.0, 0.0])


@pytest.mark.parametrize("dtype", [mg.uint8, mg.int8, mg.int32, mg.int64])
def test_narrow_takes_a_zero_dim_integer_tensor_start(dtype):
    x = mg.arange(6)
    np.testing.assert_array_equal(x.narrow(0, mg.tensor(1, dtype=dtype), 2).numpy(), [1, 2])
    if dtype is not mg.uint8:
        np.testing.assert_array_equal(x.narrow(0, mg.tensor(-2, dtype=dtype), 2).numpy(), [4, 5])
    with pytest.raises(RuntimeError, match="0-dim integral Tensor"):
        x.narrow(0, mg.tensor([1], dtype=dtype), 2)
    with pytest.raises(RuntimeError, match="0-dim integral Tensor"):
        x.narrow(0, mg.tensor(1.0), 2)


def test_repeat_interleave_of_counts_keeps_int32_and_refuses_other_dtypes():
    got = mg.repeat_interleave(mg.tensor([1, 0, 2], dtype=mg.int32))
    assert got.dtype == mg.int32
    np.testing.assert_array_equal(got.numpy(), np.repeat(np.arange(3), [1, 0, 2]))
    assert mg.repeat_interleave(mg.tensor([2, 1])).dtype == mg.int64
    for dtype in (mg.int8, mg.uint8, mg.int16, mg.bool, mg.float32):
        with pytest.raises(NotImplementedError, match="repeat_interleave_cpu"):
            mg.repeat_interleave(mg.tensor([1, 0, 2]).to(dtype))
