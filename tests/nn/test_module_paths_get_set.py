"""``get_parameter``, ``get_buffer`` and ``set_submodule``: a parameter, buffer or layer named by
its dotted path, as PyTorch's (errors: AttributeError for a wrong path or kind, ValueError for an
empty target or a value that is not a Module)."""

from __future__ import annotations

import pytest

from minigenesis import nn


def _net() -> nn.Sequential:
    return nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.BatchNorm1d(3), nn.ReLU()))


def test_get_parameter_and_buffer_by_path() -> None:
    net = _net()
    assert net.get_parameter("0.weight") is net[0].weight
    assert net.get_buffer("1.0.running_var") is net[1][0].running_var


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda n: n.get_parameter("1.0.running_mean"), "is not an nn.Parameter"),
        (lambda n: n.get_parameter("0.nope"), "Linear has no attribute `nope`"),
        (lambda n: n.get_buffer("0.weight"), "is not a buffer"),
        (lambda n: n.get_parameter("7.weight"), "7"),
        (lambda n: n.set_submodule("1.5", nn.Tanh(), strict=True), "no attribute `5`"),
        (lambda n: n.set_submodule("0.weight", nn.Tanh()), "`weight` is not an nn.Module"),
    ],
)
def test_wrong_paths_and_kinds_raise_attribute_error(call, message: str) -> None:
    with pytest.raises(AttributeError, match=message):
        call(_net())


def test_set_submodule_replaces_or_adds_a_layer() -> None:
    net = _net()
    tanh = nn.Tanh()
    net.set_submodule("1.1", tanh)
    assert net[1][1] is tanh
    net.set_submodule("1.2", nn.Linear(3, 1))
    assert [k for k in net.state_dict() if k.startswith("1.2")] == ["1.2.weight", "1.2.bias"]
    with pytest.raises(ValueError, match="without a target name"):
        net.set_submodule("", tanh)
    with pytest.raises(ValueError, match="is not an nn.Module"):
        net.set_submodule("1.1", 3)
