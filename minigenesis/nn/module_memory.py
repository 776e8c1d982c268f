"""Module methods about memory: uninitialised copies on a device (``to_empty``) and memory
formats (``to(memory_format=...)``). A mixin of ``Module`` (``module.py``)."""

from __future__ import annotations

from typing import Any

from ..backend import as_device, device_of, module_for
from ..memory_format import as_format, check_format, empty_like_as, preserve_format


class ModuleMemory:
    """Mixin of Module: ``to_empty`` and the memory-format half of ``to``."""

    def to_empty(self, *, device: Any, recurse: bool = True) -> Any:
        """Give every parameter, buffer and gradient new, UNINITIALISED memory of the same
        shape, dtype and strides on ``device`` (PyTorch's ``empty_like`` of each), keeping the
        Parameter objects; ``recurse=False`` touches this module's own tensors only. Used to
        materialise a model whose values an initialiser or a checkpoint fills in next."""
        dev = as_device(device)
        xp = module_for(dev)  # a clear error for "cuda" without CuPy or a GPU

        def empty(a: Any) -> Any:
            if device_of(a) == dev:
                return empty_like_as(xp, a, a.dtype, preserve_format)
            return xp.empty(a.shape, a.dtype)

        for m in self.modules() if recurse else [self]:
            for t in [*m._parameters.values(), *m._buffers.values()]:
                if t is None:
                    continue
                t._data = empty(t._data)
                t._bump_version()
                if t._grad is not None:
                    t._grad._data = empty(t._grad._data)
        return self

    def _to_memory_format(self, fmt: Any) -> None:
        """``to(memory_format=fmt)``: the 4-d and 5-d parameters, buffers and gradients laid out
        in ``fmt`` (the others stay as they are, as in PyTorch)."""
        fmt = check_format(fmt, "Module.to")

        def relayout(a: Any) -> Any:
            return as_format(module_for(device_of(a)), a, fmt) if a.ndim in (4, 5) else a

        self._convert(relayout, floating_only=False)
