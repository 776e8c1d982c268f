"""Hooks on every module at once (PyTorch's ``torch.nn.modules.module.register_module_*``),
handy to log or time every layer of a model without touching it:

- ``register_module_forward_pre_hook`` / ``register_module_forward_hook``: as a module's own
  forward (pre-)hooks;
- ``register_module_full_backward_pre_hook`` / ``register_module_full_backward_hook``: as a
  module's own full backward hooks (the same identity-node bracket, ``backward_hooks.py``);
- ``register_module_{parameter,buffer,module}_registration_hook``: ``hook(module, name,
  value)`` whenever a parameter, buffer or child module is registered (``register_parameter``,
  ``register_buffer``, ``add_module`` or an assignment ``module.name = value``); returning a
  value registers that value instead.

Global hooks run before the module's own hooks of the same kind: global pre-hooks, the module's
pre-hooks, ``forward``, global forward hooks, the module's forward hooks (and in backward:
global backward pre-hooks, the module's, ..., global backward hooks, the module's).

``Module.__call__`` skips all hook handling when a module has no hooks; so that the common case
pays nothing for this feature, ``Module.__call__`` is swapped for a hooked call only while a
global forward or backward hook is registered, and swapped back when the last one is removed.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..hook_handle import RemovableHandle, add_hook

GLOBAL_FORWARD_PRE_HOOKS: OrderedDict = OrderedDict()
GLOBAL_FORWARD_HOOKS: OrderedDict = OrderedDict()
GLOBAL_HOOK_FLAGS: dict = {}  # hook id -> (with_kwargs, always_call), as Module's _hook_flags
GLOBAL_BACKWARD_PRE_HOOKS: OrderedDict = OrderedDict()
GLOBAL_BACKWARD_HOOKS: OrderedDict = OrderedDict()
GLOBAL_NON_FULL_BACKWARD_HOOKS: OrderedDict = OrderedDict()  # register_module_backward_hook
# registration hooks (read by Module's registration paths: one truth test when empty)
PARAMETER_REGISTRATION_HOOKS: OrderedDict = OrderedDict()
BUFFER_REGISTRATION_HOOKS: OrderedDict = OrderedDict()
MODULE_REGISTRATION_HOOKS: OrderedDict = OrderedDict()

_plain_call: list = []  # Module.__call__ as defined, saved on the first swap


def _hooked_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``Module.__call__`` while global hooks exist: always take the path that runs hooks."""
    return self._call_with_hooks(args, kwargs)


def _sync_call() -> None:
    """Install the hooked call while any global hook exists, the plain one otherwise."""
    from .module import Module  # here, not at the top: module.py imports this file

    if not _plain_call:
        _plain_call.append(Module.__call__)
    active = bool(
        GLOBAL_FORWARD_PRE_HOOKS
        or GLOBAL_FORWARD_HOOKS
        or GLOBAL_BACKWARD_PRE_HOOKS
        or GLOBAL_BACKWARD_HOOKS
        or GLOBAL_NON_FULL_BACKWARD_HOOKS
    )
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

    def forget() -> None:  # on remove(): its flags go too
        GLOBAL_HOOK_FLAGS.pop(handle.id, None)
        _sync_call()

    handle = add_hook(GLOBAL_FORWARD_HOOKS, hook, on_remove=forget)
    if with_kwargs or always_call:
        GLOBAL_HOOK_FLAGS[handle.id] = (with_kwargs, always_call)
    _sync_call()
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_output)`` in every module's backward, before the module's own
    backward pre-hooks; returning a tuple replaces grad_output."""
    handle = add_hook(GLOBAL_BACKWARD_PRE_HOOKS, hook, on_remove=_sync_call)
    _sync_call()
    return handle


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` in every module's backward, before the module's
    own full backward hooks; returning a tuple replaces grad_input."""
    if GLOBAL_NON_FULL_BACKWARD_HOOKS:
        raise RuntimeError(_BOTH_GLOBAL)
    handle = add_hook(GLOBAL_BACKWARD_HOOKS, hook, on_remove=_sync_call)
    _sync_call()
    return handle


_BOTH_GLOBAL = (
    "Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
    "Please use only one of them."
)


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    """The older kind (``Module.register_backward_hook``, ``legacy_backward_hooks.py``) on every
    module, before the module's own; refused while global full backward hooks exist."""
    if GLOBAL_BACKWARD_HOOKS:
        raise RuntimeError(_BOTH_GLOBAL)
    handle = add_hook(GLOBAL_NON_FULL_BACKWARD_HOOKS, hook, on_remove=_sync_call)
    _sync_call()
    return handle


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, param)`` each time a module registers a parameter (not None);
    returning a value registers it instead."""
    return add_hook(PARAMETER_REGISTRATION_HOOKS, hook)


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, buffer)`` each time a module registers a buffer (None included);
    returning a value registers it instead."""
    return add_hook(BUFFER_REGISTRATION_HOOKS, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, submodule)`` each time a module registers a child (None included);
    returning a value registers it instead."""
    return add_hook(MODULE_REGISTRATION_HOOKS, hook)


def run_registration_hooks(hooks: OrderedDict, module: Any, name: str, value: Any) -> Any:
    """The value to register after each hook saw it (a hook's non-None return replaces it)."""
    for hook in list(hooks.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def backward_hooks_of(module: Any) -> tuple[list, list]:
    """(backward pre-hooks, full backward hooks) a call of ``module`` brackets: global first."""
    d = module.__dict__
    pre = [*GLOBAL_BACKWARD_PRE_HOOKS.values(), *d.get("_backward_pre_hooks", {}).values()]
    return pre, [*GLOBAL_BACKWARD_HOOKS.values(), *d.get("_backward_hooks", {}).values()]


def forward_hooks_of(module: Any) -> tuple[list, list, dict]:
    """(pre-hooks, forward hooks, flags) that a call of ``module`` runs: global ones first."""
    flags = module.__dict__.get("_hook_flags", {})
    if not (GLOBAL_FORWARD_PRE_HOOKS or GLOBAL_FORWARD_HOOKS):
        return list(module._forward_pre_hooks.items()), list(module._forward_hooks.items()), flags
    pre = [*GLOBAL_FORWARD_PRE_HOOKS.items(), *module._forward_pre_hooks.items()]
    post = [*GLOBAL_FORWARD_HOOKS.items(), *module._forward_hooks.items()]
    return pre, post, {**GLOBAL_HOOK_FLAGS, **flags}


def run_always_call_hooks(module: Any, hooks: list, flags: dict, called: set, call: tuple) -> None:
    """After an error in a module's call: the ``always_call`` forward hooks that have not run
    yet, in order, each with the output so far (None when forward raised; a hook's return
    replaces it). As PyTorch's, a global one is called ``hook(module, args, output)`` even when
    registered ``with_kwargs``; an error of a hook becomes a warning (the call's error is
    raised)."""
    args, kwargs, output = call
    for key, hook in hooks:
        with_kwargs, always_call = flags.get(key, (False, False))
        if not always_call or key in called:
            continue
        is_global = key in GLOBAL_FORWARD_HOOKS
        try:
            if with_kwargs and not is_global:
                result = hook(module, args, kwargs, output)
            else:
                result = hook(module, args, output)
            if result is not None:
                output = result
        except Exception as err:
            warnings.warn(
                f"{'global module' if is_global else 'module'} forward hook with "
                "``always_call=True`` raised an exception that was silenced as another error "
                f"was raised in forward: {err}",
                stacklevel=3,
            )
