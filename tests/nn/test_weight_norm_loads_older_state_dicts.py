"""``nn.utils.parametrizations.weight_norm`` loads a state dict saved from the older
``nn.utils.weight_norm`` (keys ``weight_g``, ``weight_v``), as PyTorch's does: the keys are
renamed to ``parametrizations.weight.original0/1`` and the weight is the same g v / ||v||."""

import copy

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.nn.utils import parametrizations


def _old_style_state_dict():
    lin = mg.nn.Linear(4, 3)
    with pytest.warns(FutureWarning):
        lin = mg.nn.utils.weight_norm(lin, dim=0)
    return lin.state_dict()


def test_new_weight_norm_loads_g_and_v_keys_of_the_old_one():
    sd = _old_style_state_dict()
    g, v = sd["weight_g"].numpy(), sd["weight_v"].numpy()
    new = parametrizations.weight_norm(mg.nn.Linear(4, 3), dim=0)
    result = new.load_state_dict(sd)
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    expect = g * v / np.linalg.norm(v.astype(np.float64), axis=1, keepdims=True)
    np.testing.assert_allclose(new.weight.detach().numpy(), expect, rtol=1e-6)
    np.testing.assert_array_equal(new.parametrizations.weight.original0.detach().numpy(), g)


def test_nested_module_with_new_weight_norm_loads_old_keys_under_its_prefix():
    old = mg.nn.Sequential(mg.nn.Linear(4, 3))
    with pytest.warns(FutureWarning):
        mg.nn.utils.weight_norm(old[0])
    new = mg.nn.Sequential(parametrizations.weight_norm(mg.nn.Linear(4, 3)))
    new.load_state_dict(old.state_dict())
    np.testing.assert_allclose(
        new[0].weight.detach().numpy(), old[0].weight.detach().numpy(), rtol=1e-6
    )


def test_a_deep_copy_keeps_loading_old_keys():
    m = copy.deepcopy(parametrizations.weight_norm(mg.nn.Linear(4, 3)))
    sd = _old_style_state_dict()
    m.load_state_dict(sd)
    np.testing.assert_array_equal(
        m.parametrizations.weight.original1.detach().numpy(), sd["weight_v"].numpy()
    )
