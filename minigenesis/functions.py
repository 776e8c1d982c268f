"""The functional forms at the top level: ``mg.exp(x)``, ``mg.cat([a, b])``, ``mg.where(c, x, y)``.

Most are the Tensor methods under another spelling (``mg.floor(x)`` is ``x.floor()``,
``mg.roll(x, 1)`` is ``x.roll(1)``); ``cat``, ``stack``, ``hstack`` / ``vstack`` / ``column_stack``,
``meshgrid`` and ``allclose`` take several tensors and so live only here.
"""

from __future__ import annotations

import builtins
import functools
import itertools
import math as _math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import creation as _creation
from . import dtypes as _dt
from ._tensor import Tensor
from .autograd.grad_mode import is_grad_enabled
from .backend import get_array_module
from .conversions import as_array
from .ops import elementwise as E
from .ops import shape as S
from .ops.distance import EuclideanDistMM
from .ops.einsum import Einsum, parse, sublist_equation
from .ops.matmul import matmul as _matmul
from .ops.same_dtype import check_same_dtype as _check_same_dtype
from .promotion import binary_op
from .promotion import where as _where
from .size import norm_dim
from .sparse_coo import SparseCOOTensor


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


@_with_out
def exp(x: Tensor) -> Tensor:
    return x.exp()


@_with_out
def log(x: Tensor) -> Tensor:
    return x.log()


@_with_out
def sqrt(x: Tensor) -> Tensor:
    return x.sqrt()


@_with_out
def rsqrt(x: Tensor) -> Tensor:
    return x.rsqrt()


@_with_out
def abs(x: Tensor) -> Tensor:  # noqa: A001
    return x.abs()


@_with_out
def sign(x: Tensor) -> Tensor:
    return x.sign()


@_with_out
def sin(x: Tensor) -> Tensor:
    return x.sin()


@_with_out
def cos(x: Tensor) -> Tensor:
    return x.cos()


@_with_out
def tan(x: Tensor) -> Tensor:
    return x.tan()


@_with_out
def asin(x: Tensor) -> Tensor:
    return x.asin()


@_with_out
def acos(x: Tensor) -> Tensor:
    return x.acos()


@_with_out
def atan(x: Tensor) -> Tensor:
    return x.atan()


@_with_out
def sinh(x: Tensor) -> Tensor:
    return x.sinh()


@_with_out
def cosh(x: Tensor) -> Tensor:
    return x.cosh()


@_with_out
def expm1(x: Tensor) -> Tensor:
    return x.expm1()


@_with_out
def log1p(x: Tensor) -> Tensor:
    return x.log1p()


@_with_out
def log2(x: Tensor) -> Tensor:
    return x.log2()


@_with_out
def log10(x: Tensor) -> Tensor:
    return x.log10()


@_with_out
def reciprocal(x: Tensor) -> Tensor:
    return x.reciprocal()


@_with_out
def erf(x: Tensor) -> Tensor:
    return x.erf()


@_with_out
def erfinv(x: Tensor) -> Tensor:
    return x.erfinv()


@_with_out
def lgamma(x: Tensor) -> Tensor:
    return x.lgamma()


@_with_out
def digamma(x: Tensor) -> Tensor:
    return x.digamma()


def polygamma(n: int, x: Tensor) -> Tensor:
    """psi^(n)(x): PyTorch's argument order, the order first."""
    return x.polygamma(n)


