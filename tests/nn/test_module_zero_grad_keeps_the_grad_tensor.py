"""Module.zero_grad(set_to_none=False) zeroes each gradient in place: the tensor object stays
the same (as PyTorch's), so references to ``p.grad`` see the zeros."""

import minigenesis as mg
from minigenesis import nn


def test_zero_grad_without_set_to_none_zeroes_the_same_grad_tensor() -> None:
    layer = nn.Linear(2, 1)
    layer(mg.ones(1, 2)).sum().backward()
    grad = layer.weight.grad
    assert grad.tolist() == [[1.0, 1.0]]  # d(sum(w @ x + b))/dw = x
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad is grad
    assert grad.tolist() == [[0.0, 0.0]]
    assert not grad.requires_grad


def test_zero_grad_without_set_to_none_cuts_a_grad_with_history() -> None:
    layer = nn.Linear(1, 1)
    x = mg.ones(1, 1, requires_grad=True)
    layer(x).sum().backward(create_graph=True)
    grad = layer.weight.grad
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad is grad
    assert grad.grad_fn is None
    assert grad.tolist() == [[0.0]]


def test_zero_grad_by_default_drops_the_gradient() -> None:
    layer = nn.Linear(1, 1)
    layer(mg.ones(1, 1)).sum().backward()
    layer.zero_grad()
    assert layer.weight.grad is None
