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


def test_non_strict_load_returns_a_named_tuple_called_incompatible_keys() -> None:
    from minigenesis.nn.modules.module import _IncompatibleKeys

    model = nn.Linear(1, 1)
    result = model.load_state_dict({"weight": mg.zeros(1, 1), "extra": mg.zeros(1)}, strict=False)
    assert type(result) is _IncompatibleKeys and type(result).__name__ == "_IncompatibleKeys"
    missing, unexpected = result
    assert (missing, unexpected) == (["bias"], ["extra"])
    assert result._fields == ("missing_keys", "unexpected_keys")
