"""The statistics at the top level: ``mg.median``, ``mg.quantile``, ``mg.nanmean``, ``mg.var_mean``,
``mg.cov``, ``mg.histogram``, ``mg.diff``, ``mg.gradient`` ...

Most are the Tensor methods of ``tensor_stats.py`` under their functional spelling;
``std_mean`` / ``var_mean`` (both results of one call) and ``gradient`` (numerical derivatives
along several dims) exist only here, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from ._tensor import Tensor
from .ops.round_once import in_float32, is_two_byte_float
from .ops.shape import Cat
from .out_arg import with_out, with_out_as_dtype
from .out_arg import write_out as _write_out
from .out_arg import write_outs as _write_outs
from .size import norm_dim

# PyTorch's messages for a (values, indices) out= pair of other dtypes than the result's
_PAIR = (
    "output values must be of same type as input",
    "output indices must be of scalar type Long",
)


def _pair_out(name: str, result: Any, out: Any) -> Any:
    """``result`` (a tensor, or a (values, indices) pair) written into ``out`` when given."""
    if out is None:
        return result
    if isinstance(result, Tensor):
        return _write_out(name, result, out)
    return _write_outs(name, result, out, _PAIR)


def median(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A002
    return _pair_out("median", input.median(dim, keepdim), out)


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A002
    return _pair_out("nanmedian", input.nanmedian(dim, keepdim), out)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A002
    return _pair_out("mode", input.mode(dim, keepdim), out)


def kthvalue(
    input: Tensor,  # noqa: A002
    k: int,
    dim: int = -1,
    keepdim: bool = False,
    *,
    out: tuple | None = None,
) -> Any:
    """(values, indices) of the k-th smallest along ``dim``; ``out``: a pair to write into."""
    return _pair_out("kthvalue", input.kthvalue(k, dim, keepdim), out)


@with_out
def quantile(
    input: Tensor,  # noqa: A002
    q: Any,
    dim: Any = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    return input.quantile(q, dim, keepdim, interpolation=interpolation)


@with_out
def nanquantile(
    input: Tensor,  # noqa: A002
    q: Any,
    dim: Any = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    return input.nanquantile(q, dim, keepdim, interpolation=interpolation)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    return input.nanmean(dim, keepdim, dtype=dtype)


@with_out_as_dtype
def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    return input.nansum(dim, keepdim, dtype=dtype)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    return input.count_nonzero(dim)


@with_out
def logcumsumexp(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return input.logcumsumexp(dim)


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Any = None,  # noqa: A002
              density: bool = False) -> Any:  # fmt: skip
    return input.histogram(bins, range=range, weight=weight, density=density)


@with_out
def diff(
    input: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None
) -> Tensor:  # noqa: A002
    return input.diff(n, dim, prepend, append)


def cov(
    input: Tensor, *, correction: int = 1, fweights: Any = None, aweights: Any = None
) -> Tensor:  # noqa: A002
    return input.cov(correction=correction, fweights=fweights, aweights=aweights)


def corrcoef(input: Tensor) -> Tensor:  # noqa: A002
    return input.corrcoef()


def _correction(name: str, unbiased: Any, correction: Any) -> int:
    if unbiased is not None and correction is not None:
        raise ValueError(f"{name}(): give only one of unbiased and correction")
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var_mean(
    input: Tensor,  # noqa: A002
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple:
    """(variance, mean) over ``dim`` in one call; the variance divides by N - correction (1, the
    unbiased estimate, by default). ``var_mean(x, False)`` is the older spelling of correction=0."""
    if isinstance(dim, bool):  # var_mean(x, unbiased) with no dim
        dim, unbiased = None, dim
    c = _correction("var_mean", unbiased, correction)
    if is_two_byte_float(input):  # the two results' gradients summed in float32, rounded once
        return in_float32(var_mean, input, dim, None, keepdim, correction=c)
    return input.var(dim, keepdim=keepdim, correction=c), input.mean(dim, keepdim)


def std_mean(
    input: Tensor,  # noqa: A002
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple:
    """(standard deviation, mean) over ``dim``: var_mean with the square root of the first."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    c = _correction("std_mean", unbiased, correction)
    if is_two_byte_float(input):  # the two results' gradients summed in float32, rounded once
        return in_float32(std_mean, input, dim, None, keepdim, correction=c)
    return input.std(dim, keepdim=keepdim, correction=c), input.mean(dim, keepdim)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:  # noqa: A002
    """The numerical derivative of sampled values along each of ``dim`` (all dims by default),
    one tensor per dim, as NumPy's gradient: central differences inside,
    (f[i+1] - f[i-1]) / (2h) for even spacing and, for coordinates x with steps a = x[i] - x[i-1],
    b = x[i+1] - x[i], (a^2 f[i+1] - b^2 f[i-1] + (b^2 - a^2) f[i]) / (a b (a + b));
    one-sided differences at the two ends (edge_order=1: (f[1] - f[0]) / h; edge_order=2:
    (-3 f[0] + 4 f[1] - f[2]) / (2h), even spacing only).

    ``spacing`` is one number for every dim, one number per dim, or one coordinate tensor per dim.
    Differentiable: a composition of slices and arithmetic."""
    if edge_order not in (1, 2):
        raise ValueError(f"gradient(): edge_order must be 1 or 2, got {edge_order}")
    if dim is None:
        dims = tuple(range(input.ndim))
    elif isinstance(dim, int):
        dims = (norm_dim(dim, input.ndim)[0],)
    else:
        dims = tuple(norm_dim(d, input.ndim)[0] for d in dim)
    if isinstance(spacing, (int, float)):
        spacings = [spacing] * len(dims)
    else:
        spacings = list(spacing)
        if len(spacings) == 1 and len(dims) > 1 and not isinstance(spacings[0], Tensor):
            spacings = spacings * len(dims)
        if len(spacings) != len(dims):
            raise RuntimeError(
                f"gradient(): expected spacing to be unspecified, a scalar, or a list of length "
                f"{len(dims)} (one per dim), got a list of length {len(spacings)}"
            )
    x = input if input.is_floating_point() else input.float()
    out = []
    for d, h in zip(dims, spacings, strict=True):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(
                f"gradient(): expected each dimension size to be at least edge_order+1, got "
                f"dim {d} of size {n}"
            )
        out.append(_gradient_along(x, d, h, edge_order))
    return tuple(out)


