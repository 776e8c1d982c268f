"""Reductions, scans, sorting and counting as functions: ``mg.sum``, ``mg.mean``, ``mg.max``,
``mg.logsumexp``, ``mg.var``, ``mg.cumsum``, ``mg.sort``, ``mg.topk``, ``mg.unique``,
``mg.allclose`` ... Each is the Tensor method of the same name (``mg.sum(x, 1)`` is
``x.sum(1)``)."""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..out_arg import with_out_as_dtype, write_out, write_outs
from ._common import _check, _operands, _with_out


@with_out_as_dtype
def sum(
    x: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None, **numpy_names
) -> Tensor:  # noqa: A001
    return x.sum(dim, keepdim, dtype, **numpy_names)  # numpy_names: axis=, keepdims=


def mean(
    x: Tensor,
    dim: Any = None,
    keepdim: bool = False,
    dtype: Any = None,
    *,
    out: Any = None,
    **numpy_names,
) -> Tensor:
    """The mean; a float ``out`` of a float x is also the dtype it computes in (PyTorch: the
    mean of float16 values into a float64 out is not rounded to float16 first)."""
    if _float_out(x, out) and dtype is None:
        dtype = out.dtype
    result = x.mean(dim, keepdim, dtype, **numpy_names)  # numpy_names: axis=, keepdims=
    return result if out is None else write_out("mean", result, out)


def _float_out(x: Any, out: Any) -> bool:
    """A floating-point x and out= tensor, whose dtype the reduction computes in."""
    return isinstance(out, Tensor) and out.is_floating_point() and x.is_floating_point()


