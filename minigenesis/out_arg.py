"""PyTorch's ``out=`` keyword, written once for every ``mg.*`` form that takes it.

``with_out(fn)`` gives ``fn`` the keyword: the result is written into ``out`` (resized if its
shape differs, with PyTorch's warning when it had elements) and ``out`` is returned. As in
PyTorch, ``out=`` refuses autograd (no graph can lead into memory written in place) and a result
that cannot be cast to ``out``'s dtype (a float into an int tensor ...). The sums and products
(``with_out_as_dtype``) compute in ``out``'s dtype instead, as PyTorch's do.

An op with several results (sort, topk, kthvalue, frexp) takes a tuple of tensors, one per
result, each of exactly the dtype PyTorch asks for (``write_outs``); an op whose one result has a
fixed dtype (histc, searchsorted) asks for that dtype exactly (``write_out``'s ``exact``).

It sits just above the Tensor class, below every module of ``mg.*`` forms (functions/,
searching.py, statistics.py, composite_functions.py ...), so all of them share it.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

from . import dtypes as _dt
from ._tensor import Tensor
from .autograd.grad_mode import is_grad_enabled
from .backend import get_array_module


def with_out(fn: Callable) -> Callable:
    """``fn`` with PyTorch's ``out=`` keyword (see the module's docstring)."""
    name = fn.__name__
    code = fn.__code__
    packs = code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)  # def f(x, *a, **k)
    if code.co_argcount == 1 and not code.co_kwonlyargcount and not packs:  # exp, tanh ...:
        # decided here, once, so that a call packs no *args tuple and **kwargs dict (a third of
        # this wrapper's cost)

        def call(input: Tensor, *, out: Tensor | None = None) -> Any:  # noqa: A002
            result = fn(input)
            return result if out is None else write_out(name, result, out)

    else:

        def call(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            return result if out is None else write_out(name, result, out)

    return functools.wraps(fn)(call)


def with_out_as_dtype(fn: Callable) -> Callable:
    """``with_out`` for the sums and products (sum, nansum, prod, cumsum, cumprod), whose
    ``out=`` also chooses the dtype they compute in: PyTorch reads ``out``'s dtype as ``dtype=``
    when none is given, so ``sum(x, out=int8_tensor)`` sums x's values cast to int8 (wrapping
    as int8 does) instead of casting the sum."""
    name = fn.__name__
    signature = inspect.signature(fn)

    def call(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        if bound.arguments.get("dtype") is None and isinstance(out, Tensor):
            bound.arguments["dtype"] = out.dtype
        return write_out(name, fn(*bound.args, **bound.kwargs), out)

    return functools.wraps(fn)(call)


def write_out(name: str, result: Tensor, out: Any, exact: str | None = None) -> Tensor:
    """Write ``result`` into ``out`` and return ``out``. ``exact``: PyTorch's message when
    ``out`` must have exactly ``result``'s dtype ("{out}" and "{want}" are the dtypes' names);
    without it the dtype follows PyTorch's casting rule for out=."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    _check_autograd(name, result, out)
    _check_target(name, result, out, exact)
    _copy_into(result, out)
    return out


def write_outs(name: str, results: tuple, out: Any, exact: tuple[str, ...]) -> Any:
    """Write each of ``results`` (a named tuple: values, indices ...) into the tensor of ``out``
    at its place and return the named tuple of ``out``'s tensors. ``exact`` holds, per result,
    PyTorch's message for an ``out`` tensor of another dtype (as in ``write_out``)."""
    n = len(results)
    if not isinstance(out, (tuple, list)) or not all(isinstance(t, Tensor) for t in out):
        raise TypeError(
            f"{name}(): argument 'out' must be a tuple of {n} Tensors, not {type(out).__name__}"
        )
    if len(out) != n:
        raise TypeError(f"{name}(): expected tuple of {n} elements but got {len(out)}")
    for r, o in zip(results, out):
        _check_autograd(name, r, o)
    for r, o, message in zip(results, out, exact):  # every check before the first write
        _check_target(name, r, o, message)
    for r, o in zip(results, out):
        _copy_into(r, o)
    return type(results)(*out)


def _check_autograd(name: str, result: Tensor, out: Tensor) -> None:
    if is_grad_enabled() and (result.requires_grad or out.requires_grad):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )


def _check_target(name: str, result: Tensor, out: Tensor, exact: str | None) -> None:
    if out.device != result.device:
        raise RuntimeError(
            f"{name}(): expected out tensor to have device {result.device}, but got "
            f"{out.device} instead"
        )
    if exact is not None:
        if out.dtype is not result.dtype:
            raise RuntimeError(
                exact.format(out=_type_name(out.dtype), want=_type_name(result.dtype))
            )
    elif not _can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"result type {_type_name(result.dtype)} can't be cast to the desired output type "
            f"{_type_name(out.dtype)}"
        )


def _copy_into(result: Tensor, out: Tensor) -> None:
    """``out``'s memory takes ``result``'s values (new memory of ``result``'s shape if the
    shapes differ, as PyTorch's resize)."""
    xp = get_array_module(out._data)
    if out.shape != result.shape:
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. Resize the output to 0 elements first "
                "(out.resize_(0)) to resize it silently.",
                stacklevel=4,
            )
        out._data = xp.empty(result.shape, out._data.dtype)
    elif not getattr(getattr(out._data, "flags", None), "writeable", True):  # an expanded out
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    xp.copyto(out._data, result._data, casting="unsafe")
    out._bump_version()


def _can_cast(src: _dt.DType, dst: _dt.DType) -> bool:
    """PyTorch's rule for out=: no float into an integer tensor, nothing but bool into bool."""
    if src.is_floating_point and not dst.is_floating_point:
        return False
    return dst is not _dt.bool_ or src is _dt.bool_


_type_name = _dt.scalar_type_name


__all__ = ["with_out", "with_out_as_dtype", "write_out", "write_outs"]