def _gradient_along(f: Tensor, d: int, h: Any, edge_order: int) -> Tensor:
    n = f.shape[d]

    def cat(parts: list, dim: int) -> Tensor:
        return Cat.apply(dim, *parts)

    def part(start: int, length: int) -> Tensor:
        return f.narrow(d, start, length)

    if isinstance(h, Tensor):  # coordinates along d
        if h.ndim != 1 or h.shape[0] != n:
            raise RuntimeError(
                f"gradient(): the coordinates for dim {d} must be 1-D with {n} values, got "
                f"shape {tuple(h.shape)}"
            )
        if edge_order != 1:
            raise NotImplementedError("gradient(): edge_order=2 needs evenly spaced samples here")
        shape = [1] * f.ndim
        shape[d] = n - 1
        steps = (h.narrow(0, 1, n - 1) - h.narrow(0, 0, n - 1)).to(f.dtype).reshape(shape)
        first = (part(1, 1) - part(0, 1)) / steps.narrow(d, 0, 1)
        last = (part(n - 1, 1) - part(n - 2, 1)) / steps.narrow(d, n - 2, 1)
        if n == 2:
            return cat([first, last], d)
        a, b = steps.narrow(d, 0, n - 2), steps.narrow(d, 1, n - 2)
        inner = a * a * part(2, n - 2) - b * b * part(0, n - 2) + (b * b - a * a) * part(1, n - 2)
        inner = inner / (a * b * (a + b))
        return cat([first, inner, last], d)
    h = float(h)
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / h
        last = (part(n - 1, 1) - part(n - 2, 1)) / h
    else:
        first = (part(0, 1) * -3 + part(1, 1) * 4 - part(2, 1)) / (2 * h)
        last = (part(n - 1, 1) * 3 - part(n - 2, 1) * 4 + part(n - 3, 1)) / (2 * h)
    if n == 2:
        return cat([first, last], d)
    inner = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
    return cat([first, inner, last], d)


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("annotations", "Any", "Tensor",
                                                                   "norm_dim", "Cat")]  # fmt: skip
