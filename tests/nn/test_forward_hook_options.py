"""Forward hooks' options, as PyTorch's: ``with_kwargs`` (the hook sees, and a pre-hook may
replace, the keyword arguments), ``prepend`` (run before the hooks registered earlier) and
``always_call`` (run also when forward raises, with output None)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


class Scale(nn.Module):
    def forward(self, x, factor=1.0):
        if factor == 0:
            raise ValueError("factor 0")
        return x * factor


def test_pre_hook_with_kwargs_may_replace_the_keyword_arguments() -> None:
    seen = []

    def pre(module, args, kwargs):
        seen.append(dict(kwargs))
        return args, {"factor": kwargs["factor"] * 10}

    m = Scale()
    m.register_forward_pre_hook(pre, with_kwargs=True)
    out = m(mg.tensor([1.0, 2.0]), factor=3.0)
    np.testing.assert_array_equal(out.numpy(), [30.0, 60.0])
    assert seen == [{"factor": 3.0}]


def test_pre_hook_with_kwargs_must_return_args_and_kwargs() -> None:
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"tuple of \(new_args, new_kwargs\)"):
        m(mg.tensor([1.0]), factor=2.0)


def test_hook_with_kwargs_sees_them_and_may_replace_the_output() -> None:
    m = Scale()
    m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["factor"], with_kwargs=True)
    np.testing.assert_array_equal(m(mg.tensor([1.0]), factor=2.0).numpy(), [4.0])


def test_prepended_hooks_run_first() -> None:
    order = []
    m = Scale()
    m.register_forward_hook(lambda *a: order.append("first registered"))
    m.register_forward_hook(lambda *a: order.append("prepended"), prepend=True)
    m.register_forward_pre_hook(lambda *a: order.append("pre"))
    m.register_forward_pre_hook(lambda *a: order.append("pre, prepended"), prepend=True)
    m(mg.tensor([1.0]))
    assert order == ["pre, prepended", "pre", "prepended", "first registered"]


def test_always_call_hooks_run_when_forward_raises() -> None:
    calls = []
    m = Scale()
    m.register_forward_hook(lambda mod, args, out: calls.append(("always", out)), always_call=True)
    m.register_forward_hook(lambda mod, args, out: calls.append(("plain", out)))
    with pytest.raises(ValueError, match="factor 0"):
        m(mg.tensor([1.0]), factor=0)
    assert calls == [("always", None)]


def test_an_always_call_hook_failing_after_forward_failed_only_warns() -> None:
    def broken(mod, args, out):
        raise KeyError("in the hook")

    m = Scale()
    m.register_forward_hook(broken, always_call=True)
    with pytest.warns(UserWarning, match="always_call"), pytest.raises(ValueError, match="0"):
        m(mg.tensor([1.0]), factor=0)


def test_removing_a_hook_with_options() -> None:
    m = Scale()
    handle = m.register_forward_hook(lambda mod, a, k, out: out * 0, with_kwargs=True)
    handle.remove()
    np.testing.assert_array_equal(m(mg.tensor([2.0])).numpy(), [2.0])
