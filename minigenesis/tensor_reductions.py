"""The Tensor's reductions, scans, sorting and counting: sum, mean, var / std, max / min (with
their indices), amax / amin, argmax / argmin, prod, logsumexp, norm, any / all, sum_to_shape;
cumsum, cumprod, cummax, cummin; sort, argsort, topk; unique, histc, bincount.

A reduction takes ``dim`` (one dim or several, or None for all) and ``keepdim``, and NumPy's
spellings ``axis=`` / ``keepdims=`` too where PyTorch does. bool and integer sums and products
accumulate in int64, as in PyTorch. Methods that return indices or counts (argmax, unique,
bincount) work on arrays and give tensors without gradient, as in PyTorch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as _dt
from . import return_types
from .autograd.grad_mode import state
from .autograd.node_names import node_variant
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .meta_array import refuse_data_dependent
from .ops import elementwise as E
from .ops import reduce as R
from .ops import shape as S
from .ops import sorting as SO
from .ops.round_once import in_float32, is_two_byte_float
from .ops.stl_order import unique_as_pytorch_sorts, unique_is_ambiguous, unique_slices_as_pytorch
from .promotion import FLOAT_KINDS, binary_op, float_in, need_float
from .size import check_unique_dim, norm_dim, plain_int

_SUM_DIM = node_variant(R.Sum, "SumBackward1")  # x.sum(dim): PyTorch's other overload
_MEAN_DIM = node_variant(R.Mean, "MeanBackward1")


def _refuse_empty(t: Any, name: str, axis: tuple | None, all_error: type = RuntimeError) -> None:
    """max, min, argmax... have no identity: PyTorch refuses to reduce an empty dim (or, with
    no dim, an empty tensor), naming the op."""
    if axis is None:
        if t._data.size == 0:
            raise all_error(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                f"Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in axis:
        if t._data.ndim and t._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _refuse_dims(name: str, dim: Any) -> None:
    """max / min / argmax / argmin reduce along one dim: a tuple or list is PyTorch's TypeError
    (amax / amin take several)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")


def _accumulate_in(t: Any, dtype: Any) -> Any:
    """``t`` cast to a reduction's ``dtype=`` (sum, prod, cumsum, cumprod). A tensor that requires
    grad cannot be reduced into an integer or bool dtype while grad mode is on: the result could
    carry no gradient back, so PyTorch refuses it outright rather than cut the graph quietly."""
    if dtype is None:
        return t
    dt = _dt.to_dtype(dtype)
    if not dt.is_floating_point and t.requires_grad and state.grad_enabled:
        raise RuntimeError(f"Autograd not support dtype: {_dt.scalar_type_name(dt)}")
    return t.to(dt)


def _numpy_spelling(dim: Any, keepdim: bool, axis: Any, keepdims: bool | None) -> tuple:
    """PyTorch also takes NumPy's names ``axis=`` and ``keepdims=`` for ``dim=`` and ``keepdim=``
    (``counts.sum(1, keepdims=True)``); giving both spellings of one argument is an error."""
    if axis is not None:
        if dim is not None:
            raise TypeError("got both dim= and its NumPy spelling axis=: pass one")
        dim = axis
    return dim, (keepdim if keepdims is None else bool(keepdims))


def _sort_args(name: str, args: tuple, dim: Any, descending: bool, stable: Any) -> tuple:
    """(dim, descending) of sort/argsort: positional only without ``stable`` (PyTorch's rule)."""
    if args and stable is not None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments: with stable=, dim and "
            "descending must be given by keyword"
        )
    if len(args) > 2:
        raise TypeError(f"{name}() takes at most 2 positional arguments ({len(args)} given)")
    if len(args) == 1:
        return args[0], descending
    return args if args else (dim, descending)


