"""autograd.grad's options as in PyTorch 2.13: a dict of inputs answered by key,
materialize_grads (zeros for an input the outputs do not use, with allow_unused implied),
only_inputs accepted and ignored (a FutureWarning when False), an empty inputs list refused."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg


def test_dict_inputs_give_gradients_by_key() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor(3.0, requires_grad=True)
    grads = mg.autograd.grad((w * x**2).sum(), {"x": x, "w": w})
    assert list(grads) == ["x", "w"]
    np.testing.assert_allclose(grads["x"].numpy(), [6.0, 12.0])  # 2 w x
    np.testing.assert_allclose(grads["w"].numpy(), 5.0)  # sum x^2


def test_materialize_grads_gives_zeros_for_unused_inputs() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    unused = mg.tensor([np.inf, -1.0], requires_grad=True)
    gx, gu = mg.autograd.grad((x**3).sum(), (x, unused), materialize_grads=True)
    np.testing.assert_allclose(gx.numpy(), [3.0, 12.0])
    np.testing.assert_array_equal(gu.numpy(), [0.0, 0.0])  # zeros, even where the input is inf
    assert mg.autograd.grad(x.sum(), (x, unused), allow_unused=True)[1] is None
    with pytest.raises(RuntimeError, match="not used"):
        mg.autograd.grad(x.sum(), (x, unused))
    with pytest.raises(ValueError, match="allow_unused to be True or not passed"):
        mg.autograd.grad(x.sum(), x, materialize_grads=True, allow_unused=False)


def test_only_inputs_is_accepted_and_ignored() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (g,) = mg.autograd.grad((x**2).sum(), x, only_inputs=True, retain_graph=True)
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
        (g2,) = mg.autograd.grad((x**2).sum(), x, only_inputs=False)
    np.testing.assert_array_equal(g.numpy(), g2.numpy())
    assert x.grad is None  # nothing accumulated either way


def test_empty_inputs_are_refused() -> None:
    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        mg.autograd.grad(x.sum(), [])
