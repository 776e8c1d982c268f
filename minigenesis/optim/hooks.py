"""Optimizer hooks, as PyTorch's: functions an optimizer calls around ``step``, ``state_dict`` and
``load_state_dict``.

==========================================  ==============================================
registered with                             called as
==========================================  ==============================================
``opt.register_step_pre_hook``              ``hook(opt, args, kwargs)`` before each step;
``register_optimizer_step_pre_hook``        it may return ``(new_args, new_kwargs)``
(every optimizer; run before an             (``args`` starts with ``opt`` itself)
optimizer's own)
``opt.register_step_post_hook``,            ``hook(opt, args, kwargs)`` after each step
``register_optimizer_step_post_hook``       (an optimizer's own first, then the global ones)
``opt.register_state_dict_pre_hook``        ``hook(opt)`` before ``state_dict``
``opt.register_state_dict_post_hook``       ``hook(opt, state_dict)``; may return a new one
``opt.register_load_state_dict_pre_hook``   ``hook(opt, state_dict)`` on a shallow copy of
                                            the loaded dict; may return a new one
``opt.register_load_state_dict_post_hook``  ``hook(opt)`` after ``load_state_dict``
==========================================  ==============================================

Each ``register_*`` returns a :class:`RemovableHandle`. The step hooks cost nothing while there
are none: ``Optimizer.step`` itself never looks for them. Registering one wraps ``step`` (the
optimizer's own for its hooks, and while a global hook exists, every optimizer class's that
writes one) in :func:`run_hooked_step`; removing the last global hook unwraps the classes.
"""

from __future__ import annotations

import functools
import types
from collections import OrderedDict
from collections.abc import Callable
from itertools import chain
from typing import Any

from ..hook_handle import RemovableHandle, add_hook

_global_optimizer_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_optimizer_post_hooks: OrderedDict[int, Callable] = OrderedDict()
_wrapped_classes: dict[type, Callable] = {}  # class -> the step it wrote, while it is wrapped

_HOOK_DICTS = (
    "_optimizer_step_pre_hooks",
    "_optimizer_step_post_hooks",
    "_optimizer_state_dict_pre_hooks",
    "_optimizer_state_dict_post_hooks",
    "_optimizer_load_state_dict_pre_hooks",
    "_optimizer_load_state_dict_post_hooks",
)


def init_hook_dicts(optimizer: Any) -> None:
    """The optimizer's (empty) hook registries; kept by one that has them already (an unpickled
    optimizer gets empty ones: hooks are never saved)."""
    for name in _HOOK_DICTS:
        if name not in optimizer.__dict__:
            setattr(optimizer, name, OrderedDict())


