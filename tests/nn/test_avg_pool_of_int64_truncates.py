"""avg_pool1d/2d of an int64 tensor, as PyTorch's kernel: the window's int64 sum divided by the
divisor with C's integer division (truncated toward zero); other integer dtypes are refused.
Oracle: the windows summed and divided in Python ints."""

from __future__ import annotations

import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

ROW = [-7, 2, 5, 4, -3, -2, 9, 1, 2**40 + 3]


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _ref(row, k, s, p, include_pad):
    padded = [None] * p + row + [None] * p
    out = []
    for start in range(0, len(padded) - k + 1, s):
        window = padded[start : start + k]
        real = [v for v in window if v is not None]
        out.append(_trunc_div(sum(real), k if include_pad else len(real)))
    return out


@pytest.mark.parametrize(("k", "s", "p"), [(2, 2, 0), (3, 2, 1), (3, 1, 1), (4, 3, 2)])
@pytest.mark.parametrize("include_pad", [True, False])
def test_int64_avg_pool1d_truncates_the_window_mean(k, s, p, include_pad):
    x = mg.tensor([[ROW]])
    got = F.avg_pool1d(x, k, s, p, count_include_pad=include_pad)
    assert got.dtype == mg.int64
    assert got.tolist() == [[_ref(ROW, k, s, p, include_pad)]]


def test_int64_avg_pool2d_with_divisor_override_truncates():
    x = mg.tensor([[[ROW[:8]]]])
    got = F.avg_pool2d(x, (1, 2), divisor_override=3)
    want = [_trunc_div(ROW[i] + ROW[i + 1], 3) for i in range(0, 8, 2)]
    assert got.tolist() == [[[want]]]


@pytest.mark.parametrize("dtype", [mg.int8, mg.uint8, mg.int32, mg.bool])
def test_avg_pool_refuses_narrow_integers(dtype):
    with pytest.raises(NotImplementedError, match="avg_pool2d"):
        F.avg_pool1d(mg.tensor([[ROW[:8]]]).to(dtype), 2)