@_with_out
def atan2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The angle of the point (other, input) in (-pi, pi]."""
    return input.atan2(other)


arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2


@_with_out
def tanh(x: Tensor) -> Tensor:
    return x.tanh()


@_with_out
def sigmoid(x: Tensor) -> Tensor:
    return x.sigmoid()


def relu(x: Tensor) -> Tensor:
    return x.relu()


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    return x.softmax(dim)


def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    return x.log_softmax(dim)


@_with_out
def maximum(a: Tensor, b: Any) -> Tensor:
    return binary_op(E.Maximum, a, b)


@_with_out
def minimum(a: Tensor, b: Any) -> Tensor:
    return binary_op(E.Minimum, a, b)


@_with_out
def clamp(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return x.clamp(min, max)


def clip(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return x.clamp(min, max)


@_with_out
def clamp_min(x: Tensor, min: Any) -> Tensor:  # noqa: A002
    return x.clamp_min(min)


@_with_out
def clamp_max(x: Tensor, max: Any) -> Tensor:  # noqa: A002
    return x.clamp_max(max)


@_with_out
def pow(x: Any, exponent: Any) -> Tensor:  # noqa: A001
    return x**exponent if isinstance(x, Tensor) else binary_op(E.Pow, x, exponent)


@_with_out
def add(x: Any, other: Any, *deprecated: Any, alpha: Any = 1) -> Tensor:
    """x + alpha * other (and the old order add(x, alpha, other))"""
    return _t(x, other if isinstance(other, Tensor) else None).add(other, *deprecated, alpha=alpha)


@_with_out
def sub(x: Any, other: Any, *deprecated: Any, alpha: Any = 1) -> Tensor:
    """x - alpha * other (and the old order sub(x, alpha, other))"""
    return _t(x, other if isinstance(other, Tensor) else None).sub(other, *deprecated, alpha=alpha)


def _first(x: Any, other: Any) -> Tensor:
    """``x`` as a tensor (a Python number joins ``other``'s device), for mg.add(2, t) ..."""
    return _t(x, other if isinstance(other, Tensor) else None)


@_with_out
def mul(x: Any, other: Any) -> Tensor:
    """x * other"""
    return _first(x, other) * other


@_with_out
def div(x: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """x / other (true division); ``rounding_mode="floor"`` rounds the quotient down,
    ``"trunc"`` towards zero (both with integer results for integer inputs, as in PyTorch)."""
    return _first(x, other).div(other, rounding_mode=rounding_mode)


@_with_out
def neg(x: Tensor) -> Tensor:
    return -x


@_with_out
def square(x: Tensor) -> Tensor:
    return x.square()


@_with_out
def mm(x: Tensor, mat2: Tensor) -> Tensor:
    return x.mm(mat2)


@_with_out
def bmm(x: Tensor, mat2: Tensor) -> Tensor:
    return x.bmm(mat2)


@_with_out
def dot(x: Tensor, other: Tensor) -> Tensor:
    return x.dot(other)


@_with_out
def mv(x: Tensor, vec: Tensor) -> Tensor:
    return x.mv(vec)


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    return x.narrow(dim, start, length)


def clone(x: Tensor) -> Tensor:
    return x.clone()


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory when it already is one (or a NumPy array) of the
    right dtype and device; a copy otherwise (PyTorch's ``as_tensor``)."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    return Tensor._make(as_array(data, dtype, device), False)


multiply, divide, true_divide, subtract, negative = mul, div, div, sub, neg


def index_add(x: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return x.index_add(dim, index, source, alpha=alpha)


@_with_out
def remainder(x: Any, other: Any) -> Tensor:
    """x - floor(x / other) * other (Python's %: the sign of ``other``)."""
    return binary_op(E.Mod, x, other)


@_with_out
def fmod(x: Any, other: Any) -> Tensor:
    """x - trunc(x / other) * other (C's fmod: the sign of ``x``)."""
    return binary_op(E.Fmod, x, other)


@_with_out
def cumsum(x: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return x.cumsum(dim, dtype)


def sort(x: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    return x.sort(dim, descending, stable)


def argsort(x: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    return x.argsort(dim, descending, stable)


def topk(
    x: Tensor,
    k: int,
    dim: Any = None,
    largest: bool = True,
    sorted: bool = True,  # noqa: A002
) -> Any:
    return x.topk(k, dim, largest, sorted)


@_with_out
def gather(x: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    return x.gather(dim, index)


@_with_out
def tril(x: Tensor, diagonal: int = 0) -> Tensor:
    return x.tril(diagonal)


@_with_out
def triu(x: Tensor, diagonal: int = 0) -> Tensor:
    return x.triu(diagonal)


def multinomial(
    x: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None
) -> Tensor:
    return x.multinomial(num_samples, replacement, generator=generator)


@_with_out
def prod(x: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    return x.prod(dim, keepdim, dtype)


@_with_out
def sum(
    x: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None, **numpy_names
) -> Tensor:  # noqa: A001
    return x.sum(dim, keepdim, dtype, **numpy_names)  # numpy_names: axis=, keepdims=


@_with_out
def mean(
    x: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None, **numpy_names
) -> Tensor:
    return x.mean(dim, keepdim, dtype, **numpy_names)  # numpy_names: axis=, keepdims=


def max(x: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    return x.max(dim, keepdim)


def min(x: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    return x.min(dim, keepdim)


def argmax(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return x.argmax(dim, keepdim)


def argmin(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return x.argmin(dim, keepdim)


@_with_out
def logsumexp(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return x.logsumexp(dim, keepdim)


def isnan(x: Tensor) -> Tensor:
    return x.isnan()


def isinf(x: Tensor) -> Tensor:
    return x.isinf()


def isfinite(x: Tensor) -> Tensor:
    return x.isfinite()


# -- rounding, comparison, selection and counting (the Tensor methods of the same names)
def _check(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, got {type(x).__name__}")
    return x


@_with_out
def floor(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "floor").floor()


@_with_out
def ceil(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "ceil").ceil()


@_with_out
def trunc(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "trunc").trunc()


fix = trunc


@_with_out
def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001, A002
    return _check(input, "round").round(decimals)


@_with_out
def frac(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "frac").frac()


@_with_out
def nan_to_num(input: Tensor, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:  # noqa: A002
    return _check(input, "nan_to_num").nan_to_num(nan, posinf, neginf)


def isclose(input: Tensor, other: Any, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:  # noqa: A002
    return _check(input, "isclose").isclose(other, rtol, atol, equal_nan)


@_with_out
def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:  # noqa: A002
    return _check(input, "lerp").lerp(end, weight)


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:  # noqa: A002
    return _check(input, "amax").amax(dim, keepdim)


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:  # noqa: A002
    return _check(input, "amin").amin(dim, keepdim)


@_with_out
def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:  # noqa: A002
    return _check(input, "cumprod").cumprod(dim, dtype)


def cummax(input: Tensor, dim: int) -> Any:  # noqa: A002
    return _check(input, "cummax").cummax(dim)


def cummin(input: Tensor, dim: int) -> Any:  # noqa: A002
    return _check(input, "cummin").cummin(dim)


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:  # noqa: A002
    return _check(input, "masked_fill").masked_fill(mask, value)


@_with_out
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


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A002
    return _check(input, "histc").histc(bins, min, max)


@_with_out
def where(condition: Tensor, x: Any, y: Any) -> Tensor:
    """Elementwise ``x if condition else y``; x and y broadcast and promote like ``x + y``
    (``promotion.where``: a Python scalar only changes the category, as in ``x + 2.5``)."""
    return _where(condition, x, y)


@_with_out
def cat(tensors: Any, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim (all other dims must match)."""
    tensors = [_t(t) for t in tensors]
    if not tensors:
        raise ValueError("cat() needs at least one tensor")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise ValueError(f"cat: tensor {i} is 0-d and cannot be concatenated (use stack)")
    target = tensors[0].dtype
    for t in tensors[1:]:
        target = _dt.promote_types(target, t.dtype)
    # PyTorch's legacy rule: 1-D empty tensors are skipped (they still take part in the dtype)
    kept = [t for t in tensors if t.shape != (0,)]
    if kept and len(kept) < len(tensors):
        tensors = kept
    d = norm_dim(dim, tensors[0].ndim)[0]
    ref = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.ndim != len(ref) or builtins.any(
            a != b for k, (a, b) in enumerate(zip(t.shape, ref)) if k != d
        ):
            raise ValueError(
                f"cat: tensor {i} has shape {t.shape}, which does not match {ref} outside dim {d}"
            )
    tensors = [t._cast(target.numpy_dtype) for t in tensors]
    return S.Cat.apply(d, *tensors)


concat = cat


@_with_out
def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Join same-shape tensors along a new dim."""
    tensors = [_t(t) for t in tensors]
    if not tensors:
        raise ValueError("stack() needs at least one tensor")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise ValueError(
                f"stack: tensor {i} has shape {t.shape}, tensor 0 has {tensors[0].shape}"
            )
    n = tensors[0].ndim
    if not -(n + 1) <= dim <= n:
        raise IndexError(
            f"stack: dim {dim} is out of range for tensors with {n} dims (the new dim goes in "
            f"[{-(n + 1)}, {n}])"
        )
    d = dim % (n + 1)
    return cat([t.unsqueeze(d) for t in tensors], dim=d)


def allclose(
    a: Tensor, b: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
) -> bool:
    """True when |a - b| <= atol + rtol |b| everywhere."""
    b = _t(b, a)
    xp = get_array_module(a._data)
    f = xp.float64 if a._data.dtype == xp.float64 else xp.float32
    return bool(
        xp.allclose(a._data.astype(f), b._data.astype(f), rtol=rtol, atol=atol, equal_nan=equal_nan)
    )


def equal(a: Tensor, b: Tensor) -> bool:
    """True when ``a`` and ``b`` have the same shape and the same values (NaN equals nothing)."""
    return a.equal(b)


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return x.flatten(start_dim, end_dim)


def flip(x: Tensor, dims: Any) -> Tensor:
    return x.flip(dims)


def fliplr(x: Tensor) -> Tensor:
    return x.fliplr()


def flipud(x: Tensor) -> Tensor:
    return x.flipud()


def unbind(x: Tensor, dim: int = 0) -> tuple:
    return x.unbind(dim)


def ravel(x: Tensor) -> Tensor:
    return x.ravel()


def reshape(x: Tensor, shape: Any) -> Tensor:
    return x.reshape(shape)


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    return x.transpose(dim0, dim1)


def permute(x: Tensor, dims: Any) -> Tensor:
    return x.permute(dims)


def squeeze(x: Tensor, dim: Any = None) -> Tensor:
    return x.squeeze(dim)


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    return x.unsqueeze(dim)


def split(x: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    return x.split(split_size_or_sections, dim)


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple:
    return x.chunk(chunks, dim)


# -- stacking, grids, and the shape and index methods' mg.* forms (mg.roll(x, 1) is x.roll(1))
def _at_least(t: Any, n: int) -> Any:
    """atleast_1d / atleast_2d: leading dims of size 1 added."""
    return t if t.ndim >= n else t.reshape((1,) * (n - t.ndim) + tuple(t.shape))


def hstack(tensors: Any) -> Any:
    """cat along dim 1 (dim 0 for 1-d tensors)."""
    ts = [_at_least(t, 1) for t in tensors]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Any:
    """cat along dim 0 of the tensors as at least 2-d (a 1-d tensor becomes a row)."""
    return cat([_at_least(t, 2) for t in tensors], 0)


row_stack = vstack


def column_stack(tensors: Any) -> Any:
    """0-d and 1-d tensors become columns, then cat along dim 1."""
    return cat([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors], 1)


def meshgrid(*tensors: Any, indexing: str = "ij") -> tuple:
    """Coordinate grids: with "ij", out[k] varies along dim k; "xy" swaps the first two dims."""
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)) else tensors
    if indexing not in ("ij", "xy"):
        raise ValueError(f'meshgrid: indexing must be "ij" or "xy", got {indexing!r}')
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid: expected 0-d or 1-d tensors, got {t.ndim} dims")
    ts = [t.reshape(-1) for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = [
        t.reshape([-1 if e == k else 1 for e in range(len(ts))]).expand(shape)
        for k, t in enumerate(ts)
    ]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# mg.* forms of the methods (PyTorch has both): mg.roll(x, 1) == x.roll(1)
def roll(x: Any, shifts: Any, dims: Any = None) -> Any:
    return x.roll(shifts, dims)


@_with_out
def index_select(x: Any, dim: int, index: Any) -> Any:
    return x.index_select(dim, index)


def movedim(x: Any, source: Any, destination: Any) -> Any:
    return x.movedim(source, destination)


moveaxis = movedim


def swapaxes(x: Any, axis0: int, axis1: int) -> Any:
    return x.swapaxes(axis0, axis1)


swapdims = swapaxes


def t(x: Any) -> Any:
    return x.t()


def broadcast_to(x: Any, size: Any) -> Any:
    return x.broadcast_to(size)


def tile(x: Any, dims: Any) -> Any:
    return x.tile(dims)


def repeat_interleave(
    x: Any, repeats: Any = None, dim: Any = None, *, output_size: Any = None
) -> Any:
    """x.repeat_interleave(repeats, dim); with x alone (a tensor of counts r), the indices
    0, 1, ... each repeated r[i] times (PyTorch's repeat_interleave(repeats))."""
    if repeats is None:
        counts = _check(x, "repeat_interleave")
        xp = get_array_module(counts._data)
        positions = Tensor._make(xp.arange(counts.numel(), dtype=xp.int64), False)
        return positions.repeat_interleave(counts, output_size=output_size)
    return x.repeat_interleave(repeats, dim, output_size=output_size)


@_with_out
def take_along_dim(x: Any, indices: Any, dim: Any = None) -> Any:
    return x.take_along_dim(indices, dim)


def scatter(x: Any, dim: int, index: Any, src: Any = None, *, value: Any = None) -> Any:
    return x.scatter(dim, index, src, value=value)


def scatter_add(x: Any, dim: int, index: Any, src: Any) -> Any:
    return x.scatter_add(dim, index, src)


def scatter_reduce(
    x: Any, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True
) -> Any:
    return x.scatter_reduce(dim, index, src, reduce, include_self=include_self)


def index_fill(x: Any, dim: int, index: Any, value: Any) -> Any:
    return x.index_fill(dim, index, value)


def index_copy(x: Any, dim: int, index: Any, source: Any) -> Any:
    return x.index_copy(dim, index, source)


def diag(x: Any, diagonal: int = 0) -> Any:
    return x.diag(diagonal)


def trace(x: Any) -> Any:
    return x.trace()


@_with_out
def outer(x: Any, vec2: Any) -> Any:
    return x.outer(vec2)


ger = outer


@_with_out
def addmm(x: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return x.addmm(mat1, mat2, beta=beta, alpha=alpha)


@_with_out
def baddbmm(x: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return x.baddbmm(batch1, batch2, beta=beta, alpha=alpha)


def norm(x: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Tensor:
    return x.norm(p, dim, keepdim)


def var(
    x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, correction: Any = None
) -> Tensor:
    return x.var(dim, unbiased, keepdim, correction)


def std(
    x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, correction: Any = None
) -> Tensor:
    return x.std(dim, unbiased, keepdim, correction)


def numel(x: Tensor) -> int:
    return x.numel()


@_with_out
def matmul(x: Tensor, other: Tensor) -> Tensor:
    """PyTorch's matmul: 1-D operands get a dim added (and removed), batch dims broadcast."""
    if isinstance(x, SparseCOOTensor):  # sparse @ dense
        return x.mm(other)
    return _matmul(x, other)


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


_CDIST_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """The p-norm distance between each row of x1 (*, P, M) and each row of x2 (*, R, M):
    out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p, shape (*, P, R), batch dims broadcast.

    For p = 2 and more than 25 rows on either side (or ``compute_mode="use_mm_for_euclid_dist"``)
    the squared distance comes from one matmul, ||a||^2 - 2 a.b + ||b||^2 (ops/distance.py), as
    PyTorch does; otherwise from the differences directly. Gradients are 0 at zero distance."""
    mode = compute_mode or _CDIST_MODES[0]
    if mode not in _CDIST_MODES:
        raise ValueError(f"cdist: compute_mode must be one of {_CDIST_MODES}, got {compute_mode!r}")
    if not p >= 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got p={p}")
    _check_same_dtype("cdist", x1=x1, x2=x2)
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"cdist: x1 (*, P, M) and x2 (*, R, M) need at least 2 dims and the same M, got "
            f"shapes {tuple(x1.shape)} and {tuple(x2.shape)}"
        )
    xp = get_array_module(x1._data)
    batch = tuple(xp.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    (p1, m), r = x1.shape[-2:], x2.shape[-2]
    a = x1.expand(batch + (p1, m))
    b = x2.expand(batch + (r, m))
    use_mm = p == 2 and (
        mode == "use_mm_for_euclid_dist"
        or (mode == "use_mm_for_euclid_dist_if_necessary" and (p1 > 25 or r > 25))
    )
    if use_mm:
        out = EuclideanDistMM.apply(a.reshape((-1, p1, m)), b.reshape((-1, r, m)))
        return out.reshape(batch + (p1, r))
    # (*, P, 1, M) - (*, 1, R, M): every pair's difference, then its norm (0-gradient at 0)
    return (a.unsqueeze(-2) - b.unsqueeze(-3)).norm(p, -1)


# -- logical and bitwise ops, and the further pointwise names (tensor_pointwise.py)
@_with_out
def logical_and(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    return input.logical_and(other)


@_with_out
def logical_or(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    return input.logical_or(other)


@_with_out
def logical_xor(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    return input.logical_xor(other)


@_with_out
def logical_not(input: Tensor) -> Tensor:  # noqa: A002
    return input.logical_not()


@_with_out
def bitwise_and(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _t(input, other if isinstance(other, Tensor) else None).bitwise_and(other)


@_with_out
def bitwise_or(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _t(input, other if isinstance(other, Tensor) else None).bitwise_or(other)


@_with_out
def bitwise_xor(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _t(input, other if isinstance(other, Tensor) else None).bitwise_xor(other)


@_with_out
def bitwise_not(input: Tensor) -> Tensor:  # noqa: A002
    return input.bitwise_not()


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001, A002
    return input.all(dim, keepdim)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001, A002
    return input.any(dim, keepdim)


@_with_out
def sgn(input: Tensor) -> Tensor:  # noqa: A002
    return input.sgn()


@_with_out
def signbit(input: Tensor) -> Tensor:  # noqa: A002
    return input.signbit()


@_with_out
def exp2(input: Tensor) -> Tensor:  # noqa: A002
    return input.exp2()


@_with_out
def logaddexp(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return input.logaddexp(other)


@_with_out
def logaddexp2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return input.logaddexp2(other)


@_with_out
def hypot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return input.hypot(other)


@_with_out
def xlogy(input: Any, other: Any) -> Tensor:  # noqa: A002
    """x * log(y), 0 where x = 0; x may be a number."""
    if not isinstance(input, Tensor):
        other = _t(other)
        dt = other.dtype if other.is_floating_point() else _dt.get_default_dtype()
        x = Tensor._make(get_array_module(other._data).asarray(input, dt.numpy_dtype), False)
        return x.xlogy(other)
    return input.xlogy(other)


@_with_out
def logit(input: Tensor, eps: Any = None) -> Tensor:  # noqa: A002
    return input.logit(eps)


@_with_out
def fmax(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return input.fmax(other)


@_with_out
def fmin(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return input.fmin(other)


def frexp(input: Tensor) -> Any:  # noqa: A002
    return input.frexp()


@_with_out
def ldexp(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    return input.ldexp(other)


@_with_out
def copysign(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    return input.copysign(other)


@_with_out
def heaviside(input: Tensor, values: Tensor) -> Tensor:  # noqa: A002
    return input.heaviside(values)


@_with_out
def deg2rad(input: Tensor) -> Tensor:  # noqa: A002
    return input.deg2rad()


@_with_out
def rad2deg(input: Tensor) -> Tensor:  # noqa: A002
    return input.rad2deg()


@_with_out
def float_power(input: Any, exponent: Any) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):
        return _t(input, exponent).double().float_power(exponent)
    return input.float_power(exponent)


@_with_out
def erfc(input: Tensor) -> Tensor:  # noqa: A002
    return input.erfc()


@_with_out
def i0(input: Tensor) -> Tensor:  # noqa: A002
    return input.i0()


@_with_out
def sinc(input: Tensor) -> Tensor:  # noqa: A002
    return input.sinc()


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:  # noqa: A002
    return input.is_complex()


# -- splitting, rotating, diagonals (tensor_shape.py) and building from several tensors
def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:  # noqa: A002
    return input.unflatten(dim, sizes)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:  # noqa: A002
    return input.tensor_split(indices_or_sections, dim)


def hsplit(input: Tensor, sections: Any) -> tuple:  # noqa: A002
    return input.hsplit(sections)


def vsplit(input: Tensor, sections: Any) -> tuple:  # noqa: A002
    return input.vsplit(sections)


def dsplit(input: Tensor, sections: Any) -> tuple:  # noqa: A002
    return input.dsplit(sections)


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:  # noqa: A002
    return input.rot90(k, dims)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    return input.diag_embed(offset, dim1, dim2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:  # noqa: A002
    return input.diagflat(offset)


concatenate = cat


def _tensors_arg(tensors: tuple) -> tuple:
    """f(a, b) and f([a, b]) alike."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        return tuple(tensors[0])
    return tensors


def _atleast(n: int, tensors: tuple) -> Any:
    one = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    out = tuple(_at_least_nd(_t(t), n) for t in _tensors_arg(tensors))
    return out[0] if one else out


def _at_least_nd(t: Tensor, n: int) -> Tensor:
    if n < 3 or t.ndim >= 3:
        return _at_least(t, n)
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.reshape(1, -1, 1)
    return t.unsqueeze(-1)  # (m, n) -> (m, n, 1)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 dim (a 0-d tensor becomes shape (1,))."""
    return _atleast(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dims (leading 1s added)."""
    return _atleast(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dims: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _atleast(3, tensors)


def dstack(tensors: Any) -> Tensor:
    """cat along dim 2 (depth) of the tensors made at least 3-d."""
    return cat([_at_least_nd(_t(t), 3) for t in tensors], 2)


def block_diag(*tensors: Any) -> Tensor:
    """The tensors (0-, 1- or 2-d) down the diagonal of one matrix, zeros elsewhere."""
    mats = []
    for i, t in enumerate(tensors):
        t = _t(t)
        if t.ndim > 2:
            raise RuntimeError(
                f"block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                f"{t.ndim} dimensions"
            )
        mats.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not mats:
        return _creation.zeros(1, 0)
    dt = mats[0].dtype
    for m in mats[1:]:
        dt = _dt.promote_types(dt, m.dtype)
    width = builtins.sum(m.shape[1] for m in mats)
    xp = get_array_module(mats[0]._data)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        pad_l = Tensor._make(xp.zeros((r, left), dt.numpy_dtype), False)
        pad_r = Tensor._make(xp.zeros((r, width - left - c), dt.numpy_dtype), False)
        rows.append(S.Cat.apply(1, pad_l, m._cast(dt.numpy_dtype), pad_r))
        left += c
    return S.Cat.apply(0, *rows)


def cartesian_prod(*tensors: Any) -> Tensor:
    """Every combination of one element from each 1-D tensor, one per row (the rows of
    itertools.product); a single tensor is returned as it is."""
    ts = [_t(t) for t in tensors]
    for i, t in enumerate(ts):
        if t.ndim != 1:
            raise RuntimeError(
                f"cartesian_prod: expect a 1D vector, but got tensor {i} with {t.ndim} dims"
            )
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:  # noqa: A002
    """The length-r combinations of the elements of a 1-D tensor, one per row, in the order of
    itertools.combinations (or combinations_with_replacement)."""
    if input.ndim != 1:
        raise RuntimeError(f"combinations: Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"combinations: Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(get_array_module(input._data).zeros((0,), input._data.dtype), False)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    combos = np.asarray(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if combos.shape[0] == 0:  # r > n: no combination, shape (0, r)
        return Tensor._make(get_array_module(input._data).zeros((0, r), input._data.dtype), False)
    xp = get_array_module(input._data)
    return input[Tensor._make(xp.asarray(combos), False)]


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix: column j holds x^(N-1-j) (x^j with ``increasing``), built as a
    cumulative product of [1, x, x, ...], so x = 0 has a finite gradient."""
    if x.ndim != 1:
        raise RuntimeError(f"vander: x must be a one-dimensional tensor, got {x.ndim} dims")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError(f"vander: N must be non-negative, got {n}")
    xv = x if x._data.dtype.kind != "b" else x.long()
    if xv._data.dtype.kind in "iu":
        xv = xv.long()
    if n == 0:
        return Tensor._make(get_array_module(x._data).zeros((x.shape[0], 0), xv._data.dtype), False)
    ones = Tensor._make(get_array_module(x._data).ones((x.shape[0], 1), xv._data.dtype), False)
    cols = S.Cat.apply(1, ones, xv.unsqueeze(1).expand(x.shape[0], n - 1)) if n > 1 else ones
    out = cols.cumprod(1)
    return out if increasing else out.flip(1)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Sum over pairs of dims of a and b: ``dims=k`` pairs a's last k dims with b's first k,
    ``dims=([a dims], [b dims])`` names them. A permute, a reshape and one matmul."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError(
            f"tensordot: both dimension lists should have same length, got {len(da)} and {len(db)}"
        )
    da = [norm_dim(d, a.ndim)[0] for d in da]
    db = [norm_dim(d, b.ndim)[0] for d in db]
    for i, j in zip(da, db, strict=True):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(
                f"tensordot: contracted dimensions need to match, but first has size "
                f"{a.shape[i]} in dim {i} and second has size {b.shape[j]} in dim {j}"
            )
    _check_same_dtype("tensordot", a=a, b=b)
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    m, k, n = (_math.prod(t.shape[d] for d in ds) for t, ds in ((a, free_a), (a, da), (b, free_b)))
    # (sizes spelled out, not -1: a contraction over a size-0 dim is a (m, 0) @ (0, n) of zeros)
    left = a.permute(*(free_a + da)).reshape(m, k)
    right = b.permute(*(db + free_b)).reshape(k, n)
    shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    return _matmul(left, right).reshape(shape)


__all__ = [
    n
    for n in dir()
    if not n.startswith("_")
    and n
    not in (
        "annotations",
        "Any",
        "Callable",
        "Tensor",
        "E",
        "S",
        "get_array_module",
        "functools",
        "warnings",
        "builtins",
        "itertools",
        "np",
        "is_grad_enabled",
        "EuclideanDistMM",
    )
]


# ---------------------------------------------------------------------- linear algebra
# mg.einsum, and the mg.* forms of the Tensor's linear-algebra methods (tensor_linalg.py).
# torch.linalg's names are in linalg.py; mg.svd and mg.linalg.svd differ as in PyTorch:
# (U, S, V) with ``some`` versus (U, S, Vh) with ``full_matrices``.
def einsum(*args: Any) -> Tensor:
    """einsum("ij,jk->ik", a, b): sums of products over subscripts (a-z, A-Z; '...' for broadcast
    batch dims; no '->' gives the letters used once, in alphabetical order). Also the sublist
    form einsum(a, [0, 1], b, [1, 2], [0, 2]), and the operands as one list."""
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand")
    if isinstance(args[0], Tensor):
        equation, operands = sublist_equation(args)
    else:
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): the equation must be a string, got {type(equation).__name__}")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, got {type(t).__name__}")
    if not operands:
        raise ValueError("einsum(): must provide at least one operand")
    return Einsum.apply(parse(equation, [tuple(t.shape) for t in operands]), *operands)


def _linalg_input(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    return x


def det(input: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "det").det()


def logdet(input: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "logdet").logdet()


def slogdet(input: Tensor) -> tuple:  # noqa: A002
    return _linalg_input(input, "slogdet").slogdet()


def inverse(input: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "inverse").inverse()


def cholesky(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    return _linalg_input(input, "cholesky").cholesky(upper)


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """X with A X = input, A = L L^T given by its factor ``input2`` (U^T U with ``upper``)."""
    return _linalg_input(input, "cholesky_solve").cholesky_solve(
        _linalg_input(input2, "cholesky_solve"), upper
    )


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    return _linalg_input(input, "cholesky_inverse").cholesky_inverse(upper)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> tuple:  # noqa: A002
    return _linalg_input(input, "svd").svd(some, compute_uv)


def qr(input: Tensor, some: bool = True) -> tuple:  # noqa: A002
    return _linalg_input(input, "qr").qr(some)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    return _linalg_input(input, "cross").cross(other, dim)


def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "kron").kron(other)


def matrix_power(input: Tensor, n: int) -> Tensor:  # noqa: A002
    return _linalg_input(input, "matrix_power").matrix_power(n)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    return _linalg_input(input, "pinverse").pinverse(rcond)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    return _linalg_input(input, "diagonal").diagonal(offset, dim1, dim2)


def matrix_exp(input: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "matrix_exp").matrix_exp()
