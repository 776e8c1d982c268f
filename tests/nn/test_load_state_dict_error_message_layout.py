"""The RuntimeError of a strict load_state_dict lists its problems as PyTorch does: missing
keys, then unexpected keys, then size mismatches (with the shapes as Size objects)."""

import pytest

import minigenesis as mg
from minigenesis import nn


def test_strict_load_error_lists_missing_then_unexpected_then_size_mismatches() -> None:
    model = nn.Sequential(nn.Linear(2, 3))
    state = dict(model.state_dict())
    del state["0.weight"]
    state["zz"] = mg.zeros(1)
    state["0.bias"] = mg.zeros(7)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(state)
    assert str(info.value).split("\n") == [
        "Error(s) in loading state_dict for Sequential:",
        '\tMissing key(s) in state_dict: "0.weight". ',
        '\tUnexpected key(s) in state_dict: "zz". ',
        "\tsize mismatch for 0.bias: copying a param with shape minigenesis.Size([7]) from "
        "checkpoint, the shape in current model is minigenesis.Size([3]).",
    ]
