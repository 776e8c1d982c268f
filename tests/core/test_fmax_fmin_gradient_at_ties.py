"""fmax / fmin send the whole gradient to self at a tie and to the number when the other side is
NaN (PyTorch's rule); maximum / minimum split a tie's gradient in halves."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg

NAN = math.nan
A = [1.0, 2.0, 3.0, NAN, NAN, -0.0, 5.0]
B = [1.0, 0.5, 4.0, 2.0, NAN, 0.0, NAN]


@pytest.mark.parametrize("name, np_fn", [("fmax", np.fmax), ("fmin", np.fmin)])
def test_fmax_fmin_give_the_tie_to_self_and_skip_nan(name, np_fn):
    a = mg.tensor(A, dtype=mg.float64, requires_grad=True)
    b = mg.tensor(B, dtype=mg.float64, requires_grad=True)
    y = getattr(mg, name)(a, b)
    np.testing.assert_array_equal(y.detach().numpy(), np_fn(np.array(A), np.array(B)))
    assert np.signbit(y.detach().numpy()[5])  # fmax(-0, +0) and fmin(-0, +0): self's -0
    y.sum().backward()
    a_wins = [True, name == "fmax", name == "fmin", False, True, True, True]
    np.testing.assert_array_equal(a.grad.numpy(), np.array(a_wins, dtype=float))
    np.testing.assert_array_equal(b.grad.numpy(), 1.0 - np.array(a_wins, dtype=float))


def test_fmax_broadcasts_and_takes_a_number():
    a = mg.tensor([[1.0], [3.0]], requires_grad=True)
    y = a.fmax(mg.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(y.detach().numpy(), [[1.0, 2.0], [3.0, 3.0]])
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[1.0], [2.0]])
    assert mg.fmin(mg.tensor([NAN, 2.0]), 1.0).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_split_a_tie_in_halves(name):
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([1.0, 2.0], requires_grad=True)
    getattr(mg, name)(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.5] and b.grad.tolist() == [0.5, 0.5]
