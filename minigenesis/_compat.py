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
"""

from __future__ import annotations

import types
from collections.abc import Callable


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
