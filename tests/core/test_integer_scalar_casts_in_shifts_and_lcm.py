"""Integer edge cases of shifts and lcm, checked against closed forms on Python ints.

PyTorch casts a shift's count to the result's integer dtype first (C's wrapping cast), so
``int8 << 257`` shifts by 1 and ``300 << int8`` shifts 44; and it computes lcm as
``|a / gcd * b|`` in the dtype, so an lcm that overflows wraps before the absolute value.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg


def _wrap(v: int, bits: int, signed: bool) -> int:
    """v modulo 2**bits, read as two's complement when signed (C's integer cast)."""
    v %= 1 << bits
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def _shift_ref(x: int, count: int, bits: int, signed: bool, left: bool) -> int:
    """x << count or x >> count in a bits-wide type, count already in that type: a count
    outside [0, bits) gives 0, or the sign fill for a right shift of a signed value."""
    if not 0 <= count < bits:
        return -1 if (not left and signed and x < 0) else 0
    return _wrap(x << count, bits, signed) if left else x >> count


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32"])
@pytest.mark.parametrize("count", [257, 2**53 + 1, 2**53, -(2**63), 2**31, 300])
@pytest.mark.parametrize("left", [True, False])
def test_shift_by_python_int_casts_the_count_to_the_dtype(dtype, count, left):
    info = np.iinfo(dtype)
    xs = [info.min, -5, -1, 0, 1, 3, 100, info.max] if info.min else [0, 1, 3, 100, 200, 255]
    x = mg.tensor(np.array(xs, dtype=dtype))
    got = (x << count) if left else (x >> count)
    c = _wrap(count, info.bits, info.min < 0)
    want = [_shift_ref(v, c, info.bits, info.min < 0, left) for v in xs]
    assert got.dtype == x.dtype
    assert got.tolist() == want


@pytest.mark.parametrize("value", [300, -129, 2**53 + 1])
def test_python_int_shifted_by_an_int8_tensor_is_cast_to_int8(value):
    counts = [0, 1, 2, 3, 7]
    t = mg.tensor(np.array(counts, dtype=np.int8))
    c = _wrap(value, 8, True)
    assert (value << t).tolist() == [_shift_ref(c, k, 8, True, True) for k in counts]
    assert (value >> t).tolist() == [_shift_ref(c, k, 8, True, False) for k in counts]


def test_shift_by_zero_dim_tensor_count_is_cast_to_the_result_dtype():
    # uint8 with a 0-d int16 computes in uint8: the count 256 becomes 0, 257 becomes 1
    x = mg.tensor(np.array([1, 5, 200], dtype=np.uint8))
    for count in (256, 257, -255):
        got = x << mg.tensor(count, dtype=mg.int16)
        c = count % 256
        assert got.dtype == mg.uint8
        assert got.tolist() == [_shift_ref(v, c, 8, False, True) for v in (1, 5, 200)]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
def test_lcm_that_overflows_wraps_as_pytorchs_cpp_computes_it(dtype):
    # |(a / gcd) * b| in C: in int for the types narrower than int (C promotes them, so the
    # absolute value comes before the wrap into the dtype), in the dtype otherwise (wrap first)
    info = np.iinfo(dtype)
    lo = info.min + 1 if info.min else 1
    pairs = [(lo, 2), (info.max, info.max - 1), (info.max, lo), (-6, 4), (0, 5), (0, 0), (6, 4)]
    pairs += [(17, 14), (-17, 14), (100, 3)]
    pairs = [(a, b) for a, b in pairs if info.min <= a <= info.max and info.min <= b <= info.max]
    a = mg.tensor(np.array([p[0] for p in pairs], dtype=dtype))
    b = mg.tensor(np.array([p[1] for p in pairs], dtype=dtype))
    signed, work_bits = info.min < 0, max(info.bits, 32)

    def ref(x: int, y: int) -> int:
        g = math.gcd(x, y)
        if g == 0:
            return 0
        product = _wrap(x // g * y, work_bits, True if info.bits < 32 else signed)
        return _wrap(abs(product), info.bits, signed)

    want = [ref(x, y) for x, y in pairs]
    assert mg.lcm(a, b).tolist() == want
    assert a.clone().lcm_(b).tolist() == want
    assert mg.lcm(a, b).dtype == a.dtype
    if dtype == "int8":
        assert want[-3] == -18  # 17 * 14 = 238 in int, then int8: -18
