"""Module methods about memory: memory formats (``to(memory_format=...)``). A mixin of
``Module`` (``module.py``)."""

from __future__ import annotations

from typing import Any

from ..backend import device_of, module_for
from ..memory_format import as_format, check_format


class ModuleMemory:
    """Mixin of Module: the memory-format half of ``to``."""

    def _to_memory_format(self, fmt: Any) -> None:
        """``to(memory_format=fmt)``: the 4-d and 5-d parameters, buffers and gradients laid out
        in ``fmt`` (the others stay as they are, as in PyTorch)."""
        fmt = check_format(fmt, "Module.to")

        def relayout(a: Any) -> Any:
            return as_format(module_for(device_of(a)), a, fmt) if a.ndim in (4, 5) else a

        self._convert(relayout, floating_only=False)
