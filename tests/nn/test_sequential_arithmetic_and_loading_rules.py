"""Sequential's deletion renumbers its layers, ``+``/``*``/``pop`` build or shrink pipelines; a
BatchNorm checkpoint without ``num_batches_tracked`` and without a version loads (PyTorch's rule
for state saved before the counter existed); a name registered as one kind of attribute cannot be
registered as another."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


def _keys(m: nn.Module) -> list:
    return list(m.state_dict())


def _mlp() -> nn.Sequential:
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 4), nn.Tanh())


def test_deleting_a_layer_renumbers_the_rest_as_a_sequential_built_without_it() -> None:
    m = _mlp()
    first, last = m[0], m[2]
    del m[1]
    assert [n for n, _ in m.named_children()] == ["0", "1", "2"]
    assert _keys(m) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert m[0] is first and m[1] is last
    del m[0:2]
    assert [n for n, _ in m.named_children()] == ["0"] and isinstance(m[0], nn.Tanh)


def test_deleting_from_a_named_sequential_numbers_the_rest() -> None:
    m = nn.Sequential(OrderedDict(a=nn.Linear(2, 2), b=nn.ReLU(), c=nn.Linear(2, 1)))
    del m[1]
    assert _keys(m) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_pop_returns_the_layer_and_renumbers() -> None:
    m = _mlp()
    third = m[2]
    assert m.pop(2) is third
    assert [type(c).__name__ for c in m] == ["Linear", "ReLU", "Tanh"]
    assert [n for n, _ in m.named_children()] == ["0", "1", "2"]


def test_adding_and_repeating_sequentials() -> None:
    a, b = _mlp(), nn.Sequential(nn.Linear(4, 1))
    both = a + b
    assert len(both) == 5 and both[4] is b[0] and len(a) == 4
    x = mg.tensor(np.linspace(-1, 1, 6).reshape(3, 2), dtype=mg.float32)
    np.testing.assert_array_equal(both(x).detach().numpy(), b(a(x)).detach().numpy())
    twice = nn.Sequential(nn.Linear(2, 2)) * 2
    assert len(twice) == 2 and twice[0] is twice[1]  # the same layer: shared weights
    assert len(2 * nn.Sequential(nn.ReLU())) == 2
    a += b
    assert len(a) == 5 and _keys(a)[-2:] == ["4.weight", "4.bias"]
    c = nn.Sequential(nn.ReLU(), nn.Tanh())
    c *= 3
    assert [type(x).__name__ for x in c] == ["ReLU", "Tanh"] * 3


def test_sequential_arithmetic_refuses_other_operands() -> None:
    with pytest.raises(ValueError, match="only objects of Sequential class"):
        _mlp() + nn.ReLU()
    with pytest.raises(TypeError, match="unsupported operand"):
        _mlp() * 1.5
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        _mlp() * 0


def test_batchnorm_state_without_its_counter_loads_and_keeps_the_counter() -> None:
    source, target = nn.BatchNorm1d(3), nn.BatchNorm1d(3)
    source(mg.tensor(np.arange(12.0).reshape(4, 3), dtype=mg.float32))  # running stats move
    target.num_batches_tracked.fill_(5)
    state = {k: v for k, v in source.state_dict().items() if k != "num_batches_tracked"}
    result = target.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(target.running_mean.numpy(), source.running_mean.numpy())
    assert int(target.num_batches_tracked) == 5


def test_a_checkpoint_of_version_2_must_hold_the_counter() -> None:
    state = OrderedDict((k, v) for k, v in nn.BatchNorm1d(3).state_dict().items())
    del state["num_batches_tracked"]
    state._metadata = {"": {"version": 2}}  # what PyTorch's state_dict() records for BatchNorm
    with pytest.raises(RuntimeError, match='Missing key.*"num_batches_tracked"'):
        nn.BatchNorm1d(3).load_state_dict(state)
    state._metadata = {"": {"version": 1}}
    nn.BatchNorm1d(3).load_state_dict(state)


def test_other_missing_buffers_are_still_reported() -> None:
    state = dict(nn.BatchNorm1d(3).state_dict())
    del state["running_var"]
    with pytest.raises(RuntimeError, match='"running_var"'):
        nn.BatchNorm1d(3).load_state_dict(state)


@pytest.mark.parametrize(
    "register",
    [
        lambda m: m.register_buffer("weight", mg.zeros(1)),
        lambda m: m.add_module("bias", nn.ReLU()),
        lambda m: m.register_parameter("0", None),
    ],
)
def test_a_name_registered_as_another_kind_cannot_be_registered_again(register) -> None:
    m = nn.Linear(2, 2)
    m.add_module("0", nn.ReLU())
    with pytest.raises(KeyError, match="already exists"):
        register(m)
