"""PyTorch's legacy tensor types: ``mg.FloatTensor(2, 3)`` (an uninitialised tensor of that shape),
``mg.LongTensor([1, 2])`` (a tensor of that data), ``isinstance(x, mg.FloatTensor)`` (a CPU
tensor of dtype float32). There is one Tensor class: each type is a small class whose metaclass
answers the isinstance check by dtype and device, and whose constructor calls ``creation.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from ._tensor import Tensor
from .creation import empty, tensor
from .size import Size


class _LegacyTensorType(type):
    """The metaclass of ``mg.FloatTensor`` and friends: ``isinstance(x, mg.FloatTensor)`` asks
    whether ``x`` is a CPU tensor of dtype float32 (there is no separate class per dtype)."""

    legacy_dtype: _dt.DType

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.legacy_dtype and not obj.is_cuda

    def __repr__(cls) -> str:
        return f"<class 'minigenesis.{cls.__name__}'>"


class _LegacyTensor(metaclass=_LegacyTensorType):
    """``T(*sizes)``: an uninitialised tensor of that shape; ``T(data)``: a tensor of ``data``
    (a list, tuple, array or tensor), in the type's dtype, on the CPU. As ``torch.FloatTensor``."""

    legacy_dtype = _dt.float32

    def __new__(cls, *args: Any) -> Tensor:  # type: ignore[misc]
        dt = cls.legacy_dtype
        if not args:
            return empty(0, dtype=dt, device="cpu")
        if len(args) > 1 or isinstance(args[0], (int, np.integer, Size)):
            return empty(*args, dtype=dt, device="cpu")  # sizes (a Size counts as sizes)
        data = args[0]
        if isinstance(data, Tensor):
            if data.dtype is not dt:
                raise TypeError(
                    f"{cls.__name__}(tensor) needs a tensor of dtype {dt}, got {data.dtype}: "
                    f"use tensor.to({dt}) to convert"
                )
            return data
        if not isinstance(data, (tuple, list, np.ndarray)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return tensor(data, dtype=dt, device="cpu")


def _legacy(name: str, dtype: _dt.DType) -> type:
    return _LegacyTensorType(
        name, (_LegacyTensor,), {"legacy_dtype": dtype, "__module__": __name__}
    )


FloatTensor = _legacy("FloatTensor", _dt.float32)
DoubleTensor = _legacy("DoubleTensor", _dt.float64)
HalfTensor = _legacy("HalfTensor", _dt.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", _dt.bfloat16)
LongTensor = _legacy("LongTensor", _dt.int64)
IntTensor = _legacy("IntTensor", _dt.int32)
ShortTensor = _legacy("ShortTensor", _dt.int16)
CharTensor = _legacy("CharTensor", _dt.int8)
ByteTensor = _legacy("ByteTensor", _dt.uint8)
BoolTensor = _legacy("BoolTensor", _dt.bool_)
