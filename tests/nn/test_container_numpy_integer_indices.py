"""Containers index by anything operator.index accepts, as PyTorch's do (loops over np.arange
index ModuleLists with NumPy integers)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


@pytest.mark.parametrize(
    "i", [np.int64(1), np.int32(-1), mg.tensor(1)], ids=["int64", "int32", "tensor"]
)
def test_module_list_sequential_parameter_list_take_numpy_and_tensor_integers(i) -> None:
    layers = [nn.ReLU(), nn.Tanh()]
    assert nn.ModuleList(layers)[i] is layers[1]
    assert nn.Sequential(*layers)[i] is layers[1]
    params = [nn.Parameter(mg.zeros(1)), nn.Parameter(mg.ones(2))]
    assert nn.ParameterList(params)[i].shape == (2,)
    ml = nn.ModuleList(layers)
    ml[i] = nn.Sigmoid()
    assert isinstance(ml[1], nn.Sigmoid)


def test_containers_refuse_a_float_index_with_type_error() -> None:
    with pytest.raises(TypeError, match="indices must be integers"):
        nn.ModuleList([nn.ReLU()])[1.0]
    with pytest.raises(IndexError):
        nn.ModuleList([nn.ReLU()])[np.int64(3)]
