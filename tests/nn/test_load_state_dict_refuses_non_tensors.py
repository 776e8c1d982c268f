"""Module.load_state_dict takes tensors only: a list, a number or a NumPy array as a value is an
error (RuntimeError naming the key and the type, as PyTorch's), in strict and non-strict mode,
and nothing is copied."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


@pytest.mark.parametrize("value", [[[1.0, 2.0], [3.0, 4.0]], 3.0, np.ones((2, 2))])
@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_refuses_values_that_are_not_tensors(value, strict):
    m = nn.Linear(2, 2)
    before = m.weight.detach().clone()
    sd = m.state_dict()
    sd["weight"] = value
    sd["bias"] = mg.zeros(2)
    with pytest.raises(RuntimeError, match=r'parameter named "weight".* received <class'):
        m.load_state_dict(sd, strict=strict)
    assert mg.equal(m.weight.detach(), before)
    assert not mg.equal(m.bias.detach(), mg.zeros(2))  # nothing copied, the bias neither


def test_load_state_dict_refuses_a_list_for_a_buffer():
    m = nn.BatchNorm1d(2)
    sd = m.state_dict()
    sd["running_mean"] = [0.5, 0.5]
    with pytest.raises(RuntimeError, match='"running_mean".* received <class .list.>'):
        m.load_state_dict(sd)
