"""The ``.to()`` shortcuts that Tensor and Module share: ``cuda() cpu() half() float() double()
bfloat16()``. Each is ``self.to(...)`` with one argument filled in; the class that mixes this in
provides ``to``."""

from __future__ import annotations

from typing import Any

from . import dtypes as _dt


class ToShortcuts:
    """Mixin: device and dtype shortcuts written once, on top of ``self.to``."""

    __slots__ = ()

    def to(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - provided by the class
        raise NotImplementedError

    def cuda(self, device: Any = None) -> Any:
        """``cuda()``, ``cuda(1)`` or ``cuda("cuda:1")``."""
        if device is None:
            return self.to("cuda")
        return self.to(f"cuda:{device}" if isinstance(device, int) else device)

    def cpu(self) -> Any:
        return self.to("cpu")

    def half(self) -> Any:
        return self.to(_dt.float16)

    def float(self) -> Any:
        return self.to(_dt.float32)

    def double(self) -> Any:
        return self.to(_dt.float64)

    def bfloat16(self) -> Any:
        return self.to(_dt.bfloat16)
