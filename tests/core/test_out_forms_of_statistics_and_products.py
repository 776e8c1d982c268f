"""out= on mg.median, nanmedian, mode, aminmax (a pair), quantile, nanquantile, diff, msort, var,
std, kron, cross and diag, as PyTorch takes it: the result written into the given tensor(s),
which are returned. Oracles: NumPy's median, quantile, diff, sort, var, kron, cross, diag."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

A = np.array([[3.0, 1.0, 2.0, 7.0], [0.0, 5.0, -1.0, 4.0], [2.0, 2.0, 9.0, -3.0]])


def _pair(rows: int = 3) -> tuple:
    return mg.empty(rows, dtype=mg.float64), mg.empty(rows, dtype=mg.int64)


def test_value_index_pairs_are_written_into_out():
    x = mg.tensor(A)
    for name in ("median", "nanmedian", "mode"):
        out = _pair()
        got = getattr(mg, name)(x, 1, out=out)
        assert got[0] is out[0] and got[1] is out[1]
        want = getattr(x, name)(1)
        np.testing.assert_array_equal(out[0].numpy(), want.values.numpy())
        np.testing.assert_array_equal(out[1].numpy(), want.indices.numpy())
    # the lower of the two middle values of each row
    np.testing.assert_array_equal(mg.median(x, 1, out=_pair())[0].numpy(), [2.0, 0.0, 2.0])
    whole = mg.empty((), dtype=mg.float64)
    assert mg.median(x, out=whole) is whole and whole.item() == 2.0  # the lower middle
    low, high = mg.empty(4, dtype=mg.float64), mg.empty(4, dtype=mg.float64)
    got = mg.aminmax(x, dim=0, out=(low, high))
    assert got[0] is low and got[1] is high
    np.testing.assert_array_equal(low.numpy(), A.min(0))
    np.testing.assert_array_equal(high.numpy(), A.max(0))
    with pytest.raises(RuntimeError):
        mg.median(x, 1, out=(mg.empty(3, dtype=mg.float64), mg.empty(3, dtype=mg.int32)))


@pytest.mark.parametrize(
    "make,expected",
    [
        (lambda x, out: mg.quantile(x, 0.3, dim=1, out=out), np.quantile(A, 0.3, axis=1)),
        (lambda x, out: mg.nanquantile(x, 0.3, dim=1, out=out), np.quantile(A, 0.3, axis=1)),
        (lambda x, out: mg.diff(x, dim=1, out=out), np.diff(A, axis=1)),
        (lambda x, out: mg.msort(x, out=out), np.sort(A, axis=0)),
        (lambda x, out: mg.var(x, 1, out=out), A.var(1, ddof=1)),
        (lambda x, out: mg.std(x, 1, out=out), A.std(1, ddof=1)),
        (lambda x, out: mg.kron(x[0], x[1], out=out), np.kron(A[0], A[1])),
        (lambda x, out: mg.cross(x[:, :3], x[:, 1:], dim=1, out=out), np.cross(A[:, :3], A[:, 1:])),
        (lambda x, out: mg.diag(x[0], out=out), np.diag(A[0])),
    ],
)
def test_results_are_written_into_out(make, expected):
    out = mg.empty(expected.shape, dtype=mg.float64)
    assert make(mg.tensor(A), out) is out
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
