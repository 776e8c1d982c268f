"""masked_fill with a 0-d tensor value requiring grad sends the filled places' gradient to the
value (their sum), as PyTorch; a value with dims is refused; gather / index_select /
masked_select / take_along_dim take ``out=``."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_masked_fill_gradient_reaches_a_zero_dim_value():
    mask = np.array([[True, False, True], [False, False, True]])
    g = np.arange(6.0).reshape(2, 3)
    x = mg.zeros(2, 3, dtype=mg.float64, requires_grad=True)
    v = mg.tensor(1.5, dtype=mg.float64, requires_grad=True)
    y = x.masked_fill(mg.tensor(mask), v)
    np.testing.assert_array_equal(y.detach().numpy(), np.where(mask, 1.5, 0.0))
    gx, gv = mg.autograd.grad((y * mg.tensor(g, dtype=mg.float64)).sum(), [x, v])
    assert float(gv) == g[mask].sum()
    np.testing.assert_array_equal(gx.numpy(), np.where(mask, 0.0, g))


def test_masked_fill_refuses_a_value_with_dims():
    with pytest.raises(RuntimeError, match="0-dimensional value"):
        mg.zeros(2, 3).masked_fill(mg.tensor([True, False, True]), mg.ones(3))


def test_index_functions_write_into_out():
    x = mg.tensor(np.arange(12.0).reshape(3, 4))
    idx = mg.tensor([[0, 2], [1, 1], [3, 0]])
    for fn, args in (
        (mg.gather, (x, 1, idx)),
        (mg.take_along_dim, (x, idx, 1)),
        (mg.index_select, (x, 0, mg.tensor([2, 0]))),
        (mg.masked_select, (x, x > 5)),
    ):
        want = fn(*args)
        out = mg.empty(0)
        assert fn(*args, out=out) is out
        np.testing.assert_array_equal(out.numpy(), want.numpy())
