"""Compatibility shims: the few places where matching an existing API needs a Python trick.

Everything else in minigenesis is written the plain way. Each shim below exists because code
written for PyTorch (or for Genesis, whose API minigenesis follows) must run unchanged, and the
plain way cannot give that spelling. Each is explained once, here:

- ``PackageModule``: ``minigenesis.enable_autocast = True`` switches autocast on (Genesis). An
  assignment to a module attribute runs no code, so the ``minigenesis`` module object gets this
  class, whose ``enable_autocast`` is a property.
- ``function_as_module``: ``mg.utils.checkpoint(f, x)`` is a function call (Genesis), while
  PyTorch's spelling ``mg.utils.checkpoint.checkpoint(f, x)`` reads it as a module. A function
  cannot be a module, so the function carries the module's public functions as attributes.
- ``LRList``: ``scheduler.get_last_lr()`` is a list, one learning rate per param group, as in
  PyTorch; with one group it also formats as that number, so ``f"{get_last_lr():.6f}"`` (as in
  Genesis's scheduler examples) prints ``0.001000`` instead of raising.
- ``name_functions_where_published``: a wrapped function (``functools.wraps``) carries the
  inner function's names, under which pickle cannot find the wrapper; the package's public
  functions are renamed to where they are published, so they pickle as PyTorch's do.
  ``name_methods_where_published`` does the same for a class's methods (``Tensor.mul``).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any


# ------------------------------------------------------------------ minigenesis.enable_autocast
class PackageModule(types.ModuleType):
    """The class of the ``minigenesis`` module object: ``enable_autocast`` is a property, so
    ``minigenesis.enable_autocast = True`` turns autocast on for every thread at once (see
    ``amp.autocast_mode.set_autocast_globally``). The per-op check in ``Function.apply`` reads
    the setting directly and stays a single attribute read."""

    @property
    def enable_autocast(self) -> bool:
        # amp sits above this shim in the layers: reached only when the property is used
        from .amp.autocast_mode import autocast_enabled_globally

        return autocast_enabled_globally()

    @enable_autocast.setter
    def enable_autocast(self, value: bool) -> None:
        # amp sits above this shim in the layers: reached only when the property is used
        from .amp.autocast_mode import set_autocast_globally

        set_autocast_globally(bool(value))


def install_package_module_class(module: types.ModuleType) -> None:
    """Give the ``minigenesis`` module object the ``enable_autocast`` property (called once, by
    ``minigenesis/__init__.py``)."""
    module.__class__ = PackageModule


# ------------------------------------------------------------------ mg.utils.checkpoint
def function_as_module(function: Callable, *members: Callable) -> None:
    """Let ``function`` stand in for the module it lives in: ``function.<name>`` is each of
    ``members`` (the module's public functions, ``function`` itself included)."""
    for member in members:
        setattr(function, member.__name__, member)


# ------------------------------------------------------------------ scheduler.get_last_lr()
class LRList(list):
    """What ``get_last_lr()`` returns: a list with one learning rate per param group, as in
    PyTorch.

    With a single param group it also formats and converts like that one float, so both
    ``print(scheduler.get_last_lr())`` (``[0.001]``) and ``f"{scheduler.get_last_lr():.6f}"``
    (``0.001000``) work. Everything else is plain ``list`` behaviour.
    """

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        if len(self) != 1:
            raise TypeError(
                f"get_last_lr() holds {len(self)} learning rates (one per param group), so it "
                f"cannot be formatted as one number with {spec!r}: format an element, e.g. "
                f"f'{{lrs[0]:{spec}}}'"
            )
        return format(self[0], spec)

    def __float__(self) -> float:
        if len(self) != 1:
            raise TypeError(
                f"get_last_lr() holds {len(self)} learning rates (one per param group): take one "
                f"element, e.g. lrs[0], to get a float"
            )
        return float(self[0])

    def __reduce__(self):  # pickled (and saved) as a plain list, so safe loaders accept it
        return (list, (list(self),))


def name_functions_where_published(namespace: dict[str, Any], module_name: str) -> None:
    """Let pickle find every public function of ``namespace`` (a module's globals) by name.

    pickle saves a function as its ``__module__`` and ``__qualname__`` and, on saving, checks
    that looking those up gives the function back. A wrapper made with ``functools.wraps``
    (``out=``, PyTorch's ``input=`` keyword ...) carries the wrapped function's names, which
    lead to the inner function instead, so ``pickle.dumps(mg.stack)`` failed ("not the same
    object"), and with it a spawned DataLoader given ``collate_fn=mg.stack``, or a whole model
    saved with a ``torch.tanh`` attribute. Each such function is renamed to where it is
    published (``minigenesis.stack``); a function pickle already finds is left as it is."""
    for name, obj in list(namespace.items()):
        if name.startswith("_") or not isinstance(obj, types.FunctionType):
            continue
        if _found_by_name(obj) is not obj:
            obj.__module__, obj.__qualname__ = module_name, name


def name_methods_where_published(cls: type) -> None:
    """Let pickle find every method of ``cls`` by name, as ``pickle.dumps(torch.Tensor.add)``.

    A method made by a factory (``_augmented(...)``), wrapped (``functools.wraps``), or written
    once and assigned under several names (``mul`` and ``multiply``) carries a name that pickle
    cannot look up, or that leads to another object. Each such method is renamed
    ``<cls.__module__>.<cls.__qualname__>.<name>``: looked up there it is the same object (a
    method found through a base class too). A method pickle already finds keeps its name."""
    for name in dir(cls):
        obj = getattr(cls, name, None)
        if isinstance(obj, types.FunctionType) and _found_by_name(obj) is not obj:
            obj.__module__, obj.__qualname__ = cls.__module__, f"{cls.__qualname__}.{name}"


def _found_by_name(obj: Any) -> Any:
    """What pickle finds under ``obj``'s ``__module__`` and ``__qualname__`` (None if nothing)."""
    found = sys.modules.get(getattr(obj, "__module__", None) or "")
    for part in getattr(obj, "__qualname__", "").split("."):
        found = getattr(found, part, None)
    return found
