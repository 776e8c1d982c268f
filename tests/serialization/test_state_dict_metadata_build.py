"""The weights-only loader sets a state_dict's ``_metadata`` (BUILD on an OrderedDict with exactly
that one key holding a dict) and nothing else on an OrderedDict."""

import io

import pytest
from pickle_asm import BUILD, EMPTY_DICT, SETITEM, call, checkpoint_bytes, integer, program, text

import minigenesis as mg
from minigenesis.serialization import UnsafeCheckpointError


def _load(raw: bytes):
    f = io.BytesIO(checkpoint_bytes(raw))
    f.name = "crafted.ckpt"
    return mg.load(f)


def _ordered_dict_built_with(*state: bytes) -> bytes:
    return program(call("collections", "OrderedDict"), EMPTY_DICT, *state, BUILD)


def test_build_sets_a_state_dicts_metadata():
    raw = _ordered_dict_built_with(text("_metadata"), EMPTY_DICT, SETITEM)
    assert _load(raw)._metadata == {}


def test_build_refuses_any_other_attribute_of_an_ordered_dict():
    with pytest.raises(UnsafeCheckpointError, match="opcode BUILD is not allowed"):
        _load(_ordered_dict_built_with(text("__class__"), EMPTY_DICT, SETITEM))
    with pytest.raises(UnsafeCheckpointError, match="opcode BUILD is not allowed"):
        _load(_ordered_dict_built_with(text("_metadata"), integer(1), SETITEM))
