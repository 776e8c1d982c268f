"""Module.to_empty gives every parameter, buffer and gradient new uninitialised memory of the
same shape, dtype and layout, keeping the Parameter objects (so an optimizer still holds them)."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


def test_to_empty_replaces_memory_keeps_parameter_objects_shapes_and_dtypes():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    params = list(model.parameters())
    before = {n: (t.shape, t.dtype, t.data_ptr()) for n, t in model.state_dict().items()}
    params[0].grad = mg.ones(4, 3)
    assert model.to_empty(device="cpu") is model
    assert list(model.parameters()) == params and all(p.requires_grad for p in params)
    after = model.state_dict()
    for name, (shape, dtype, ptr) in before.items():
        assert after[name].shape == shape and after[name].dtype == dtype
        assert after[name].data_ptr() != ptr, name  # new memory, not the old values
    assert params[0].grad is not None and params[0].grad.shape == (4, 3)


def test_to_empty_keeps_channels_last_strides():
    conv = nn.Conv2d(3, 4, 3).to(memory_format=mg.channels_last)
    conv.to_empty(device=mg.device("cpu"))
    assert conv.weight.stride() == (27, 1, 9, 3)


def test_to_empty_without_recurse_touches_only_the_modules_own_tensors():
    inner = nn.Linear(2, 2)
    outer = nn.Sequential(inner)
    outer.register_buffer("scale", mg.ones(2))
    inner_ptr, scale_ptr = inner.weight.data_ptr(), outer.scale.data_ptr()
    outer.to_empty(device="cpu", recurse=False)
    assert inner.weight.data_ptr() == inner_ptr and outer.scale.data_ptr() != scale_ptr


def test_to_empty_then_reset_parameters_materialises_a_working_model():
    model = nn.Linear(3, 2).to_empty(device="cpu")
    model.reset_parameters()
    x = mg.ones(5, 3)
    expected = np.ones((5, 3)) @ model.weight.detach().numpy().T + model.bias.detach().numpy()
    np.testing.assert_allclose(model(x).detach().numpy(), expected, rtol=1e-6)


def test_to_empty_takes_device_by_keyword_only():
    with pytest.raises(TypeError):
        nn.Linear(2, 2).to_empty("cpu")
