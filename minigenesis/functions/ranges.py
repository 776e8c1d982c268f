"""``mg.arange``, ``mg.linspace`` and ``mg.logspace`` with PyTorch's ``out=``: the range is
computed in ``out``'s dtype (unless ``dtype=`` names the same one; another is refused, as
PyTorch refuses it) and written into ``out``, resized to the range's length.

The ranges themselves live in creation.py, which sits beside out_arg.py and so cannot take the
keyword there; these forms add it one layer up."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import creation
from .. import dtypes as _dt
from .._tensor import Tensor
from ..out_arg import write_out


def _with_range_out(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``fn`` (a range of creation.py) with ``out=``: dtype from ``out`` unless given, then
    written into it."""
    name = fn.__name__

    @functools.wraps(fn)
    def call(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
        if out is None:
            return fn(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        dtype = kwargs.get("dtype")
        if dtype is not None and _dt.to_dtype(dtype) != out.dtype:
            raise RuntimeError(
                f"dtype {_dt.to_dtype(dtype).name} does not match dtype of out parameter "
                f"({out.dtype.name})"
            )
        kwargs["dtype"] = out.dtype
        kwargs.setdefault("device", out.device)
        return write_out(name, fn(*args, **kwargs), out)

    return call


arange = _with_range_out(creation.arange)
linspace = _with_range_out(creation.linspace)
logspace = _with_range_out(creation.logspace)
