"""Module._apply(fn), PyTorch's hook for custom conversions: fn maps each parameter (values
replaced in place, the Parameter object kept), each gradient and each buffer, children first."""

import minigenesis as mg
from minigenesis import nn


def test_apply_maps_parameters_in_place_and_replaces_buffers() -> None:
    model = nn.Sequential(nn.Linear(2, 1), nn.BatchNorm1d(1))
    weight, mean = model[0].weight, model[1].running_mean
    weight_values = weight.tolist()
    assert model._apply(lambda t: t * 2) is model
    assert model[0].weight is weight  # same Parameter: an optimizer keeps working
    assert model[0].weight.tolist() == [[2 * v for v in weight_values[0]]]
    assert model[1].running_mean is not mean and model[1].running_mean.tolist() == [0.0]
    assert model[1].running_var.tolist() == [2.0]  # ones * 2
    assert model[1].num_batches_tracked.item() == 0


def test_apply_maps_gradients_and_can_change_dtype() -> None:
    layer = nn.Linear(2, 1)
    layer(mg.ones(1, 2)).sum().backward()
    layer._apply(lambda t: t.double())
    assert layer.weight.dtype == mg.float64 and isinstance(layer.weight, nn.Parameter)
    assert layer.weight.grad.dtype == mg.float64
    assert layer.weight.grad.tolist() == [[1.0, 1.0]]


def test_apply_without_recurse_leaves_children_alone() -> None:
    model = nn.Sequential(nn.Linear(1, 1))
    model.register_buffer("scale", mg.ones(1))
    before = model[0].weight.tolist()
    model._apply(lambda t: t * 0, recurse=False)
    assert model.scale.tolist() == [0.0]
    assert model[0].weight.tolist() == before
