"""``mg._dynamo.config`` (``torch._dynamo.config``): the settings programs change around
``torch.compile``, with PyTorch's defaults. Setting one stores it (``suppress_errors = True``
reads back True); a name PyTorch does not have raises AttributeError, as there, so a typo is not
silently kept. ``cache_size_limit`` is the older name of ``recompile_limit`` (one setting, two
names), and ``accumulated_cache_size_limit`` of ``accumulated_recompile_limit``.
``patch(...)`` sets some for a ``with`` block or a decorated function and restores them after.
Nothing is compiled here (see ``compiler.py``), so no setting changes a result."""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator
from typing import Any

# name -> PyTorch 2.13's default
_DEFAULTS: dict[str, Any] = {
    "suppress_errors": False,
    "verbose": False,
    "recompile_limit": 8,
    "accumulated_recompile_limit": 256,
    "capture_scalar_outputs": False,
    "capture_dynamic_output_shape_ops": False,
    "optimize_ddp": True,
    "automatic_dynamic_shapes": True,
    "assume_static_by_default": True,
    "specialize_int": False,
    "error_on_recompile": False,
    "guard_nn_modules": True,
    "force_parameter_static_shapes": True,
    "inline_inbuilt_nn_modules": True,
    "cache_size_limit": 8,
    "accumulated_cache_size_limit": 256,
}
_ALIASES = {
    "cache_size_limit": "recompile_limit",
    "accumulated_cache_size_limit": "accumulated_recompile_limit",
}
_values: dict[str, Any] = {n: v for n, v in _DEFAULTS.items() if n not in _ALIASES}


def _get(name: str) -> Any:
    return _values[_ALIASES.get(name, name)]


def _set(name: str, value: Any) -> None:
    if name not in _DEFAULTS:
        raise AttributeError(f"torch._dynamo.config.{name} does not exist")
    _values[_ALIASES.get(name, name)] = value


class _ConfigModule(types.ModuleType):
    """This module's class: its settings are read from and written to ``_values``."""

    def __getattr__(self, name: str) -> Any:  # only for names the module itself lacks
        if name in _DEFAULTS:
            return _get(name)
        raise AttributeError(f"torch._dynamo.config.{name} does not exist")

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") or name in vars(self):
            super().__setattr__(name, value)
        else:
            _set(name, value)


def _changes(arg1: str | dict[str, Any] | None, arg2: Any, kwargs: dict[str, Any]) -> dict:
    """``patch``'s three spellings, as PyTorch takes them: ``patch("name", value)``,
    ``patch({"name": value})`` and ``patch(name=value)``."""
    if arg1 is not None and kwargs:
        raise AssertionError("cannot pass both positional and keyword arguments to patch")
    if arg2 is not None:  # patch("name", value)
        if not isinstance(arg1, str):
            raise AssertionError(
                "first argument must be a string when passing 2 positional args to patch"
            )
        return {arg1: arg2}
    if arg1 is not None:  # patch({"name": value})
        if not isinstance(arg1, dict):
            raise AssertionError(
                "first argument must be a dict when passing a single positional arg to patch"
            )
        return dict(arg1)
    return dict(kwargs)


@contextlib.contextmanager
def _patched(changes: dict[str, Any]) -> Iterator[None]:
    before = {name: _get(name) for name in changes if name in _DEFAULTS}
    try:
        for name, value in changes.items():
            _set(name, value)
        yield
    finally:
        for name, value in before.items():
            _set(name, value)


class _Patch(contextlib.ContextDecorator):
    """What ``patch`` returns: a context manager, or a decorator whose function runs with the
    settings changed. Entering it again (nested, or in each call) sets them again."""

    def __init__(self, changes: dict[str, Any]) -> None:
        self._changes = changes
        self._active: list[contextlib.AbstractContextManager] = []

    def __enter__(self) -> None:
        context = _patched(self._changes)
        context.__enter__()
        self._active.append(context)

    def __exit__(self, *exc: Any) -> None:
        self._active.pop().__exit__(*exc)


def patch(arg1: str | dict[str, Any] | None = None, arg2: Any = None, **kwargs: Any) -> _Patch:
    """Settings changed for a ``with`` block or a decorated function, restored after (an unknown
    name raises AttributeError when the block is entered, as in PyTorch)."""
    return _Patch(_changes(arg1, arg2, kwargs))


def get_config_copy() -> dict[str, Any]:
    """Every setting by name (aliases included), as a new dict."""
    return {name: _get(name) for name in _DEFAULTS}


# this module reads and writes its settings through _ConfigModule (as PyTorch's config module
# does); the change is to this module object only, which loads when first used
sys.modules[__name__].__class__ = _ConfigModule