class TensorReductions:
    """Mixin of Tensor: reductions, scans, sorting and counting."""

    __slots__ = ()

    _data: Any

    # ----------------------------------------------------------------------------------- reductions
    def sum(self, dim=None, keepdim: bool = False, dtype=None, *, axis=None, keepdims=None):
        dim, keepdim = _numpy_spelling(dim, keepdim, axis, keepdims)
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64  # as PyTorch: bool and integer sums accumulate in int64
        x = _accumulate_in(self, dtype)
        op = R.Sum if dim is None else _SUM_DIM  # PyTorch's sum.dim_IntList: SumBackward1
        return op.apply(x, norm_dim(dim, self.ndim), keepdim)

    def mean(self, dim=None, keepdim: bool = False, dtype=None, *, axis=None, keepdims=None):
        dim, keepdim = _numpy_spelling(dim, keepdim, axis, keepdims)
        x = self if dtype is None else self.to(dtype)
        if x._data.dtype.kind not in FLOAT_KINDS:  # RuntimeError, as PyTorch
            raise RuntimeError(
                f"mean(): could not infer output dtype: it needs a floating-point tensor, got "
                f"{x.dtype.name}: call .float() first or pass a floating dtype="
            )
        op = R.Mean if dim is None else _MEAN_DIM  # MeanBackward1, as sum
        return op.apply(x, norm_dim(dim, self.ndim), keepdim)

    def var(self, dim=None, unbiased=None, keepdim: bool = False, correction=None):
        need_float(self, "var/std")
        if isinstance(dim, bool):  # PyTorch's var(unbiased) overload: x.var(False) is biased
            dim, unbiased = None, dim
        if correction is None:
            correction = 1 if unbiased is None or unbiased else 0
        return R.Var.apply(self, norm_dim(dim, self.ndim), correction, keepdim)

    def std(self, dim=None, unbiased=None, keepdim: bool = False, correction=None):
        if is_two_byte_float(self):  # the variance of float16 60000s overflows, their std not
            return in_float32(lambda t: t.std(dim, unbiased, keepdim, correction), self)
        v = self.var(dim, unbiased, keepdim, correction)
        xp = get_array_module(v._data)
        if v.dtype == _dt.float32 and xp is np and bool(xp.isinf(v._data).any()):
            # the float32 variance overflowed (|x| from ~1e19: the squares pass 3.4e38) where
            # the std may not (PyTorch accumulates in double): the std again in float64, rounded
            return self.double().std(dim, unbiased, keepdim, correction).float()
        return R.StdSqrt.apply(v)

    def _extreme(self, dim, keepdim, all_op, dim_op):
        name = "max" if all_op is R.MaxAll else "min"
        if dim is None:
            _refuse_empty(self, name, None)
            return all_op.apply(self)
        if isinstance(dim, TensorBase):  # max(other): the elementwise form
            return binary_op(E.Maximum if all_op is R.MaxAll else E.Minimum, self, dim)
        _refuse_dims(name, dim)
        d = norm_dim(dim, self.ndim)[0]
        _refuse_empty(self, name, (d,))
        if self.ndim == 0:  # the value itself, as a new tensor (not self: writes must not alias)
            xp = get_array_module(self._data)
            zero = self._make(xp.zeros((), xp.int64), False)
            return getattr(return_types, name)(S.Clone.apply(self), zero)
        return getattr(return_types, name)(*dim_op.apply(self, d, keepdim))

    def max(self, dim=None, keepdim: bool = False):
        """max() -> the largest element;  max(dim) -> (values, indices);  max(other) -> maximum."""
        return self._extreme(dim, keepdim, R.MaxAll, R.MaxDim)

    def min(self, dim=None, keepdim: bool = False):
        return self._extreme(dim, keepdim, R.MinAll, R.MinDim)

    def amax(self, dim=None, keepdim: bool = False):
        return self._amax_amin(dim, keepdim, R.AMax)

    def amin(self, dim=None, keepdim: bool = False):
        return self._amax_amin(dim, keepdim, R.AMin)

    def _amax_amin(self, dim, keepdim, op):
        axis = norm_dim(dim, self.ndim)
        _refuse_empty(self, "amax" if op is R.AMax else "amin", axis or None)
        # None or (): every dim, as PyTorch; still amax's gradient (shared by the elements equal
        # to the result, NaN everywhere for a NaN result), not max()'s
        if not axis or not self.ndim:
            axis = None
        return op.apply(self, axis, keepdim)

    def argmax(self, dim=None, keepdim: bool = False):
        return self._arg_extreme("argmax", dim, keepdim)

    def argmin(self, dim=None, keepdim: bool = False):
        return self._arg_extreme("argmin", dim, keepdim)

    def _arg_extreme(self, name: str, dim, keepdim: bool):
        """argmax / argmin: the (first) index of the extreme, over all elements or along ``dim``."""
        if self._data.dtype.kind == "b":
            raise RuntimeError(f"{name}() of a bool tensor is not supported, as in PyTorch")
        xp = get_array_module(self._data)
        fn = getattr(xp, name)
        if dim is None:
            _refuse_empty(self, name, None, IndexError)
            flat = xp.asarray(fn(self._data))  # keepdim: every dim kept as size 1
            return self._derived(flat.reshape((1,) * self.ndim) if keepdim else flat)
        _refuse_dims(name, dim)
        d = norm_dim(dim, self.ndim)[0]
        _refuse_empty(self, name, (d,))
        if self.ndim == 0:  # NumPy has no axis 0 here; PyTorch's answer is index 0
            return self._make(xp.zeros((), xp.int64), False)
        return self._derived(fn(self._data, axis=d, keepdims=keepdim))

    def prod(self, dim=None, keepdim: bool = False, dtype=None):
        """The product of the elements (over one ``dim``, or all); 1 for an empty reduction."""
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = _accumulate_in(self, dtype)
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"prod: dim must be an int (one dim) or None, got {dim!r}")
        axis = None if dim is None or self.ndim == 0 else norm_dim(dim, self.ndim)[0]
        if dim is not None and self.ndim == 0:
            norm_dim(dim, 0)  # range check only
        return R.Prod.apply(x, axis, keepdim)

    def logsumexp(self, dim, keepdim: bool = False):
        """log(sum(exp(x))) over ``dim``, which PyTorch requires (no whole-tensor default)."""
        return R.LogSumExp.apply(float_in(self), norm_dim(dim, self.ndim), keepdim)

    def norm(self, p="fro", dim=None, keepdim: bool = False, dtype=None):
        """The p-norm (sum |x|^p)^(1/p); p=inf is max |x|; "fro" and 2 are the Euclidean norm.
        ``dtype``: the values are cast to it first, so the norm is computed in it."""
        if dtype is not None:
            self = self.to(dtype)
        need_float(self, "norm")
        if p == "nuc":  # the sum of the singular values (tensor_composites.py)
            return self._nuclear_norm(dim, keepdim)
        if p == "fro":
            p = 2
        axis = norm_dim(dim, self.ndim) if self.ndim else None
        if p in (float("inf"), "inf", float("-inf"), "-inf"):
            # max |x| (min |x|), ties share the gradient; max has no identity, so an empty
            # reduction is refused, as in PyTorch
            empty = self.numel() == 0 if axis is None else any(self.shape[d] == 0 for d in axis)
            if empty:
                where = "an empty tensor" if axis is None else f"the dims {axis}"
                raise RuntimeError(f"norm cannot compute the {p} norm on {where} (no identity)")
            a = self.abs()
            return a.amax(dim, keepdim) if p in (float("inf"), "inf") else a.amin(dim, keepdim)
        if p == 0:
            return R.CountNonzero.apply(self, axis, keepdim)
        return R.PNorm.apply(self, float(p), axis, keepdim)

    def any(self, dim=None, keepdim: bool = False):
        return self._any_all("any", dim, keepdim)

    def all(self, dim=None, keepdim: bool = False):
        return self._any_all("all", dim, keepdim)

    def _any_all(self, name: str, dim, keepdim: bool):
        d = norm_dim(dim, self.ndim)
        if not self.ndim:  # a 0-d tensor's dim 0 (or -1) is the tensor itself
            d = None
        xp = get_array_module(self._data)
        # (asanyarray: a meta tensor's answer stays data-less)
        out = xp.asanyarray(getattr(self._data, name)(axis=d, keepdims=keepdim))
        if self._data.dtype == xp.uint8:  # PyTorch's exception: a uint8 input gives uint8 0/1
            out = out.astype(xp.uint8)
        return self._derived(out)

    def sum_to_shape(self, shape: tuple):
        """Sum broadcast dims away until the shape is ``shape`` (the inverse of expand)."""
        if tuple(self._data.shape) == tuple(shape):
            return self
        return S.SumTo.apply(self, tuple(shape))

    # ---------------------------------------------------------------------------------------- scans
    def cumsum(self, dim: int, dtype=None):
        """y_i = x_0 + ... + x_i along ``dim`` (bool and integers accumulate in int64)."""
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = _accumulate_in(self, dtype)
        d = norm_dim(dim, self.ndim)[0]
        if self.ndim == 0:  # NumPy has no axis 0 here: the running sum of one value is itself
            return R.CumSum.apply(x.reshape(1), 0).reshape(())
        return R.CumSum.apply(x, d)

    def cumprod(self, dim: int, dtype=None):
        """y_i = x_0 * ... * x_i along ``dim`` (bool and integers accumulate in int64)."""
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = _accumulate_in(self, dtype)
        d = norm_dim(dim, max(self.ndim, 1))[0]
        if self.ndim == 0:
            return R.Cumprod.apply(x.reshape(1), 0).reshape(())
        return R.Cumprod.apply(x, d)

    def cummax(self, dim: int):
        """(values, indices) of the running maximum along ``dim``: values_i = max_{j <= i} x_j,
        indices_i the last j where it was reached (a NaN stays the maximum once seen)."""
        return self._cum_extreme(dim, R.CumMax)

    def cummin(self, dim: int):
        """(values, indices) of the running minimum along ``dim`` (as cummax)."""
        return self._cum_extreme(dim, R.CumMin)

    def _cum_extreme(self, dim: int, op):
        d = norm_dim(dim, max(self.ndim, 1))[0]
        result = return_types.cummax if op is R.CumMax else return_types.cummin
        if self.ndim == 0:
            values, indices = op.apply(self.reshape(1), 0)
            return result(values.reshape(()), indices.reshape(()))
        return result(*op.apply(self, d))

    # ------------------------------------------------------------------------- sorting and counting
    def sort(self, *args, dim: int = -1, descending: bool = False, stable: bool | None = None):
        """(values, indices) sorted along ``dim`` (NaN sorts as the largest); with
        ``stable=False`` (the default) equal values come in the order PyTorch's CPU sort leaves.

        PyTorch's two forms: ``sort(dim=-1, descending=False)`` positionally, or with ``stable``
        every argument by keyword (``sort(1, stable=True)`` is a TypeError there and here)."""
        dim, descending = _sort_args("sort", args, dim, descending, stable)
        return return_types.sort(*SO.sort(self, dim, descending, bool(stable)))

    def argsort(self, *args, dim: int = -1, descending: bool = False, stable: bool | None = None):
        """The indices of ``sort`` (the same two forms of arguments)."""
        dim, descending = _sort_args("argsort", args, dim, descending, stable)
        return SO.sort(self, dim, descending, bool(stable))[1]

    def topk(self, k: int, dim=None, largest: bool = True, sorted: bool = True):  # noqa: A002
        """(values, indices) of the k largest (smallest) entries along ``dim`` (last by
        default), always in sorted order (a valid answer for sorted=False too); among equal
        values, the indices PyTorch's CPU kernel picks (``ops/stl_order.py``)."""
        if self._data.dtype.kind == "b":
            raise RuntimeError("topk does not support bool dtypes on CPU")
        return return_types.topk(*SO.topk(self, k, -1 if dim is None else dim, largest))

    def unique(
        self,
        sorted: bool = True,  # noqa: A002
        return_inverse: bool = False,
        return_counts: bool = False,
        dim=None,
    ):
        """The distinct elements, sorted (always: ``sorted=False`` is allowed to sort too), and
        optionally the index of each element in them (shaped like self) and their counts. Each
        NaN is distinct (NaN != NaN), sorted after the numbers with a count of 1 each.

        With ``dim``, the distinct slices along ``dim`` (sorted lexicographically, as PyTorch);
        the inverse then has one entry per slice: x == values.index_select(dim, inverse)."""
        xp = get_array_module(self._data)
        data = self._data
        refuse_data_dependent("unique", data)
        if dim is None:
            data, axis = data.reshape(-1), None
        else:
            if self.ndim == 0:
                raise IndexError(f"unique: dim {dim} is out of range for a 0-d tensor")
            axis = norm_dim(dim, self.ndim)[0]
            check_unique_dim(self.shape, axis)
        low = data.dtype.kind == "V"  # bfloat16: NumPy's sort needs a native float
        if axis is not None and unique_is_ambiguous(data):
            values, inverse, counts = unique_slices_as_pytorch(data, axis)
        else:
            values, inverse, counts = xp.unique(
                data.astype(xp.float32) if low else data,
                return_inverse=True,
                return_counts=True,
                axis=axis,
                equal_nan=False,  # NaN != NaN: each NaN is a distinct value (last), as PyTorch
            )
        if axis is None:
            values, inverse = unique_as_pytorch_sorts(data, values, inverse)
        out = [self._make(values.astype(data.dtype, copy=False), False)]
        if return_inverse:
            shape = self.shape if dim is None else (self.shape[axis],)
            out.append(self._make(inverse.reshape(shape).astype(xp.int64), False))
        if return_counts:
            out.append(self._make(counts.astype(xp.int64), False))
        return out[0] if len(out) == 1 else tuple(out)

    def histc(self, bins: int = 100, min: float = 0, max: float = 0):  # noqa: A002
        """A histogram of ``bins`` equal-width bins over [min, max] (the last bin includes max;
        values outside are not counted). With min == max (the default) the data's own range is
        used, widened by 1 on each side when all values are equal. No gradient, as in PyTorch."""
        bins = plain_int(bins)
        if not isinstance(bins, int) or isinstance(bins, bool) or bins <= 0:
            raise RuntimeError(f"histc: bins must be a positive int, got {bins!r}")
        if self._data.dtype.kind not in FLOAT_KINDS:
            raise RuntimeError(f"histc: input must be a floating-point tensor, got {self.dtype}")
        lo, hi = float(min), float(max)
        if lo > hi:
            raise RuntimeError(f"histc: max must be larger than min, got min={lo}, max={hi}")
        xp = get_array_module(self._data)
        data = self._data.reshape(-1).astype(xp.float64)
        if lo == hi and data.size:
            lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"histc: range of [{lo}, {hi}] is not finite")
        counts, _ = xp.histogram(data[~xp.isnan(data)], bins=bins, range=(lo, hi))
        return self._make(counts.astype(self._data.dtype), False)

    def bincount(self, weights=None, minlength: int = 0):
        """How often each value 0, 1, ..., max occurs in a 1-D non-negative integer tensor (or the
        sum of ``weights`` per value); at least ``minlength`` bins."""
        data = self._data
        if data.dtype.kind == "b":  # an integer kernel without a bool instance, as PyTorch's
            raise NotImplementedError("\"bincount_cpu\" not implemented for 'Bool'")
        if data.ndim != 1 or data.dtype.kind not in "iu":
            raise RuntimeError(
                f"bincount only supports 1-d non-negative integral inputs, got a {data.ndim}-d "
                f"{self.dtype.name} tensor"
            )
        if minlength < 0:
            raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
        xp = get_array_module(data)
        if data.size and int(data.min()) < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs")
        if weights is None or data.size == 0:  # no elements: int64 zeros even with weights
            return self._make(xp.bincount(data, minlength=minlength).astype(xp.int64), False)
        w = weights._data if isinstance(weights, TensorBase) else xp.asarray(weights)
        if w.shape != data.shape:
            raise RuntimeError(
                f"bincount: weights should be 1-d and have the same length as input, got "
                f"{tuple(w.shape)} for {tuple(data.shape)}"
            )
        # float32 weights give float32 counts; any other dtype float64, as in PyTorch
        dtype = w.dtype if w.dtype in (xp.float32, xp.float64) else xp.float64
        counts = xp.bincount(data, weights=w.astype(xp.float64), minlength=minlength)
        return self._make(counts.astype(dtype), False)
