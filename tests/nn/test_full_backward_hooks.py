"""Full backward hooks, as PyTorch's: a pre-hook sees (and may replace) grad_output, a hook sees
grad_input and grad_output (and may replace grad_input); tuples aligned with the positional
arguments and the outputs. Oracle: for y = x W^T + b and L = sum(y * c), grad_output = c and
grad_input = c W (NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

X = np.linspace(-1, 1, 12).reshape(4, 3)
C = np.cos(np.arange(8.0)).reshape(4, 2)


def _layer() -> nn.Linear:
    layer = nn.Linear(3, 2).double()
    with mg.no_grad():
        layer.weight.copy_(mg.tensor(np.arange(6.0).reshape(2, 3) / 5))
    return layer


def _backward(module: nn.Module, x: mg.Tensor) -> None:
    (module(x) * mg.tensor(C)).sum().backward()


def test_hooks_see_grad_output_then_grad_input() -> None:
    layer, calls = _layer(), []
    layer.register_full_backward_pre_hook(lambda m, go: calls.append(("pre", go)))
    layer.register_full_backward_hook(lambda m, gi, go: calls.append(("hook", gi, go)))
    x = mg.tensor(X, requires_grad=True)
    _backward(layer, x)
    assert [c[0] for c in calls] == ["pre", "hook"]
    (go,) = calls[0][1]
    np.testing.assert_allclose(go.numpy(), C)
    (gi,), (go2,) = calls[1][1], calls[1][2]
    w = layer.weight.detach().numpy()
    np.testing.assert_allclose(gi.numpy(), C @ w)
    np.testing.assert_allclose(go2.numpy(), C)
    np.testing.assert_allclose(x.grad.numpy(), C @ w)


def test_hooks_may_replace_the_gradients() -> None:
    layer = _layer()
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0] + 1,))
    x = mg.tensor(X, requires_grad=True)
    _backward(layer, x)
    w = layer.weight.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 2 * C @ w + 1)
    np.testing.assert_allclose(layer.weight.grad.numpy(), 2 * C.T @ X)  # doubled grad_output


def test_without_an_input_that_needs_a_gradient_grad_input_is_none() -> None:
    layer, seen = _layer(), []
    layer.register_full_backward_hook(lambda m, gi, go: seen.append(gi))
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients"):
        _backward(layer, mg.tensor(X))  # (as PyTorch, which warns that it fires early)
    assert seen == [(None,)]
    np.testing.assert_allclose(layer.weight.grad.numpy(), C.T @ X)


def test_an_argument_without_gradient_gets_zeros_and_no_gradient() -> None:
    bil, seen = nn.Bilinear(3, 2, 2).double(), []
    bil.register_full_backward_hook(lambda m, gi, go: seen.append(gi))
    x1, x2 = mg.tensor(X, requires_grad=True), mg.tensor(C)
    bil(x1, x2).sum().backward()
    assert seen[0][0] is not None and x2.grad is None
    np.testing.assert_array_equal(seen[0][1].numpy(), np.zeros_like(C))


def test_a_wrong_number_of_gradients_is_refused_and_a_removed_hook_is_gone() -> None:
    layer = _layer()
    handle = layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        _backward(layer, mg.tensor(X, requires_grad=True))
    handle.remove()
    x = mg.tensor(X, requires_grad=True)
    _backward(layer, x)
    np.testing.assert_allclose(x.grad.numpy(), C @ layer.weight.detach().numpy())
