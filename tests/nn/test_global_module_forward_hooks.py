"""register_module_forward_pre_hook / register_module_forward_hook (torch.nn.modules.module):
hooks that run on every module's call, before the module's own hooks, until removed."""

import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn.modules.module import (
    Module,
    register_module_forward_hook,
    register_module_forward_pre_hook,
)


def test_global_hooks_run_on_every_module_before_its_own_hooks() -> None:
    log: list = []
    model = nn.Sequential(nn.ReLU())
    model.register_forward_pre_hook(lambda m, a: log.append("local pre"))
    model.register_forward_hook(lambda m, a, o: log.append("local"))
    pre = register_module_forward_pre_hook(lambda m, a: log.append(("pre", type(m).__name__)))
    post = register_module_forward_hook(lambda m, a, o: log.append(("fwd", type(m).__name__)))
    try:
        model(mg.ones(1))
    finally:
        pre.remove()
        post.remove()
    assert log == [
        ("pre", "Sequential"),
        "local pre",
        ("pre", "ReLU"),
        ("fwd", "ReLU"),
        ("fwd", "Sequential"),
        "local",
    ]
    log.clear()
    model(mg.ones(1))  # removed: only the module's own hooks run
    assert log == ["local pre", "local"]


def test_global_hooks_may_replace_arguments_and_output() -> None:
    pre = register_module_forward_pre_hook(lambda m, a: (a[0] * 2,))
    post = register_module_forward_hook(lambda m, a, o: o + 1)
    try:
        out = nn.Identity()(mg.tensor([3.0]))
    finally:
        pre.remove()
        post.remove()
    assert out.tolist() == [7.0]  # 3 * 2 + 1
    assert nn.Identity()(mg.tensor([3.0])).tolist() == [3.0]


def test_removing_the_last_global_hook_restores_the_plain_call() -> None:
    plain = Module.__call__
    handle = register_module_forward_hook(lambda m, a, o: None)
    assert Module.__call__ is not plain
    handle.remove()
    assert Module.__call__ is plain


def test_global_always_call_hook_runs_when_forward_raises() -> None:
    class Failing(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen: list = []
    handle = register_module_forward_hook(lambda m, a, o: seen.append(o), always_call=True)
    try:
        with pytest.raises(ValueError, match="boom"):
            Failing()(mg.ones(1))
    finally:
        handle.remove()
    assert seen == [None]


def test_always_call_hooks_run_when_a_pre_hook_raises() -> None:
    seen: list = []
    layer = nn.ReLU()
    layer.register_forward_pre_hook(lambda m, a: 1 / 0)
    layer.register_forward_hook(lambda m, a, o: seen.append(("own", o)), always_call=True)
    handle = register_module_forward_hook(
        lambda m, a, o: seen.append(("global", o)), always_call=True
    )
    try:
        with pytest.raises(ZeroDivisionError):
            layer(mg.ones(1))
    finally:
        handle.remove()
    assert seen == [("global", None), ("own", None)]


def test_always_call_hooks_after_a_failing_hook_run_once_with_the_output_so_far() -> None:
    calls: list = []

    def failing(m, a, o):
        raise ValueError("hook failed")

    layer = nn.Identity()
    layer.register_forward_hook(
        lambda m, a, o: calls.append(("first", o.tolist())), always_call=True
    )
    layer.register_forward_hook(failing)
    layer.register_forward_hook(
        lambda m, a, o: calls.append(("after", o.tolist())), always_call=True
    )
    with pytest.raises(ValueError, match="hook failed"):
        layer(mg.tensor([2.0]))
    assert calls == [("first", [2.0]), ("after", [2.0])]  # the first is not run again


def test_global_always_call_hook_with_kwargs_gets_no_kwargs_after_an_error_as_pytorch() -> None:
    class Failing(nn.Module):
        def forward(self, x, scale=1.0):
            raise ValueError("boom")

    seen: list = []
    handle = register_module_forward_hook(
        lambda m, *rest: seen.append(len(rest)), with_kwargs=True, always_call=True
    )
    try:
        with pytest.raises(ValueError, match="boom"):
            Failing()(mg.ones(1), scale=2.0)
    finally:
        handle.remove()
    assert seen == [2]  # (args, output): PyTorch drops the kwargs on this path


def test_an_always_call_hooks_own_error_after_a_forward_error_is_a_warning() -> None:
    class Failing(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    handle = register_module_forward_hook(lambda m, a, o: 1 / 0, always_call=True)
    try:
        with pytest.warns(UserWarning, match="global module forward hook with ``always_call"):
            with pytest.raises(ValueError, match="boom"):
                Failing()(mg.ones(1))
    finally:
        handle.remove()


def test_removing_a_global_hook_with_options_forgets_its_options_and_the_hooked_call() -> None:
    from minigenesis.nn import global_module_hooks

    plain = Module.__call__
    handle = register_module_forward_hook(lambda m, a, k, o: None, with_kwargs=True)
    assert global_module_hooks.GLOBAL_HOOK_FLAGS[handle.id] == (True, False)
    handle.remove()
    assert handle.id not in global_module_hooks.GLOBAL_HOOK_FLAGS
    assert Module.__call__ is plain