@with_out_as_dtype
def prod(x: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    return x.prod(dim, keepdim, dtype)


def max(x: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A001
    """The largest element; along ``dim`` the (values, indices) pair; of two tensors, the
    elementwise maximum. ``out``: one tensor, or with ``dim`` a (values, indices) pair."""
    return _extremum_out("max", x.max(dim, keepdim), dim, out)


def min(x: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A001
    """The smallest element; along ``dim`` the (values, indices) pair (see ``max``)."""
    return _extremum_out("min", x.min(dim, keepdim), dim, out)


def _extremum_out(name: str, result: Any, dim: Any, out: Any) -> Any:
    """max / min's ``out=``: a (values, indices) pair when reduced along a dim, else one
    tensor (the whole reduction, or the elementwise form ``max(x, other)``)."""
    if out is None:
        return result
    if isinstance(result, Tensor):
        return write_out(name, result, out)
    return write_outs(name, result, out, _PAIR)


def argmax(x: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Tensor:
    result = x.argmax(dim, keepdim)
    return result if out is None else write_out("argmax", result, out, _LONG_OUT)


def argmin(x: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Tensor:
    result = x.argmin(dim, keepdim)
    return result if out is None else write_out("argmin", result, out, _LONG_OUT)


# argmax / argmin's out= must be int64 exactly (PyTorch's message)
_LONG_OUT = "Expected out tensor to have dtype long int, but got {out} instead"


def amax(input: Tensor, dim=(), keepdim: bool = False, *, out: Any = None) -> Tensor:  # noqa: A002
    result = _check(input, "amax").amax(dim, keepdim)
    return result if out is None else write_out("amax", result, out, _SAME_DTYPE)


def amin(input: Tensor, dim=(), keepdim: bool = False, *, out: Any = None) -> Tensor:  # noqa: A002
    result = _check(input, "amin").amin(dim, keepdim)
    return result if out is None else write_out("amin", result, out, _SAME_DTYPE)


# amax / amin's out= must have the input's dtype exactly (PyTorch's message)
_SAME_DTYPE = (
    "Expected the dtype for input and out to match, but got {want} for input's dtype and "
    "{out} for out's dtype."
)


def logsumexp(x: Tensor, dim: Any, keepdim: bool = False, *, out: Any = None) -> Tensor:
    """log sum exp along dim; a float ``out`` is the dtype it computes in, as in PyTorch."""
    if isinstance(out, Tensor) and out.is_floating_point() and x.dtype != out.dtype:
        x = x.to(out.dtype)
    result = x.logsumexp(dim, keepdim)
    return result if out is None else write_out("logsumexp", result, out)


def all(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Tensor:  # noqa: A001, A002
    return _bool_out("all", input.all(dim, keepdim), out)


def any(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Tensor:  # noqa: A001, A002
    return _bool_out("any", input.any(dim, keepdim), out)


def _bool_out(name: str, result: Tensor, out: Any) -> Tensor:
    """all / any's out=: a bool tensor (or one of the result's dtype, uint8 for a uint8 input),
    as PyTorch's; other dtypes are refused with its message."""
    if out is None:
        return result
    if isinstance(out, Tensor) and out.dtype not in (_dt.bool_, result.dtype):
        got = _dt.scalar_type_name(out.dtype)
        raise RuntimeError(f"{name} only supports bool tensor for result, got: {got}")
    return write_out(name, result.bool() if out.dtype is _dt.bool_ else result, out)


def norm(
    x: Tensor,
    p: Any = "fro",
    dim: Any = None,
    keepdim: bool = False,
    out: Tensor | None = None,
    dtype: Any = None,
) -> Tensor:
    """x.norm(p, dim, keepdim, dtype); PyTorch's order puts ``out`` before ``dtype``."""
    result = x.norm(p, dim, keepdim, dtype)
    return result if out is None else write_out("norm", result, out)


@_with_out
def var(
    x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, correction: Any = None
) -> Tensor:
    return x.var(dim, unbiased, keepdim, correction)


@_with_out
def std(
    x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, correction: Any = None
) -> Tensor:
    return x.std(dim, unbiased, keepdim, correction)


@with_out_as_dtype
def cumsum(x: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return x.cumsum(dim, dtype)


@with_out_as_dtype
def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:  # noqa: A002
    return _check(input, "cumprod").cumprod(dim, dtype)


def cummax(input: Tensor, dim: int, *, out: Any = None) -> Any:  # noqa: A002
    """(values, indices) of the running maximum; ``out``: a (values, indices) pair."""
    result = _check(input, "cummax").cummax(dim)
    return result if out is None else write_outs("cummax", result, out, _PAIR)


def cummin(input: Tensor, dim: int, *, out: Any = None) -> Any:  # noqa: A002
    """(values, indices) of the running minimum; ``out``: a (values, indices) pair."""
    result = _check(input, "cummin").cummin(dim)
    return result if out is None else write_outs("cummin", result, out, _PAIR)


def allclose(
    input: Tensor,  # noqa: A002
    other: Any,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    equal_nan: bool = False,
) -> bool:
    """True when |input - other| <= atol + rtol |other| everywhere (tensors of one dtype)."""
    _operands("allclose", input, other)
    return input.allclose(other, rtol, atol, equal_nan)


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    """True when both have the same shape and the same values (NaN equals nothing)."""
    return input.equal(other)


# PyTorch's messages for an out= tensor of another dtype than the result's
_PAIR = (
    "Expected out tensor to have dtype {want}, but got {out} instead",
    "Expected out tensor to have dtype Long, but got {out} instead",
)


def sort(
    x: Tensor, *args: Any, stable: bool | None = None, out: tuple | None = None, **kwargs: Any
) -> Any:
    """(values, indices) sorted along ``dim``; ``out``: a (values, indices) pair to write into.
    ``dim`` and ``descending`` may be positional only without ``stable``, as in PyTorch."""
    result = x.sort(*args, stable=stable, **kwargs)
    return result if out is None else write_outs("sort", result, out, _PAIR)


def argsort(x: Tensor, *args: Any, stable: bool | None = None, **kwargs: Any) -> Tensor:
    """The indices of ``sort`` (``dim``, ``descending`` positional only without ``stable``)."""
    return x.argsort(*args, stable=stable, **kwargs)


def topk(
    x: Tensor,
    k: int,
    dim: Any = None,
    largest: bool = True,
    sorted: bool = True,  # noqa: A002
    *,
    out: tuple | None = None,
) -> Any:
    """The k largest (smallest) values along ``dim`` and their indices; ``out``: a (values,
    indices) pair to write into."""
    result = x.topk(k, dim, largest, sorted)
    return result if out is None else write_outs("topk", result, out, _PAIR)


def unique(
    input: Tensor,  # noqa: A002
    sorted: bool = True,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
    dim=None,
) -> Any:
    return _check(input, "unique").unique(sorted, return_inverse, return_counts, dim)


def bincount(input: Tensor, weights: Any = None, minlength: int = 0) -> Tensor:  # noqa: A002
    return _check(input, "bincount").bincount(weights, minlength)


def histc(
    input: Tensor,  # noqa: A002
    bins: int = 100,
    min: Any = 0,  # noqa: A002
    max: Any = 0,  # noqa: A002
    *,
    out: Tensor | None = None,
) -> Tensor:
    """Counts in ``bins`` equal bins over [min, max], in input's dtype (``out`` must have it)."""
    result = _check(input, "histc").histc(bins, min, max)
    if out is None:
        return result
    return write_out("histc", result, out, _HISTC_DTYPE)


_HISTC_DTYPE = (
    "torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
    "{want} and hist {out}"
)


@_with_out
def multinomial(
    x: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None
) -> Tensor:
    return x.multinomial(num_samples, replacement, generator=generator)
