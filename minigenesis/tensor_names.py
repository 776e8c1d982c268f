"""Tensor methods for rounding, nan_to_num, isclose, lerp, cumprod, where/masked_select, nonzero,
unique and bincount (PyTorch's names and semantics), and their in-place forms.

The differentiable ones are ops in ``ops/pointwise_names.py`` or compositions of existing ops; the
ones that return indices or counts (nonzero, unique, bincount, isclose) work on arrays and give
tensors without gradient, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .ops import pointwise_names as P


def _array(x: Any, like: Any) -> Any:
    return x._data if isinstance(x, TensorBase) else get_array_module(like).asarray(x)


def _need_float(t: Any, name: str) -> None:
    if t._data.dtype.kind not in "fV":
        raise TypeError(f"{name}() needs a floating-point tensor, got {t.dtype.name}")


class PointwiseNames:
    """Mixin of Tensor: rounding, selection and counting methods."""

    __slots__ = ()

    _data: Any

    # ------------------------------------------------------------------ rounding
    def floor(self):
        return P.Floor.apply(self)

    def ceil(self):
        return P.Ceil.apply(self)

    def trunc(self):
        return P.Trunc.apply(self)

    fix = trunc

    def round(self, decimals: int = 0):
        """Round halves to even; ``decimals`` digits after the point (negative: before it)."""
        if not isinstance(decimals, int) or isinstance(decimals, bool):
            raise TypeError(f"round(): decimals must be an int, got {type(decimals).__name__}")
        return P.Round.apply(self, decimals)

    def frac(self):
        """x - trunc(x): the fractional part, with x's sign."""
        _need_float(self, "frac")
        return P.Frac.apply(self)

    def nan_to_num(self, nan: float = 0.0, posinf=None, neginf=None):
        """NaN -> ``nan``, +inf -> ``posinf``, -inf -> ``neginf`` (default: the dtype's largest and
        smallest finite values)."""
        return P.NanToNum.apply(self, nan, posinf, neginf)

    def isclose(self, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
        """|self - other| <= atol + rtol * |other| elementwise (equal infinities are close; NaN is
        close to NaN only with ``equal_nan``). A bool tensor without gradient."""
        if rtol < 0 or atol < 0:
            raise ValueError(f"isclose: rtol and atol must be non-negative, got {rtol}, {atol}")
        a, b = self._data, _array(other, self._data)
        if a.dtype.kind == "b" or b.dtype.kind == "b":
            a, b = a.astype(b.dtype) if a.dtype.kind == "b" else a, b
        xp = get_array_module(a)
        close = xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
        return self._make(xp.asarray(close), False)

    def lerp(self, end, weight):
        """self + weight * (end - self); ``weight`` a number or a tensor (all three broadcast)."""
        if not isinstance(end, TensorBase):
            raise TypeError(f"lerp(): end must be a Tensor, got {type(end).__name__}")
        _need_float(self, "lerp")
        return self + weight * (end - self)

    def cumprod(self, dim: int, dtype=None):
        """y_i = x_0 * ... * x_i along ``dim`` (bool and integers accumulate in int64)."""
        from . import dtypes as _dt
        from .tensor_math import norm_dim

        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = self if dtype is None else self.to(dtype)
        d = norm_dim(dim, max(self.ndim, 1))[0]
        if self.ndim == 0:
            return P.Cumprod.apply(x.reshape(1), 0).reshape(())
        return P.Cumprod.apply(x, d)

    # ------------------------------------------------------------------ selection
    def where(self, condition, other):
        """``self`` where ``condition``, else ``other`` (mg.where(condition, self, other))."""
        from .functions import where

        return where(condition, self, other)

    def masked_select(self, mask):
        """The elements where ``mask`` (bool, broadcast with self) is True, as a 1-D tensor."""
        m = _array(mask, self._data)
        if m.dtype.kind != "b":
            raise TypeError(f"masked_select: mask must be a bool tensor, got dtype {m.dtype}")
        xp = get_array_module(m)
        shape = xp.broadcast_shapes(self.shape, m.shape)
        x = self if tuple(self.shape) == shape else self.expand(*shape)
        return x[xp.broadcast_to(m, shape)]

    def nonzero(self, *, as_tuple: bool = False):
        """Indices of the nonzero elements: an (n, ndim) int64 tensor, or with ``as_tuple`` one
        1-D tensor per dim (a 0-d tensor counts as 1-D there, as in PyTorch)."""
        xp = get_array_module(self._data)
        data = self._data
        if as_tuple:
            idx = xp.nonzero(data.reshape(1) if data.ndim == 0 else data)
            return tuple(self._make(i.astype(xp.int64), False) for i in idx)
        idx = xp.argwhere(data).astype(xp.int64)
        return self._make(idx, False)

    def unique(
        self,
        sorted: bool = True,  # noqa: A002
        return_inverse: bool = False,
        return_counts: bool = False,
        dim=None,
    ):
        """The distinct elements, sorted (always: ``sorted=False`` is allowed to sort too), and
        optionally the index of each element in them (shaped like self) and their counts."""
        if dim is not None:
            raise NotImplementedError("unique(dim=...) is not supported here: pass dim=None")
        xp = get_array_module(self._data)
        values, inverse, counts = xp.unique(
            self._data.reshape(-1), return_inverse=True, return_counts=True
        )
        out = [self._make(values, False)]
        if return_inverse:
            out.append(self._make(inverse.reshape(self.shape).astype(xp.int64), False))
        if return_counts:
            out.append(self._make(counts.astype(xp.int64), False))
        return out[0] if len(out) == 1 else tuple(out)

    def bincount(self, weights=None, minlength: int = 0):
        """How often each value 0, 1, ..., max occurs in a 1-D non-negative integer tensor (or the
        sum of ``weights`` per value); at least ``minlength`` bins."""
        data = self._data
        if data.ndim != 1 or data.dtype.kind not in "biu":
            raise RuntimeError(
                f"bincount only supports 1-d non-negative integral inputs, got a {data.ndim}-d "
                f"{self.dtype.name} tensor"
            )
        if minlength < 0:
            raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
        xp = get_array_module(data)
        if data.size and int(data.min()) < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs")
        if weights is None:
            return self._make(xp.bincount(data, minlength=minlength).astype(xp.int64), False)
        w = _array(weights, data)
        if w.shape != data.shape:
            raise RuntimeError(
                f"bincount: weights should be 1-d and have the same length as input, got "
                f"{tuple(w.shape)} for {tuple(data.shape)}"
            )
        # float32 weights give float32 counts; any other dtype float64, as in PyTorch
        dtype = w.dtype if w.dtype in (xp.float32, xp.float64) else xp.float64
        counts = xp.bincount(data, weights=w.astype(xp.float64), minlength=minlength)
        return self._make(counts.astype(dtype), False)

    # ------------------------------------------------------------------ in place
    def floor_(self):
        return self._inplace(lambda x: x.floor())

    def ceil_(self):
        return self._inplace(lambda x: x.ceil())

    def trunc_(self):
        return self._inplace(lambda x: x.trunc())

    fix_ = trunc_

    def round_(self, decimals: int = 0):
        return self._inplace(lambda x: x.round(decimals))

    def frac_(self):
        return self._inplace(lambda x: x.frac())

    def abs_(self):
        return self._inplace(lambda x: x.abs())

    def sign_(self):
        return self._inplace(lambda x: x.sign())

    def exp_(self):
        return self._inplace(lambda x: x.exp())

    def sqrt_(self):
        return self._inplace(lambda x: x.sqrt())

    def nan_to_num_(self, nan: float = 0.0, posinf=None, neginf=None):
        return self._inplace(lambda x: x.nan_to_num(nan, posinf, neginf))

    def cumprod_(self, dim: int):
        return self._inplace(lambda x: x.cumprod(dim))
