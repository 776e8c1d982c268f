"""ParameterDict's dict methods (as PyTorch's): copy (the same parameters), setdefault, popitem
(the last inserted), fromkeys, and ``|`` / ``|=`` merges; the parameters stay registered."""

from __future__ import annotations

import pytest

import minigenesis as mg
from minigenesis import nn


def _d() -> nn.ParameterDict:
    return nn.ParameterDict({"a": nn.Parameter(mg.ones(1)), "b": nn.Parameter(mg.zeros(2))})


def test_copy_holds_the_same_parameters() -> None:
    d = _d()
    c = d.copy()
    assert list(c.keys()) == ["a", "b"] and c["a"] is d["a"]
    del c["a"]
    assert "a" in d


def test_setdefault_keeps_an_existing_entry_and_adds_a_new_one() -> None:
    d = _d()
    a = d["a"]
    assert d.setdefault("a", nn.Parameter(mg.zeros(3))) is a
    z = nn.Parameter(mg.zeros(3))
    assert d.setdefault("z", z) is z
    assert [n for n, _ in d.named_parameters()] == ["a", "b", "z"]


def test_popitem_removes_the_last_inserted_entry() -> None:
    d = _d()
    b = d["b"]
    assert d.popitem() == ("b", b)
    assert list(d.keys()) == ["a"] and [n for n, _ in d.named_parameters()] == ["a"]
    d.popitem()
    with pytest.raises(KeyError):
        d.popitem()


def test_fromkeys_and_merges() -> None:
    d = _d()
    shared = nn.Parameter(mg.ones(4))
    f = d.fromkeys(["x", "y"], shared)
    assert list(f.keys()) == ["x", "y"] and f["x"] is shared and f["y"] is shared
    merged = d | nn.ParameterDict({"b": nn.Parameter(mg.ones(5)), "q": nn.Parameter(mg.ones(1))})
    assert list(merged.keys()) == ["a", "b", "q"] and merged["b"].shape == (5,)
    assert list(d.keys()) == ["a", "b"] and d["b"].shape == (2,)
    d |= nn.ParameterDict({"r": nn.Parameter(mg.ones(1))})
    assert [n for n, _ in d.named_parameters()] == ["a", "b", "r"]
