"""The making functions with PyTorch's ``out=``: the ranges ``mg.arange``, ``mg.linspace`` and
``mg.logspace``, the filled ``mg.zeros``, ``ones``, ``empty``, ``full`` and ``eye``, and the draws
``mg.rand``, ``randn``, ``randint`` and ``randperm``. The tensor is made in ``out``'s dtype (unless
``dtype=`` names the same one; another is refused, as PyTorch refuses it) on ``out``'s device and
written into ``out``, resized to the result's shape. ``mg.normal`` and ``mg.bernoulli`` draw as
without ``out=`` and copy the draw into ``out`` (cast to its dtype).

The functions themselves live in creation.py, which sits beside out_arg.py and so cannot take the
keyword there; these forms add it one layer up."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import creation
from .. import dtypes as _dt
from .._tensor import Tensor
from ..out_arg import with_out, write_out


def _with_range_out(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``fn`` (a making function of creation.py) with ``out=``: dtype from ``out`` unless given,
    then written into it."""
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
zeros = _with_range_out(creation.zeros)
ones = _with_range_out(creation.ones)
empty = _with_range_out(creation.empty)
full = _with_range_out(creation.full)
eye = _with_range_out(creation.eye)
rand = _with_range_out(creation.rand)
randn = _with_range_out(creation.randn)
randint = _with_range_out(creation.randint)
randperm = _with_range_out(creation.randperm)
normal = with_out(creation.normal)
bernoulli = with_out(creation.bernoulli)
