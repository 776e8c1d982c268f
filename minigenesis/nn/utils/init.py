"""``nn.utils.skip_init``: build a module without running its parameter initialisation.

The module is constructed on the meta device (its parameters have shapes, no data, so the
initialisers cost nothing) and then given uninitialised memory on the target device by
``to_empty``. Useful when every value is about to be overwritten anyway (a checkpoint, a custom
initialiser). The values are garbage until then, as in PyTorch."""

from __future__ import annotations

import inspect
from typing import Any

from ..module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Module:
    """``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialised on
    ``kwargs["device"]`` (the CPU by default). The class must accept a ``device`` argument."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
