"""``mg.utils.hooks``: RemovableHandle by PyTorch's import path is the handle hooks return, and
``warn_if_has_hooks`` warns once per gradient hook not marked ``unserializable_hook``."""

from __future__ import annotations

import warnings

import pytest

import minigenesis as mg
from minigenesis.utils.hooks import RemovableHandle, unserializable_hook, warn_if_has_hooks


def test_removable_handle_is_what_register_forward_hook_returns_and_removes_it():
    layer = mg.nn.Linear(2, 2)
    calls = []
    handle = layer.register_forward_hook(lambda *a: calls.append(1))
    assert isinstance(handle, RemovableHandle) and mg.utils.hooks.RemovableHandle is RemovableHandle
    layer(mg.zeros(1, 2))
    handle.remove()
    layer(mg.zeros(1, 2))
    assert calls == [1]


def test_warn_if_has_hooks_names_each_unmarked_hook_on_leaves_and_outputs():
    leaf = mg.ones(2, requires_grad=True)
    out = leaf * 2
    out.retain_grad()  # retain_grad's own hook is not the user's: no warning for it

    def plain(g):
        return g

    marked = unserializable_hook(lambda g: g)
    assert marked.__torch_unserializable__ is True
    for t in (leaf, out):
        t.register_hook(plain)
        t.register_hook(marked)
        with pytest.warns(UserWarning, match="will not be serialized") as record:
            warn_if_has_hooks(t)
        assert len(record) == 1 and "plain" in str(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_has_hooks(mg.ones(2, requires_grad=True))  # no hooks: silent
