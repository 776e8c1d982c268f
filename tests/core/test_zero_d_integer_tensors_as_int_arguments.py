"""A 0-d integer tensor where an int argument goes (k, shifts, a split size, an order, a bin count,
a diagonal offset, a dim) counts as the int it holds, as in PyTorch (``x.topk(mask.sum())``).
Oracle: the same call with the Python int."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

X = mg.tensor([3.0, -1.0, 4.0, 1.0, -5.0, 9.0])
M = X.view(2, 3)

CALLS = {
    "topk": lambda k: X.topk(k),
    "kthvalue": lambda k: X.kthvalue(k),
    "roll": lambda k: X.roll(k),
    "split": lambda k: X.split(k),
    "chunk": lambda k: X.chunk(k),
    "diff": lambda k: X.diff(k),
    "histc": lambda k: X.histc(k),
    "diag": lambda k: mg.diag(X, k),
    "diag_embed": lambda k: mg.diag_embed(M, k),
    "diagflat": lambda k: mg.diagflat(M, k),
    "movedim": lambda k: mg.arange(24).view(2, 3, 4).movedim(k, 0),
    "tril": lambda k: M.tril(k),
}


def _arrays(result):
    if isinstance(result, tuple | list):
        return [r.numpy() for r in result]
    return [result.numpy()]


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.uint8])
def test_zero_d_integer_tensor_argument_acts_as_its_int(name, dtype):
    want = _arrays(CALLS[name](2))
    got = _arrays(CALLS[name](mg.tensor(2, dtype=dtype)))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_zero_d_float_tensor_is_no_int_argument():
    with pytest.raises((TypeError, RuntimeError)):
        X.topk(mg.tensor(2.0))
