"""What Tensor and Module share about ``.to()``: how its arguments are read (``parse_to_args``) and
the shortcuts ``cuda() cpu() half() float() double() bfloat16()``, each ``self.to(...)`` with one
argument filled in; the class that mixes ``ToShortcuts`` in provides ``to``."""

from __future__ import annotations

from typing import Any

from . import dtypes as _dt


def parse_to_args(owner: str, args: tuple, kwargs: dict, allow_copy: bool = False) -> tuple:
    """Read ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)`` and the keywords
    ``dtype=``, ``device=``, ``non_blocking=`` (ignored), ``copy=`` (where allowed).

    Returns (dtype or None, device or None, copy). ``owner`` names the method in errors."""
    from .tensor import Tensor  # the layer above; imported when called, never at import time

    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False) if allow_copy else False
    if kwargs:
        raise TypeError(f"{owner}() got unexpected arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            dtype, dev = a.dtype, a.device
        elif (
            isinstance(a, _dt.DType)
            or a in (float, int, bool)
            or (isinstance(a, str) and a in _dt._BY_NAME)
        ):
            dtype = a
        else:
            dev = a
    return dtype, dev, copy


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
