"""Hooks on every module at once: PyTorch's ``register_module_forward_pre_hook`` and
``register_module_forward_hook`` (in ``torch.nn.modules.module``), handy to log or time every
layer of a model without touching it.

They run before the module's own hooks of the same kind: global pre-hooks, the module's
pre-hooks, ``forward``, global forward hooks, the module's forward hooks.

``Module.__call__`` skips all hook handling when a module has no hooks; so that the common case
pays nothing for this feature, ``Module.__call__`` is swapped for a hooked call only while a
global hook is registered, and swapped back when the last one is removed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..hook_handle import RemovableHandle, add_hook

GLOBAL_FORWARD_PRE_HOOKS: OrderedDict = OrderedDict()
GLOBAL_FORWARD_HOOKS: OrderedDict = OrderedDict()
GLOBAL_HOOK_FLAGS: dict = {}  # hook id -> (with_kwargs, always_call), as Module's _hook_flags

_plain_call: list = []  # Module.__call__ as defined, saved on the first swap


def _hooked_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``Module.__call__`` while global hooks exist: always take the path that runs hooks."""
    return self._call_with_hooks(args, kwargs)


def _sync_call() -> None:
    """Install the hooked call while any global hook exists, the plain one otherwise."""
    from .module import Module  # here, not at the top: module.py imports this file

    if not _plain_call:
        _plain_call.append(Module.__call__)
    active = bool(GLOBAL_FORWARD_PRE_HOOKS or GLOBAL_FORWARD_HOOKS)
    Module.__call__ = _hooked_call if active else _plain_call[0]  # type: ignore[method-assign]


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, args)`` before every module's forward; returning a value replaces args."""
    handle = add_hook(GLOBAL_FORWARD_PRE_HOOKS, hook, on_remove=_sync_call)
    _sync_call()
    return handle


def register_module_forward_hook(
    hook: Callable, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """``hook(module, args, output)`` after every module's forward; returning a value replaces
    the output. ``with_kwargs``/``always_call`` as in ``Module.register_forward_hook``."""
    handle = add_hook(GLOBAL_FORWARD_HOOKS, hook, on_remove=_sync_call)
    if with_kwargs or always_call:
        GLOBAL_HOOK_FLAGS[handle.id] = (with_kwargs, always_call)
    _sync_call()
    return handle


def forward_hooks_of(module: Any) -> tuple[list, list, dict]:
    """(pre-hooks, forward hooks, flags) that a call of ``module`` runs: global ones first."""
    flags = module.__dict__.get("_hook_flags", {})
    if not (GLOBAL_FORWARD_PRE_HOOKS or GLOBAL_FORWARD_HOOKS):
        return list(module._forward_pre_hooks.items()), list(module._forward_hooks.items()), flags
    pre = [*GLOBAL_FORWARD_PRE_HOOKS.items(), *module._forward_pre_hooks.items()]
    post = [*GLOBAL_FORWARD_HOOKS.items(), *module._forward_hooks.items()]
    return pre, post, {**GLOBAL_HOOK_FLAGS, **flags}
