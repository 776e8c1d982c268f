"""mg.tensor of Python ints at the edges of the target dtype, as PyTorch converts them: the
int64 extremes fit int64 exactly, an empty list makes an empty integer tensor, a bfloat16
tensor takes ints past int64 (as a float does), and uint8 wraps negatives only down to -255.
The oracle is Python's own integer arithmetic."""

from __future__ import annotations

import pytest

import minigenesis as mg

I64_MAX, I64_MIN = 2**63 - 1, -(2**63)


def test_int64_extremes_convert_exactly():
    t = mg.tensor([I64_MAX, I64_MIN, 5], dtype=mg.int64)
    assert t.tolist() == [I64_MAX, I64_MIN, 5]
    assert mg.as_tensor([I64_MAX], dtype=mg.int64).item() == I64_MAX
    assert mg.tensor([2**31 - 1, -(2**31)], dtype=mg.int32).tolist() == [2**31 - 1, -(2**31)]


@pytest.mark.parametrize("dtype", [mg.int8, mg.uint8, mg.int16, mg.int32, mg.int64])
def test_empty_list_makes_an_empty_integer_tensor(dtype):
    t = mg.tensor([], dtype=dtype)
    assert t.dtype == dtype and tuple(t.shape) == (0,)


def test_bfloat16_tensor_takes_ints_past_int64_like_floats():
    got = mg.tensor([2**63, -(2**64), 3], dtype=mg.bfloat16).float().tolist()
    assert got == [float(2**63), float(-(2**64)), 3.0]  # powers of two: exact in bfloat16


def test_uint8_wraps_negative_ints_down_to_minus_255_only():
    assert mg.tensor([-1, -255], dtype=mg.uint8).tolist() == [255, 1]
    for bad in (-256, -300, I64_MIN):
        with pytest.raises(RuntimeError, match="uint8 without overflow"):
            mg.tensor([bad], dtype=mg.uint8)
