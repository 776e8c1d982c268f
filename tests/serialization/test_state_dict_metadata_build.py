"""The weights-only loader sets a state_dict's ``_metadata`` (BUILD on an OrderedDict with exactly
that one key holding a dict) and nothing else on an OrderedDict."""

import io

import pytest
from pickle_asm import (
    APPEND,
    BUILD,
    EMPTY_DICT,
    EMPTY_LIST,
    SETITEM,
    binget,
    binput,
    call,
    checkpoint_bytes,
    glob,
    integer,
    program,
    text,
)

import minigenesis as mg
from minigenesis.serialization import CheckpointError, UnsafeCheckpointError


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


def _metadata_holding(*value: bytes) -> bytes:
    """An OrderedDict (memo 0) whose ``_metadata`` is ``{"a": value}``."""
    return program(
        call("collections", "OrderedDict"), binput(0), EMPTY_DICT, text("_metadata"),
        EMPTY_DICT, text("a"), *value, SETITEM, SETITEM, BUILD,
    )  # fmt: skip


def test_metadata_is_checked_like_the_rest_of_the_result():
    """What BUILD puts in ``_metadata`` passes the same result check as the dict's values: an
    allow-listed global that was never called, the state dict itself (a cycle) and nesting past
    MAX_DEPTH are refused instead of reaching the caller."""
    with pytest.raises(CheckpointError, match="a global that was never called"):
        _load(_metadata_holding(glob("builtins", "set")))
    with pytest.raises(CheckpointError, match="reference cycle"):
        _load(_metadata_holding(binget(0)))
    deep = EMPTY_LIST * 150 + APPEND * 149
    with pytest.raises(CheckpointError, match="nest deeper than"):
        _load(_metadata_holding(deep))
    loaded = _load(_metadata_holding(EMPTY_DICT, text("version"), integer(2), SETITEM))
    assert loaded._metadata == {"a": {"version": 2}}
