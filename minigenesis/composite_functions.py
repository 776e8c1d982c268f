"""The ``mg.*`` forms of the methods in ``tensor_composites.py`` (``mg.take(x, i)`` is
``x.take(i)``), plus ``broadcast_tensors``: each is its Tensor method, called on the first
argument."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._tensor import Tensor
from .out_arg import with_out, write_out, write_outs

__all__ = [
    "positive", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "asinh_", "acosh_",
    "atanh_", "isposinf", "isneginf", "isreal", "floor_divide", "nextafter",
    "bitwise_left_shift", "bitwise_right_shift", "addr", "addmv", "addbmm", "addcmul", "addcdiv",
    "inner", "aminmax", "argwhere", "msort", "unique_consecutive", "take", "put", "index_put",
    "index_put_", "masked_scatter", "fill_diagonal_", "sigmoid_", "tanh_", "relu_", "erf_",
    "neg_", "negative_", "broadcast_tensors", "angle", "absolute", "mvlgamma", "renorm",
    "as_strided",
]  # fmt: skip


def _method_form(name: str) -> Callable[..., Any]:
    """``mg.name(input, *args, **kwargs)`` = ``input.name(*args, **kwargs)``."""

    def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}"
            )
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)`` (see Tensor.{name})."
    return function


def _number_first_form(name: str, reflected: str) -> Callable[..., Any]:
    """``mg.name(input, other)`` where PyTorch also takes a Python number as ``input`` (its
    Scalar-Tensor overload): ``5 << t`` for the shifts, ``5 // t`` for floor_divide, that is
    the tensor's reflected operator ``other.reflected(input)``; otherwise the method form."""
    method = _method_form(name)

    def function(input: Any, other: Any) -> Any:  # noqa: A002
        if isinstance(input, int | float) and isinstance(other, Tensor):
            return getattr(other, reflected)(input)
        return method(input, other)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


def _bool_out(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with an ``out=`` that must be a bool tensor (isposinf, isneginf: PyTorch refuses
    any other dtype rather than casting the mask)."""
    name = fn.__name__

    def function(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
        result = fn(input)
        if out is None:
            return result
        return write_out(name, result, out, f"{name} does not support non-boolean outputs.")

    function.__name__ = function.__qualname__ = name
    function.__doc__ = fn.__doc__
    return function


positive = _method_form("positive")
# out= as PyTorch's (an in-place alias cannot take it, nor a function returning its input)
asinh = with_out(_method_form("asinh"))
acosh = with_out(_method_form("acosh"))
atanh = with_out(_method_form("atanh"))
arcsinh = with_out(_method_form("arcsinh"))
arccosh = with_out(_method_form("arccosh"))
arctanh = with_out(_method_form("arctanh"))
asinh_ = _method_form("asinh_")
acosh_ = _method_form("acosh_")
atanh_ = _method_form("atanh_")
isposinf = _bool_out(_method_form("isposinf"))
isneginf = _bool_out(_method_form("isneginf"))
isreal = _method_form("isreal")
angle = with_out(_method_form("angle"))
absolute = with_out(_method_form("absolute"))
mvlgamma = with_out(_method_form("mvlgamma"))
renorm = with_out(_method_form("renorm"))
as_strided = _method_form("as_strided")
floor_divide = with_out(_number_first_form("floor_divide", "__rfloordiv__"))
nextafter = with_out(_method_form("nextafter"))
bitwise_left_shift = with_out(_number_first_form("bitwise_left_shift", "__rlshift__"))
bitwise_right_shift = with_out(_number_first_form("bitwise_right_shift", "__rrshift__"))
addr = with_out(_method_form("addr"))
addmv = with_out(_method_form("addmv"))
addbmm = with_out(_method_form("addbmm"))
addcmul = with_out(_method_form("addcmul"))
addcdiv = with_out(_method_form("addcdiv"))
inner = with_out(_method_form("inner"))
argwhere = _method_form("argwhere")
msort = with_out(_method_form("msort"))
unique_consecutive = _method_form("unique_consecutive")
take = with_out(_method_form("take"))
put = _method_form("put")
index_put = _method_form("index_put")
index_put_ = _method_form("index_put_")
masked_scatter = _method_form("masked_scatter")
fill_diagonal_ = _method_form("fill_diagonal_")
sigmoid_ = _method_form("sigmoid_")
tanh_ = _method_form("tanh_")
relu_ = _method_form("relu_")
erf_ = _method_form("erf_")
neg_ = _method_form("neg_")
negative_ = _method_form("negative_")


def aminmax(input: Tensor, *, dim: Any = None, keepdim: bool = False, out: Any = None) -> Any:  # noqa: A002
    """(min, max) of ``input`` (along ``dim``); ``out``: a (min, max) pair of input's dtype."""
    result = _method_form("aminmax")(input, dim=dim, keepdim=keepdim)
    same = "Expected out tensor to have dtype {want}, but got {out} instead"
    return result if out is None else write_outs("aminmax", result, out, (same, same))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (views, as in PyTorch)."""
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(shape) for t in tensors)
