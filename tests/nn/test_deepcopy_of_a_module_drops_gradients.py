"""copy.deepcopy of a Parameter (and so of a model) copies values and requires_grad but not
``grad``, as PyTorch's ``Parameter.__deepcopy__`` (an EMA or SWA copy starts gradient-free)."""

import copy

import minigenesis as mg
from minigenesis import nn


def test_deepcopy_of_a_trained_layer_has_equal_values_and_no_gradients() -> None:
    layer = nn.Linear(2, 1)
    layer.bias.requires_grad_(False)
    layer(mg.ones(1, 2)).sum().backward()
    assert layer.weight.grad.tolist() == [[1.0, 1.0]]
    twin = copy.deepcopy(layer)
    assert twin.weight.grad is None and twin.bias.grad is None
    assert twin.weight is not layer.weight
    assert twin.weight.tolist() == layer.weight.tolist()
    assert twin.weight.requires_grad and not twin.bias.requires_grad
    assert layer.weight.grad.tolist() == [[1.0, 1.0]]  # the original keeps its gradient
