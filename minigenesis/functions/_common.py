"""What every ``mg.*`` form shares: PyTorch's ``out=`` keyword (``_with_out``: the result written
into a given tensor, with PyTorch's checks), a Python number made a tensor on its partner's device
(``_t``, ``_first``) and the check that the input is a tensor (``_check``)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module
from ..conversions import as_array


def _with_out(fn: Callable) -> Callable:
    """Give ``fn`` PyTorch's ``out=`` keyword: the result is written into ``out`` (resized if
    its shape differs, with PyTorch's warning when it had elements) and ``out`` is returned.
    As in PyTorch, ``out=`` refuses autograd (no graph can lead into memory written in place)
    and a result that cannot be cast to ``out``'s dtype (float into an int tensor ...)."""

    name = fn.__name__
    code = fn.__code__
    if code.co_argcount == 1 and not code.co_kwonlyargcount:  # one tensor in (exp, tanh ...):
        # decided here, once, so that a call packs no *args tuple and **kwargs dict (a third of
        # this wrapper's cost)

        def call(input: Tensor, *, out: Tensor | None = None) -> Any:  # noqa: A002
            result = fn(input)
            return result if out is None else _write_out(name, result, out)

    else:

        def call(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            return result if out is None else _write_out(name, result, out)

    return functools.wraps(fn)(call)


def _write_out(name: str, result: Tensor, out: Any) -> Tensor:
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if is_grad_enabled() and (result.requires_grad or out.requires_grad):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    if out.device != result.device:
        raise RuntimeError(
            f"{name}(): expected out tensor to have device {result.device}, but got "
            f"{out.device} instead"
        )
    if not _can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"result type {_type_name(result.dtype)} can't be cast to the desired output type "
            f"{_type_name(out.dtype)}"
        )
    xp = get_array_module(out._data)
    if out.shape != result.shape:
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. Resize the output to 0 elements first "
                "(out.resize_(0)) to resize it silently.",
                stacklevel=3,
            )
        out._data = xp.empty(result.shape, out._data.dtype)
    xp.copyto(out._data, result._data, casting="unsafe")
    out._bump_version()
    return out


def _can_cast(src: _dt.DType, dst: _dt.DType) -> bool:
    """PyTorch's rule for out=: no float into an integer tensor, nothing but bool into bool."""
    if src.is_floating_point and not dst.is_floating_point:
        return False
    return dst is not _dt.bool_ or src is _dt.bool_


_type_name = _dt.scalar_type_name


def _t(x: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return Tensor._make(as_array(x, None, like.device if like is not None else None), False)


def _first(x: Any, other: Any) -> Tensor:
    """``x`` as a tensor (a Python number joins ``other``'s device), for mg.add(2, t) ..."""
    return _t(x, other if isinstance(other, Tensor) else None)


def _check(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, got {type(x).__name__}")
    return x
