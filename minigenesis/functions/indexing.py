"""Selecting and writing by index as functions: ``mg.where``, ``mg.gather``, ``mg.index_select``,
``mg.scatter`` / ``scatter_add`` / ``scatter_reduce``, ``mg.masked_fill``, ``mg.nonzero`` ...
Each is the Tensor method of the same name; ``where`` promotes ``x`` and ``y`` as ``x + y`` does."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..out_arg import write_out
from ..promotion import where as _where
from ._common import _check, _with_out


@_with_out
def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    """Elementwise ``input if condition else other``; they broadcast and promote like
    ``input + other`` (``promotion.where``: a Python scalar only changes the category, as in
    ``x + 2.5``). With the condition alone, ``where(condition)`` is
    ``nonzero(condition, as_tuple=True)``: a tuple of index tensors, one per dim."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if input is None or other is None:
        raise TypeError(
            "where() takes the condition alone or the condition, input and other; "
            f"got {'other' if input is None else 'input'} without the other"
        )
    return _where(condition, input, other)


@_with_out
def gather(x: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    return x.gather(dim, index)


@_with_out
def take_along_dim(x: Any, indices: Any, dim: Any = None) -> Any:
    return x.take_along_dim(indices, dim)


@_with_out
def index_select(x: Any, dim: int, index: Any) -> Any:
    return x.index_select(dim, index)


def index_add(x: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return x.index_add(dim, index, source, alpha=alpha)


def index_fill(x: Any, dim: int, index: Any, value: Any) -> Any:
    return x.index_fill(dim, index, value)


def index_copy(x: Any, dim: int, index: Any, source: Any) -> Any:
    return x.index_copy(dim, index, source)


def scatter(
    x: Any, dim: int, index: Any, src: Any = None, *, value: Any = None, reduce: Any = None
) -> Any:
    return x.scatter(dim, index, src, value=value, reduce=reduce)


def scatter_add(x: Any, dim: int, index: Any, src: Any) -> Any:
    return x.scatter_add(dim, index, src)


def scatter_reduce(
    x: Any, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True
) -> Any:
    return x.scatter_reduce(dim, index, src, reduce, include_self=include_self)


def index_reduce(
    input: Tensor,  # noqa: A002
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
    out: Any = None,
) -> Tensor:
    """``input.index_reduce(...)``: source's slices folded into input's at ``index`` along dim."""
    result = _check(input, "index_reduce").index_reduce(
        dim, index, source, reduce, include_self=include_self
    )
    return result if out is None else write_out("index_reduce", result, out)


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:  # noqa: A002
    return _check(input, "masked_fill").masked_fill(mask, value)


@_with_out
def masked_select(input: Tensor, mask: Any) -> Tensor:  # noqa: A002
    return _check(input, "masked_select").masked_select(mask)


def nonzero(input: Tensor, *, as_tuple: bool = False, out: Any = None) -> Any:  # noqa: A002
    """The indices of the nonzero elements, one row each (int64); ``out``: an int64 tensor
    to write them into (not with ``as_tuple``, as in PyTorch)."""
    if out is not None and as_tuple:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    result = _check(input, "nonzero").nonzero(as_tuple=as_tuple)
    if out is None:
        return result
    return write_out(
        "nonzero",
        result,
        out,
        "nonzero: Expected out tensor to have scalar type Long but got scalar type{out}",
    )