# ---------------------------------------------------------------------- step hooks
def run_hooked_step(optimizer: Any, step: Callable, args: tuple, kwargs: dict) -> Any:
    """``step(optimizer, *args, **kwargs)`` between the pre- and post-hooks, global and the
    optimizer's own. A step called from inside a hooked one (``super().step()`` of an optimizer
    that writes its own, a wrapper's call) runs without them: hooks run once a step."""
    if optimizer.__dict__.get("_in_hooked_step"):
        return step(optimizer, *args, **kwargs)
    args = (optimizer, *args)
    own_pre = optimizer.__dict__.get("_optimizer_step_pre_hooks", {})
    for hook in list(chain(_global_optimizer_pre_hooks.values(), own_pre.values())):
        result = hook(optimizer, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(
                    f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                    f"{result}."
                )
            args, kwargs = result
    optimizer._in_hooked_step = True
    try:
        out = step(*args, **kwargs)
    finally:
        optimizer._in_hooked_step = False
    optimizer._opt_called = True  # (LRScheduler's check that the optimizer stepped first)
    own_post = optimizer.__dict__.get("_optimizer_step_post_hooks", {})
    for hook in list(chain(own_post.values(), _global_optimizer_post_hooks.values())):
        hook(optimizer, args, kwargs)
    return out


def _own_step(cls: type) -> Callable:
    """The ``step`` function the nearest class of ``cls``'s MRO writes, unwrapped."""
    for klass in cls.__mro__:
        if "step" in klass.__dict__:
            return _wrapped_classes.get(klass, klass.__dict__["step"])
    raise AttributeError(f"{cls.__name__} has no step")


def _instance_step(optimizer: Any, *args: Any, **kwargs: Any) -> Any:
    """An optimizer's ``step`` once it has step hooks of its own (bound on the instance)."""
    inner = optimizer.__dict__.get("_step_before_hooks")  # e.g. an LRScheduler's wrapper
    if inner is not None:
        return run_hooked_step(optimizer, lambda _, *a, **k: inner(*a, **k), args, kwargs)
    return run_hooked_step(optimizer, _own_step(type(optimizer)), args, kwargs)


def _hook_the_instance(optimizer: Any) -> None:
    current = optimizer.__dict__.get("step")
    if getattr(current, "__func__", None) is _instance_step:
        return
    if current is not None:
        optimizer._step_before_hooks = current
    optimizer.step = types.MethodType(_instance_step, optimizer)


def _wrap_class(cls: type) -> None:
    step = cls.__dict__["step"]

    @functools.wraps(step)
    def hooked_step(self: Any, *args: Any, **kwargs: Any) -> Any:
        return run_hooked_step(self, step, args, kwargs)

    _wrapped_classes[cls] = step
    cls.step = hooked_step  # type: ignore[attr-defined]


def _sync_class_wrappers() -> None:
    """While a global step hook exists, every Optimizer class that writes ``step`` runs it
    through run_hooked_step; once none is left, the classes get their own ``step`` back."""
    from .optimizer import Optimizer  # optimizer.py imports this module: not at the top

    if _global_optimizer_pre_hooks or _global_optimizer_post_hooks:
        todo, seen = [Optimizer], set()
        while todo:
            cls = todo.pop()
            if cls in seen:
                continue
            seen.add(cls)
            todo.extend(cls.__subclasses__())
            if "step" in cls.__dict__ and cls not in _wrapped_classes:
                _wrap_class(cls)
    else:
        for cls, step in list(_wrapped_classes.items()):
            cls.step = step  # type: ignore[attr-defined]
        _wrapped_classes.clear()


def on_new_optimizer_class(cls: type) -> None:
    """A class defined while a global step hook exists gets the wrapper too."""
    if (_global_optimizer_pre_hooks or _global_optimizer_post_hooks) and "step" in cls.__dict__:
        _wrap_class(cls)


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """A pre-hook of every optimizer's step: ``hook(optimizer, args, kwargs)``, returning None
    or ``(new_args, new_kwargs)``; it runs before an optimizer's own pre-hooks."""
    handle = add_hook(_global_optimizer_pre_hooks, hook, on_remove=_sync_class_wrappers)
    _sync_class_wrappers()
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """A post-hook of every optimizer's step: ``hook(optimizer, args, kwargs)``; it runs after
    an optimizer's own post-hooks."""
    handle = add_hook(_global_optimizer_post_hooks, hook, on_remove=_sync_class_wrappers)
    _sync_class_wrappers()
    return handle


class OptimizerHooks:
    """The ``register_*_hook`` methods of Optimizer (see the module docstring)."""

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(self, args, kwargs)`` before each ``step``; may return (new_args, new_kwargs)."""
        init_hook_dicts(self)
        _hook_the_instance(self)
        return add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(self, args, kwargs)`` after each ``step``."""
        init_hook_dicts(self)
        _hook_the_instance(self)
        return add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        """``hook(self)`` before ``state_dict`` builds the dict (``prepend``: run it first)."""
        init_hook_dicts(self)
        return add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        """``hook(self, state_dict)`` on the built dict; a dict it returns replaces it."""
        init_hook_dicts(self)
        return add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        """``hook(self, state_dict)`` before loading (a shallow copy of the caller's dict); a
        dict it returns is loaded instead."""
        init_hook_dicts(self)
        return add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        """``hook(self)`` after ``load_state_dict`` has loaded."""
        init_hook_dicts(self)
        return add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)


def state_dict_with_hooks(optimizer: Any, build: Callable[[], dict]) -> dict:
    """``build()`` between the state_dict pre-hooks and post-hooks."""
    for hook in list(optimizer.__dict__.get("_optimizer_state_dict_pre_hooks", {}).values()):
        hook(optimizer)
    state_dict = build()
    for hook in list(optimizer.__dict__.get("_optimizer_state_dict_post_hooks", {}).values()):
        result = hook(optimizer, state_dict)
        if result is not None:
            state_dict = result
    return state_dict


def load_pre_hooks(optimizer: Any, state_dict: Any) -> Any:
    """The dict to load: a shallow copy of ``state_dict`` passed through the load pre-hooks."""
    hooks = optimizer.__dict__.get("_optimizer_load_state_dict_pre_hooks")
    if not hooks or not isinstance(state_dict, dict):
        return state_dict
    state_dict = state_dict.copy()
    for hook in list(hooks.values()):
        result = hook(optimizer, state_dict)
        if result is not None:
            state_dict = result
    return state_dict


def load_post_hooks(optimizer: Any) -> None:
    for hook in list(optimizer.__dict__.get("_optimizer_load_state_dict_post_hooks", {}).values()):
        hook(optimizer)
