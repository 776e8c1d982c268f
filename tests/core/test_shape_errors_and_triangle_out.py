"""Shape errors are PyTorch's RuntimeError (permute with a repeated dim, t() of a 3-d tensor,
expand to a mismatching or shorter size), and tril / triu take ``out=`` as PyTorch's do."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.permute(0, 0, 1),
        lambda x: x.t(),
        lambda x: x.expand(2, 3, 5),
        lambda x: x.expand(3),
    ],
    ids=["permute repeated dim", "t of 3-d", "expand mismatch", "expand fewer dims"],
)
def test_invalid_shape_requests_raise_runtime_error(call):
    with pytest.raises(RuntimeError):
        call(mg.ones(2, 3, 4))


@pytest.mark.parametrize(("name", "fn"), [("tril", np.tril), ("triu", np.triu)])
def test_tril_and_triu_write_into_out(name, fn):
    x = np.arange(12.0).reshape(3, 4)
    out = mg.empty(3, 4, dtype=mg.float64)
    assert getattr(mg, name)(mg.tensor(x), 1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), fn(x, 1))
