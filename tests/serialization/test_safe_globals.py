"""add_safe_globals / safe_globals: a user's class loads under weights_only=True once trusted,
as PyTorch's loader makes it (REDUCE, NEWOBJ + BUILD), and nothing else opens."""

from __future__ import annotations

import collections
import dataclasses
import enum
import io
import os
import pickle

import pytest
from pickle_asm import (
    BUILD,
    EMPTY_DICT,
    EMPTY_TUPLE,
    REDUCE,
    SETITEM,
    call,
    glob,
    integer,
    program,
    text,
    tup,
)

import minigenesis as mg
from minigenesis.serialization import UnsafeCheckpointError

S = mg.serialization


@dataclasses.dataclass
class Config:
    lr: float
    layers: list


class Color(enum.Enum):
    RED = 1
    GREEN = 2


Point = collections.namedtuple("Point", "x y")


class Stateful:
    """Pickles its state through __getstate__/__setstate__."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __getstate__(self):
        return {"twice": 2 * self.n}

    def __setstate__(self, state):
        self.n = state["twice"] // 2


class Other:
    def __init__(self) -> None:
        self.x = 1


class Shell:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.fixture(autouse=True)
def _no_user_globals_leak():
    S.clear_safe_globals()
    yield
    S.clear_safe_globals()


def roundtrip(obj, **kwargs):
    buf = io.BytesIO()
    mg.save(obj, buf)
    buf.seek(0)
    buf.name = "user.ckpt"
    return mg.load(buf, **kwargs)


def load_raw(raw: bytes):
    from pickle_asm import checkpoint_bytes

    f = io.BytesIO(checkpoint_bytes(raw))
    f.name = "crafted.ckpt"
    return mg.load(f)


def test_a_user_class_is_refused_until_it_is_allowed_for_a_block():
    ckpt = {"config": Config(0.1, [64, 32]), "w": mg.ones(2)}
    with pytest.raises(UnsafeCheckpointError, match=r"Config'.*add_safe_globals\(\[Config\]\)"):
        roundtrip(ckpt)
    with S.safe_globals([Config]):
        assert S.get_safe_globals() == [Config]
        out = roundtrip(ckpt)
    assert type(out["config"]) is Config and out["config"] == Config(0.1, [64, 32])
    assert out["w"].tolist() == [1.0, 1.0]
    assert S.get_safe_globals() == []  # the block's globals are gone again
    with pytest.raises(UnsafeCheckpointError, match="Config"):
        roundtrip(ckpt)


def test_add_safe_globals_lasts_until_cleared():
    S.add_safe_globals([Config, Color])
    out = roundtrip({"c": Config(1e-3, []), "color": Color.GREEN, "colors": [Color.RED]})
    assert out["c"] == Config(1e-3, []) and out["color"] is Color.GREEN
    assert out["colors"] == [Color.RED]
    assert S.get_safe_globals() == [Config, Color]
    S.clear_safe_globals()
    with pytest.raises(UnsafeCheckpointError):
        roundtrip({"c": Config(1e-3, [])})


def test_namedtuples_and_setstate_classes_load_as_the_trusted_unpickler_loads_them():
    obj = {"p": Point(1, mg.tensor([2.0])), "s": Stateful(21)}
    with S.safe_globals([Point, Stateful]):
        out = roundtrip(obj)
    trusted = roundtrip(obj, weights_only=False)
    for got in (out, trusted):
        assert type(got["p"]) is Point and got["p"].x == 1 and got["p"].y.tolist() == [2.0]
        assert type(got["s"]) is Stateful and got["s"].n == 21


def test_a_class_saved_under_another_name_is_allowed_by_that_name():
    # Other() as pickle writes it, but under the module path "old.place"
    raw = program(
        glob("old.place", "Other"),
        EMPTY_TUPLE,
        pickle.NEWOBJ,
        EMPTY_DICT,
        text("x"),
        integer(1),
        SETITEM,
        BUILD,
    )
    with pytest.raises(UnsafeCheckpointError, match="'old.place.Other'"):
        load_raw(raw)
    S.add_safe_globals([(Other, "old.place.Other")])
    assert S.get_safe_globals() == [(Other, "old.place.Other")]
    out = load_raw(raw)
    assert type(out) is Other and out.x == 1


def test_allowing_one_class_opens_nothing_else():
    S.add_safe_globals([Config])
    # another user class, an os.system payload, NumPy internals: still refused by name
    with pytest.raises(UnsafeCheckpointError, match="Other'"):
        roundtrip({"c": Config(0.1, []), "o": Other()})
    with pytest.raises(UnsafeCheckpointError, match="'posix.system'|'nt.system'"):
        load_raw(pickle.dumps(Shell(), protocol=5))
    # NEWOBJ and BUILD on anything but an allowed class are still refused
    with pytest.raises(UnsafeCheckpointError, match="opcode NEWOBJ is not allowed"):
        load_raw(program(glob("collections", "OrderedDict") + EMPTY_TUPLE + pickle.NEWOBJ))
    with pytest.raises(UnsafeCheckpointError, match="opcode BUILD is not allowed"):
        load_raw(program(call("collections", "OrderedDict"), EMPTY_DICT, BUILD))
    # the allowed class itself: its state must be a dict of str keys
    bad_state = program(glob(__name__, "Config"), EMPTY_TUPLE, pickle.NEWOBJ, tup(text("x")), BUILD)
    with pytest.raises(mg.CheckpointError, match="state of a Config must be a dict"):
        load_raw(bad_state)
    # the class object alone (never called) cannot reach the result
    with pytest.raises(mg.CheckpointError, match="a global that was never called"):
        load_raw(program(glob(__name__, "Config")))


def test_reduce_calls_an_allowed_function_and_only_that():
    S.add_safe_globals([len])
    assert load_raw(program(glob("builtins", "len"), tup(text("abc")), REDUCE)) == 3
    with pytest.raises(UnsafeCheckpointError, match="'builtins.getattr'"):
        load_raw(program(glob("builtins", "getattr"), tup(text("abc")), REDUCE))


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="wrap a single one in a list"):
        S.add_safe_globals(Config)
    with pytest.raises(TypeError, match=r"\(obj, 'module.name'\)"):
        S.add_safe_globals([(Config, 3)])
    with pytest.raises(TypeError, match="neither a class nor a function"):
        S.add_safe_globals([3])


def test_the_api_has_pytorchs_names():
    torch = pytest.importorskip("torch")
    for name in ("add_safe_globals", "safe_globals", "get_safe_globals", "clear_safe_globals"):
        assert callable(getattr(torch.serialization, name)) and callable(getattr(S, name))


def halve(x):
    return x / 2


class Head:
    def __init__(self) -> None:
        self.act = halve
        self.acts = [halve]
        self.table = {"f": halve}


def test_an_allowed_function_stored_as_a_value_loads_as_the_function_itself():
    with S.safe_globals([Head, halve]):
        out = roundtrip({"head": Head(), "fns": [halve]})
    head = out["head"]
    assert head.act is halve and head.table["f"] is halve and out["fns"] == [halve]
    assert head.acts == [halve]
    assert head.act(mg.tensor([3.0])).tolist() == [1.5]
    with S.safe_globals([Head]), pytest.raises(UnsafeCheckpointError, match="halve"):
        roundtrip(Head())


def test_a_whole_transformer_layer_with_a_function_activation_loads_and_computes_the_same():
    mg.manual_seed(0)
    layer = mg.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0).eval()
    x = mg.randn(3, 1, 8)
    with S.safe_globals(_module_globals(layer) + [mg.nn.functional.relu]):
        loaded = roundtrip(layer)
    assert loaded.activation is mg.nn.functional.relu
    assert mg.equal(loaded(x), layer(x))


def _module_globals(module) -> list:
    return sorted({type(m) for m in module.modules()}, key=lambda c: c.__qualname__)
