"""mg.* forms of the rounding, selection and counting methods (``mg.floor(x)`` is ``x.floor()``),
and of amax/amin, masked_fill and cumprod."""

from __future__ import annotations

from typing import Any

from ._tensor import Tensor


def _check(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, got {type(x).__name__}")
    return x


def floor(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "floor").floor()


def ceil(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "ceil").ceil()


def trunc(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "trunc").trunc()


fix = trunc


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001, A002
    return _check(input, "round").round(decimals)


def frac(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "frac").frac()


def nan_to_num(input: Tensor, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:  # noqa: A002
    return _check(input, "nan_to_num").nan_to_num(nan, posinf, neginf)


def isclose(input: Tensor, other: Any, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:  # noqa: A002
    return _check(input, "isclose").isclose(other, rtol, atol, equal_nan)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:  # noqa: A002
    return _check(input, "lerp").lerp(end, weight)


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:  # noqa: A002
    return _check(input, "amax").amax(dim, keepdim)


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:  # noqa: A002
    return _check(input, "amin").amin(dim, keepdim)


def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:  # noqa: A002
    return _check(input, "cumprod").cumprod(dim, dtype)


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:  # noqa: A002
    return _check(input, "masked_fill").masked_fill(mask, value)


def masked_select(input: Tensor, mask: Any) -> Tensor:  # noqa: A002
    return _check(input, "masked_select").masked_select(mask)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:  # noqa: A002
    return _check(input, "nonzero").nonzero(as_tuple=as_tuple)


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


__all__ = [
    "amax",
    "amin",
    "bincount",
    "ceil",
    "cumprod",
    "fix",
    "floor",
    "frac",
    "isclose",
    "lerp",
    "masked_fill",
    "masked_select",
    "nan_to_num",
    "nonzero",
    "round",
    "trunc",
    "unique",
]
